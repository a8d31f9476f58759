"""A question asked again (the next page of its results, a filter changed, its export) is
encoded once: its vectors are kept, read-only, for the model that made them."""

import numpy as np
import pytest

from memories import embedding
from memories.reads import meaning


@pytest.fixture
def encodings(monkeypatch):
    """The texts the encoder is asked for, in order (the real encoder answers)."""
    asked = []
    real = embedding.embed

    def counting(texts):
        asked.append(tuple(texts))
        return real(texts)

    monkeypatch.setattr(embedding, "embed", counting)
    meaning._encoded.cache_clear()
    yield asked
    meaning._encoded.cache_clear()


def test_the_same_question_twice_is_encoded_once_and_its_vectors_cannot_be_changed(encodings):
    first = meaning.query_vectors(["where do deploys go", "deploy target"])
    again = meaning.query_vectors(["where do deploys go", "deploy target"])
    assert encodings == [("where do deploys go", "deploy target")]
    assert np.array_equal(first, again)
    assert np.allclose(first, embedding.model().encode(["where do deploys go", "deploy target"]))
    with pytest.raises(ValueError):
        again[0, 0] = 1.0
    meaning.query_vectors(["where do releases go"])
    assert encodings[-1] == ("where do releases go",)


def test_a_model_loaded_again_encodes_the_question_afresh(encodings, monkeypatch):
    meaning.query_vectors(["where do deploys go"])
    monkeypatch.setattr(embedding, "_loaded", None)  # as after its files changed
    meaning.query_vectors(["where do deploys go"])
    assert encodings == [("where do deploys go",), ("where do deploys go",)]
