"""A search's first pass over the stored bytes (memories.reads.quantized), and the exact
cosines of what it returns."""

import numpy as np
import pytest

from memories import embedding
from memories.models import Memory, MemoryVector
from memories.reads import meaning, quantized
from tests.conftest import restore

MEMORIES = 200


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


@pytest.fixture
def crowded(db) -> tuple[np.ndarray, list[int]]:
    """A query, and MEMORIES memories whose vectors' cosines to it lie within 0.002 of 0.5,
    most of them closer to another's than the first pass can tell apart."""
    rng = np.random.default_rng(7)
    restore(*({"name": f"m-{n}"} for n in range(MEMORIES)))
    ids = list(Memory.objects.order_by("id").values_list("id", flat=True))
    query = _unit(rng.standard_normal(embedding.DIMENSIONS))
    MemoryVector.objects.filter(memory_id__in=ids).delete()
    rows = []
    for n, memory_id in enumerate(ids):
        other = rng.standard_normal(embedding.DIMENSIONS)
        other = _unit(other - (other @ query) * query)
        cosine = 0.5 + n * 1e-5
        vector = cosine * query + np.sqrt(1 - cosine**2) * other
        rows.append(
            MemoryVector(
                memory_id=memory_id,
                model=embedding.MODEL_VERSION,
                digest="-",
                stamp=n,
                vector=embedding.to_bytes(vector),
            )
        )
    MemoryVector.objects.bulk_create(rows)
    return query[None, :], ids


def _exact(query: np.ndarray, ids: list[int]) -> dict[int, float]:
    meaning.held_count()
    with meaning._held.lock:
        return meaning._held.cosines_of(ids, query)


def test_the_first_pass_is_within_its_error_of_the_float32_cosines():
    rng = np.random.default_rng(3)
    stored = _unit(rng.standard_normal((500, embedding.DIMENSIONS)))
    codes = embedding.codes_of([embedding.to_bytes(row) for row in stored])
    columns = np.ascontiguousarray(codes.T)
    queries = _unit(rng.standard_normal((3, embedding.DIMENSIONS)))
    queries[2] = 0.0  # a query of no word piece
    lengths = np.linalg.norm(codes.astype(np.float64), axis=1)
    exact = queries.astype(np.float64) @ (codes / lengths[:, None]).T
    first_pass = quantized.Packed()
    for used in (300, 500):  # the 200 written after the first 300 were packed: not packed
        dots, error = first_pass.products(columns, used, queries)
        assert (np.abs(dots / lengths[:used] - exact[:, :used]) <= error[:, None]).all()
        assert first_pass.packed == 300
    grown = columns.copy()  # the held matrix grown: another array, all of it packed again
    dots, error = first_pass.products(grown, 500, queries)
    assert first_pass.packed == 500
    assert (np.abs(dots / lengths - exact) <= error[:, None]).all()
    assert error.max() < 1e-4
    assert (dots[2] == 0).all()


def test_what_a_search_returns_is_ranked_and_scored_by_the_exact_cosines(crowded):
    query, ids = crowded
    exact = _exact(query, ids)
    expected = sorted(ids, key=lambda m: -exact[m])  # stable: the earlier row first
    ranked = meaning.ranking(query, floor=0.0, less_hubness=False)
    for want in (10, 25, 60):
        found, _ = meaning.nearest(ranked, want=want)
        assert [(n.memory_id, n.cosine) for n in found] == [(m, exact[m]) for m in expected[:want]]
    close = sorted(exact.values())
    gaps = np.diff(close)
    assert (gaps < 1e-5).sum() > MEMORIES // 2, "most are nearer than the first pass tells"


def test_the_floor_admits_exactly_the_memories_at_or_above_it(crowded):
    query, ids = crowded
    exact = _exact(query, ids)
    for memory_id in ids[::25]:
        floor = exact[memory_id]
        above = {m for m, cosine in exact.items() if cosine >= floor}
        ranked = meaning.ranking(query, floor=floor, less_hubness=False).result()
        assert ranked.total == len(above)
        found, complete = meaning.nearest(meaning.ranking(query, floor=floor, less_hubness=False))
        assert {n.memory_id for n in found} == above and complete
        higher = float(np.nextafter(np.float32(floor), np.float32(1)))
        assert memory_id not in {
            n.memory_id
            for n in meaning.nearest(meaning.ranking(query, floor=higher, less_hubness=False))[0]
        }


def test_a_memory_near_another_finds_it_by_its_exact_cosine(crowded):
    query, ids = crowded
    first = Memory.objects.get(id=ids[0])
    vector = meaning.vector_of(first)
    exact = _exact(vector[None, :], ids[1:])
    best = max(exact.values())
    ((found, cosine),) = meaning.similar_to(first, limit=1)
    assert cosine == best and exact[found.id] == best
