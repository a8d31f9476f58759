"""The embedded model: loaded from its wheel with no network, once, and sound vectors."""

import logging
import socket

import numpy as np
import pytest

from memories import embedding


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the model tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_the_model_loads_from_the_package_folder_without_the_network(no_network, monkeypatch):
    monkeypatch.setattr(embedding, "_loaded", None)
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])  # as in a process that configured no logging
    level = root.level
    model = embedding.model()
    assert embedding.model() is model, "loaded once per process"
    assert (root.handlers, root.level) == ([], level), "logging left as it was"
    vectors = embedding.embed(["The cache is invalidated every night"])
    assert vectors.shape == (1, embedding.DIMENSIONS) == (1, 384)
    assert vectors.dtype == np.float32
    assert "all-MiniLM-L6-v2" in embedding.MODEL_VERSION


def test_missing_weights_fail_the_load_in_one_sentence(monkeypatch, tmp_path):
    monkeypatch.setattr(embedding, "_loaded", None)
    monkeypatch.setenv("MEMADMIN_ENCODER_DIR", str(tmp_path))
    with pytest.raises(embedding.ModelUnavailable, match=r"is missing\.$"):
        embedding.embed(["anything"])


def test_vectors_are_unit_and_near_for_the_same_topic(no_network):
    cache, flushed, runbook = embedding.embed(
        [
            "The cache is invalidated every night",
            "when is the cache flushed",
            "Subtitles are delivered as SRT and TTML",
        ]
    )
    assert np.allclose(np.linalg.norm([cache, flushed, runbook], axis=1), 1.0, atol=1e-4)
    assert cache @ flushed > 0.4 > cache @ runbook


def test_quantized_bytes_keep_the_cosine():
    a, b = embedding.embed(["deploys go to host-7", "production releases use the bastion"])
    blob_a, blob_b = embedding.to_bytes(a), embedding.to_bytes(b)
    assert len(blob_a) == embedding.DIMENSIONS
    qa, qb = embedding.from_bytes([blob_a, blob_b])
    assert abs(float(qa @ qb) - float(a @ b)) < 0.01
    assert embedding.from_bytes([]).shape == (0, embedding.DIMENSIONS)


def test_the_text_embedded_reads_the_name_as_words_and_the_start_of_the_body():
    name, description, body = embedding.parts_of(
        "deploy-host_notes.v2", "Where deploys go", "x" * 5000
    )
    assert (name, description, body) == (
        "deploy host notes v2",
        "Where deploys go",
        "x" * embedding.BODY_CHARS,
    )
    text = embedding.text_of("deploy-host_notes.v2", "Where deploys go", "x" * 5000)
    assert embedding.digest(text) != embedding.digest(text + " ")


def test_a_memory_vector_reads_its_parts_as_one_text():
    body_text = "queue " * 300
    (whole,) = embedding.embed_memories([("render-farm", "Renders queue overnight", body_text)])
    (expected,) = embedding.embed(
        ["render farm\nRenders queue overnight\n" + body_text[: embedding.BODY_CHARS]]
    )
    assert np.allclose(whole, expected, atol=1e-6)
    (no_body,) = embedding.embed_memories([("a", "Renders queue overnight", "")])
    assert np.isclose(np.linalg.norm(no_body), 1.0)
    assert embedding.text_of("a", "Renders queue overnight", "") == "a\nRenders queue overnight"
    assert embedding.embed_memories([]).shape == (0, embedding.DIMENSIONS)


def test_an_empty_list_embeds_to_no_rows():
    assert embedding.embed([]).shape == (0, embedding.DIMENSIONS)


def test_a_text_of_no_word_is_a_zero_vector_not_nan():
    empty, spaces, word = embedding.embed(["", "  \n ", "cache"])
    assert not np.isnan(empty).any() and not empty.any() and not spaces.any()
    assert np.isclose(np.linalg.norm(word), 1.0)
