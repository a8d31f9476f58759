"""Cosines by meaning are taken centred on the store's mean when meaning.CENTRED (plain with
all-MiniLM-L6-v2: the centre is zero), and a search ranks less each memory's hubness: checked
against the formulas computed here from the stored vectors, both ways."""

import numpy as np
import pytest

from memories import embedding
from memories.models import MemoryVector
from memories.reads import meaning
from memories.reads.filters import MemoryFilters
from memories.reads.search import search

TEXTS = {
    "deploys": "Deploys go to host-7 through the bastion",
    "releases": "Releases to production pass the bastion host",
    "subtitles": "Subtitles are delivered as SRT and TTML",
    "cache": "The cache is invalidated every night",
    "alice-tz": "Alice works in the Europe/Berlin time zone",
}


def _unit(rows):
    return rows / np.linalg.norm(rows, axis=-1, keepdims=True)


@pytest.fixture(params=[False, True], ids=["plain", "centred"])
def centred(request, monkeypatch):
    monkeypatch.setattr(meaning, "CENTRED", request.param)
    monkeypatch.setattr(meaning, "_held", meaning._Vectors())  # no sample of the other way
    return request.param


def _centre(rows, centred):
    return rows.sum(axis=0) / (len(rows) + meaning.CENTRE_PRIOR) if centred else 0.0


def _stored(write):
    for name, text in TEXTS.items():
        write(name, description=text)
    pairs = MemoryVector.objects.values_list("memory_id", "vector")
    ids = [memory_id for memory_id, _ in pairs]
    return ids, embedding.from_bytes([bytes(vector) for _, vector in pairs])


def test_cosines_are_taken_less_the_store_mean_drawn_toward_zero(write, centred):
    ids, rows = _stored(write)
    centre = _centre(rows, centred)
    query = meaning.query_vector("production deploys through the bastion host")
    expected = _unit(rows - centre) @ _unit(query - centre)
    found, complete = meaning.nearest(meaning.ranking(query, floor=-1.0, less_hubness=False))
    assert complete and len(found) == len(ids)
    by_id = {n.memory_id: n.cosine for n in found}
    assert np.allclose([by_id[i] for i in ids], expected, atol=1e-5)
    assert [n.memory_id for n in found][:2] == ids[:2], "the deploys and releases first"


def test_a_query_of_no_word_is_near_nothing(write):
    _stored(write)
    assert meaning.nearest(
        meaning.ranking(np.zeros(embedding.DIMENSIONS, dtype=np.float32), floor=0.01)
    ) == (
        [],
        True,
    )


def test_hubness_is_the_mean_of_the_nearest_cosines_to_the_others(write, centred):
    ids, rows = _stored(write)
    moved = _unit(rows - _centre(rows, centred))
    sims = moved @ moved.T
    np.fill_diagonal(sims, -np.inf)
    k = min(meaning.HUB_NEIGHBOURS, len(ids) - 1)
    trust = len(ids) / (len(ids) + meaning.CENTRE_PRIOR)
    expected = np.sort(sims, axis=1)[:, -k:].mean(axis=1) * trust
    query = meaning.query_vector("the bastion host")
    found, _ = meaning.nearest(meaning.ranking(query, floor=-1.0))
    by_id = {n.memory_id: n for n in found}
    assert np.allclose([by_id[i].hubness for i in ids], expected, atol=1e-5)
    ranked = [n.cosine - meaning.HUB_PENALTY * n.hubness for n in found]
    assert ranked == sorted(ranked, reverse=True), "ranked by cosine less the penalty"
    assert all(
        n.hubness == 0.0
        for n in meaning.nearest(meaning.ranking(query, floor=-1.0, less_hubness=False))[0]
    )


def test_hubness_is_measured_again_once_the_store_has_grown(write, monkeypatch):
    monkeypatch.setattr(meaning, "HUB_SAMPLE", 2)
    _stored(write)
    query = meaning.query_vector("the bastion host")
    meaning.nearest(meaning.ranking(query, floor=-1.0))
    drawn = meaning._held.sampled_from
    for n in range(3):
        write(f"more-{n}", description=f"Another note about the bastion, number {n}")
    found, _ = meaning.nearest(meaning.ranking(query, floor=-1.0))
    assert meaning._held.sampled_from > drawn, "a new sample for a store an eighth larger"
    assert len(meaning._held.sample) == 2
    assert all(np.isfinite(n.hubness) for n in found)


def test_a_search_by_meaning_scores_the_cosine_blend_less_the_hubness(write):
    _stored(write)
    hits = search(["shipping builds to prod"], MemoryFilters(), mode="meaning").hits
    assert hits
    found = {
        n.memory_id: n
        for n in meaning.nearest(
            meaning.ranking(meaning.query_vector("shipping builds to prod"), floor=-1.0)
        )[0]
    }
    for hit in hits:
        neighbour = found[hit.memory.id]
        assert hit.similarity == neighbour.cosine
        assert hit.score <= neighbour.cosine - meaning.HUB_PENALTY * neighbour.hubness + 1e-9
