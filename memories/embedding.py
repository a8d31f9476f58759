"""The embedded sentence-embedding model: WordLlama's 256-dimension static word vectors,
whose weights and tokenizer ship inside its wheel, so nothing is fetched at run time.

Loaded once per process, on first use (a process that never searches by meaning never pays
for it), from the package's own folder with downloads disabled. WordLlama's lookup of the
bundled tokenizer misses it (it looks under `tokenizer/`, the wheel has `tokenizers/`), so the
package folder is given as the cache folder, where it does look under `tokenizers/`.

A memory's vector is stored quantized to signed bytes (`to_bytes`): a quarter of float32's
size, and the cosine it gives differs from float32's by about 0.001. `MODEL_VERSION` names
the model and the recipe of the text embedded: a vector of another version is out of date.
"""

import hashlib
import logging
import threading
from importlib.metadata import version
from pathlib import Path

import numpy as np

CONFIG = "l2_supercat"
DIMENSIONS = 256
# Only so much of a body is read: static word vectors average their tokens, so past its start
# a body adds little, and tokenizing costs time in proportion to its length. Recall@5 of the
# paraphrase set was the same at 500 characters as at 2000 or the whole (bench/meaning).
BODY_CHARS = 500
# The body's part counts half as much as the name's or the description's, which say what the
# memory is: recall@5 0.72 at full weight, 0.76 at half (bench/meaning).
BODY_WEIGHT = 0.5
TEXT_RECIPE = 3  # bump when embed_memories() changes: every stored vector is then out of date
MODEL_VERSION = f"wordllama-{version('wordllama')}/{CONFIG}-{DIMENSIONS}/int8/text{TEXT_RECIPE}"

_lock = threading.Lock()


class ModelUnavailable(RuntimeError):
    """The bundled weights or tokenizer are not where the package should hold them."""


def _import_wordllama():
    # wordllama.inference calls logging.basicConfig(level=INFO) when imported, which would
    # give the root logger a handler and a level of ours to keep: both are put back.
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    import wordllama

    for handler in root.handlers[:]:
        if handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)
    return wordllama


def _load():
    wordllama = _import_wordllama()
    folder = Path(wordllama.__file__).parent
    try:
        return wordllama.WordLlama.load(
            CONFIG, cache_dir=folder, dim=DIMENSIONS, disable_download=True
        )
    except FileNotFoundError as missing:
        raise ModelUnavailable(f"The embedded model is incomplete: {missing}") from None


_loaded = None


def model():
    """The loaded model (a WordLlamaInference), once per process."""
    global _loaded
    if _loaded is None:
        with _lock:
            if _loaded is None:
                _loaded = _load()
    return _loaded


def parts_of(name: str, description: str, body: str) -> tuple[str, str, str]:
    """What a memory's vector reads: its name as words, its description, the start of its body."""
    words = name.replace("-", " ").replace("_", " ").replace(".", " ")
    return words, description, body[:BODY_CHARS]


def text_of(name: str, description: str, body: str) -> str:
    """The parts a memory's vector reads as one text (what its digest fingerprints)."""
    return "\n".join(parts_of(name, description, body))


def embed_memories(memories: list[tuple[str, str, str]]) -> np.ndarray:
    """One unit vector per (name, description, body): the sum of each part's unit vector
    (the body's weighed by BODY_WEIGHT), made a unit again. Averaged as one text, a body's
    many words outweigh the name and the description that say what the memory is (recall@5
    of the paraphrase set: 0.51 as one text, 0.56 as parts; bench/meaning). The parts of
    all the memories are embedded in one call, batched by length."""
    if not memories:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    parts = [parts_of(*memory) for memory in memories]
    n = len(parts)
    vectors = embed([text for column in range(3) for text in (p[column] for p in parts)])
    total = vectors[:n] + vectors[n : 2 * n] + BODY_WEIGHT * vectors[2 * n :]
    norms = np.linalg.norm(total, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return total / norms


def digest(text: str) -> str:
    """A short fingerprint of an embedded text: tells a vector left behind by its memory."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def embed(texts: list[str]) -> np.ndarray:
    """Unit vectors (float32, one row per text); a zero row for a text of no token."""
    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    # Batched by length: a batch is padded to its longest text, so one long body among short
    # descriptions would make the whole batch that long.
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    vectors = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
    with np.errstate(invalid="ignore"):  # a text of no token: 0 / 0, made a zero row below
        vectors[order] = model().embed([texts[i] for i in order], norm=True, batch_size=64)
    return np.nan_to_num(vectors, copy=False)


def to_bytes(vector: np.ndarray) -> bytes:
    """One unit vector quantized to DIMENSIONS signed bytes (its largest component at 127)."""
    peak = float(np.abs(vector).max()) or 1.0
    return np.round(vector * (127.0 / peak)).astype(np.int8).tobytes()


def from_bytes(blobs: list[bytes]) -> np.ndarray:
    """The stored vectors as unit float32 rows, ready for cosine by dot product."""
    if not blobs:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    matrix = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(blobs), DIMENSIONS)
    matrix = matrix.astype(np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    matrix /= norms
    return matrix
