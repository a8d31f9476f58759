"""Nearest neighbours by meaning: an exact scan over every memory's vector, held in the
process and brought up to date with the store before each use.

The vectors (memories.MemoryVector, quantized to bytes) are read once per process into one
float32 matrix of unit rows, so a cosine is a dot product and a search is one matrix-vector
product (numpy, BLAS). Before each use two small queries (the highest vector row, the row
count) tell whether another process or this one wrote since: new rows are read alone; a
deleted memory drops its row; anything else (rows rolled back and their ids reused) reads
everything again. An exact scan needs no extension and gives every engine the same answer;
the README gives the measurements that chose it over an SQLite vector index.

What it offers the other reads: `similar_to(memory)`, `near_duplicate_pairs(tier)`, and
`nearest(vector, filters)` behind the search's meaning and hybrid modes.
"""

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from django.db import connection
from django.db.models.expressions import RawSQL

from memories import embedding, engine
from memories.models import GLOBAL_TIER, Memory, MemoryVector
from memories.reads.filters import MemoryFilters

# Cosine at or above which two memories say the same thing: chosen on the labelled pairs of
# bench/meaning/duplicate_pairs.py: 32 of its 36 pairs right (bench/results/2026-12-01-meaning/).
NEAR_DUPLICATE_COSINE = 0.63
# The nearest memories of any tier looked at for one in the same band as a write's.
BAND_CANDIDATES = 50
FILTER_SLICE = 256  # neighbours first held against the filters at once (then 4x more)
PAIR_BLOCK = 2048  # rows compared at once by near_duplicate_pairs: a 2048 x n block of cosines


V = MemoryVector._meta.db_table
# The table's row count and its last row, in one statement (no row at all when it is empty).
STATE = f"SELECT (SELECT COUNT(*) FROM {V}), id, stamp FROM {V} ORDER BY id DESC LIMIT 1"
SINCE = f"SELECT id, stamp, memory_id, model, vector FROM {V} WHERE id >= %s ORDER BY id"
DECODE_ROWS = 10_000  # vectors decoded at once: the float32 copy of a slice, not of them all


class _Vectors:
    """One database's vectors in this process: memory ids and their unit rows."""

    def __init__(self):
        self.lock = threading.Lock()
        self._clear()

    def _clear(self) -> None:
        self.ids = np.full(0, -1, dtype=np.int64)  # -1: a free row
        self.matrix = np.zeros((0, embedding.DIMENSIONS), dtype=np.float32)
        self.row_of: dict[int, int] = {}
        self.used = 0  # rows of the arrays in use (some freed)
        self.other_version: set[int] = set()  # memories whose vector is of another model
        self.last_id = 0
        self.last_stamp = None
        self.rows = 0

    def refresh(self) -> None:
        """Bring the held vectors up to date with the table."""
        with connection.cursor() as cursor:
            cursor.execute(STATE)
            rows, *last = cursor.fetchone() or (0, 0, None)
        if (*last, rows) == (self.last_id, self.last_stamp, self.rows):
            return
        # From the row this copy ended at: if it is gone or not the same (rolled back, its id
        # reused), everything is read again. Through the cursor: building 100,000 rows
        # through the ORM took seconds.
        with connection.cursor() as cursor:
            cursor.execute(SINCE, [self.last_id])
            found = cursor.fetchall()
        if self.last_id and (not found or found[0][:2] != (self.last_id, self.last_stamp)):
            self._clear()
            self.refresh()
            return
        new = found[1:] if self.last_id else found
        self._take([row[2:] for row in new])
        if new:
            self.last_id, self.last_stamp = new[-1][:2]
        if len(self.row_of) + len(self.other_version) != rows:
            self._drop_missing(set(MemoryVector.objects.values_list("memory_id", flat=True)))
        self.rows = rows

    def _take(self, found: list[tuple[int, str, bytes]]) -> None:
        current = [(m, bytes(v)) for m, model, v in found if model == embedding.MODEL_VERSION]
        if self.row_of or self.other_version:
            for memory_id, _, _ in found:
                self._free(memory_id)
        self.other_version.update(m for m, model, _ in found if model != embedding.MODEL_VERSION)
        if not current:
            return
        needed = self.used + len(current)
        if needed > len(self.ids):
            # Room for the writes to come, an eighth more rather than double: the matrix is
            # most of what a process holds.
            capacity = needed + max(1024, needed // 8) if self.used else needed
            ids = np.full(capacity, -1, dtype=np.int64)
            ids[: self.used] = self.ids[: self.used]
            matrix = np.zeros((capacity, embedding.DIMENSIONS), dtype=np.float32)
            matrix[: self.used] = self.matrix[: self.used]
            self.ids, self.matrix = ids, matrix
        start = self.used
        for first in range(0, len(current), DECODE_ROWS):
            blobs = [v for _, v in current[first : first + DECODE_ROWS]]
            self.matrix[start + first : start + first + len(blobs)] = embedding.from_bytes(blobs)
        memory_ids = [memory_id for memory_id, _ in current]
        self.ids[start:needed] = memory_ids
        self.row_of.update(zip(memory_ids, range(start, needed), strict=True))
        self.used = needed

    def _free(self, memory_id: int) -> None:
        self.other_version.discard(memory_id)
        row = self.row_of.pop(memory_id, None)
        if row is not None:
            self.ids[row] = -1
            self.matrix[row] = 0.0

    def _drop_missing(self, present: set[int]) -> None:
        for memory_id in [m for m in self.row_of if m not in present]:
            self._free(memory_id)
        self.other_version &= present

    def cosines(self, vector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(memory ids, cosine to `vector`) of every held vector; to the nearest of them when
        `vector` is several, one a row."""
        used = self.ids[: self.used]
        sims = self.matrix[: self.used] @ vector.T
        if sims.ndim == 2:
            sims = sims.max(axis=1) if sims.shape[1] else np.full(len(used), -1.0)
        live = used >= 0
        return used[live], sims[live]

    def vector_of(self, memory_id: int) -> np.ndarray | None:
        row = self.row_of.get(memory_id)
        return None if row is None else self.matrix[row].copy()

    def rows_of(self, memory_ids) -> tuple[np.ndarray, np.ndarray]:
        """(the ids of those memories that have a vector, their rows), in the order given."""
        held = [m for m in memory_ids if m in self.row_of]
        rows = [self.row_of[m] for m in held]
        return np.array(held, dtype=np.int64), self.matrix[rows]


_held = _Vectors()


@contextmanager
def _current() -> Iterator[_Vectors]:
    """This process's vectors, brought up to date and held still while in use."""
    with _held.lock:
        _held.refresh()
        yield _held


def held_count() -> int:
    """How many vectors this process holds, brought up to date first."""
    with _current() as vectors:
        return len(vectors.row_of)


def query_vector(text: str) -> np.ndarray:
    """A search text as the model reads it (a unit vector)."""
    return embedding.embed([text])[0]


def query_vectors(texts: list[str]) -> np.ndarray:
    """Several search texts (synonyms), a unit vector a row."""
    return embedding.embed(list(texts))


def id_set(ids) -> RawSQL:
    """A set of ids bound as one parameter, whatever its size (for `id__in=`)."""
    return RawSQL(*engine.of(connection).statements.values(list(ids)))


@dataclass
class Neighbour:
    memory_id: int
    cosine: float
    values: tuple = ()  # the fields a caller asked for with the filters, in its order


def _ranked(
    vector: np.ndarray | None = None,
    *,
    of: int | None = None,
    floor: float,
    exclude: frozenset[int] = frozenset(),
) -> tuple[np.ndarray, np.ndarray]:
    """(ids, cosines) of the held vectors at least `floor` alike to `vector` (or to memory
    `of`'s own vector), most similar first."""
    with _current() as vectors:
        if of is not None:
            vector = vectors.vector_of(of)
            if vector is None:
                return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        ids, sims = vectors.cosines(vector)
    keep = sims >= floor
    if exclude:
        keep &= ~np.isin(ids, list(exclude))
    ids, sims = ids[keep], sims[keep]
    order = np.argsort(-sims, kind="stable")
    return ids[order], sims[order]


def _within(
    ids: np.ndarray,
    sims: np.ndarray,
    filters: MemoryFilters | None,
    now,
    *,
    want: int | None,
    fields: tuple[str, ...],
) -> tuple[list[Neighbour], bool]:
    """The first `want` (all, for None) of the ranked neighbours the filters admit, exactly as
    they narrow a listing, with the `fields` asked for; and whether every neighbour was
    looked at. Looked up a growing slice at a time, most similar first, so a broad filter
    reads about `want` rows and a narrow one reads on until it has them."""
    found: list[Neighbour] = []
    start, size = 0, len(ids) if want is None else max(4 * want, FILTER_SLICE)
    while start < len(ids) and (want is None or len(found) < want):
        chunk = [int(m) for m in ids[start : start + size]]
        cosine = dict(zip(chunk, sims[start : start + size].tolist(), strict=True))
        queryset = (
            Memory.objects.all() if filters is None else filters.apply(Memory.objects.all(), now)
        )
        rows = queryset.filter(id__in=id_set(chunk)).values_list("id", *fields)
        admitted = sorted(rows, key=lambda row: -cosine[row[0]])
        found.extend(Neighbour(row[0], cosine[row[0]], tuple(row[1:])) for row in admitted)
        start, size = start + size, size * 4
    complete = start >= len(ids) and (want is None or len(found) <= want)
    return (found if want is None else found[:want]), complete


def nearest(
    vector: np.ndarray,
    *,
    filters: MemoryFilters | None = None,
    now=None,
    floor: float = 0.0,
    want: int | None = None,
    fields: tuple[str, ...] = (),
) -> tuple[list[Neighbour], bool]:
    """The memories (the first `want`, or all) whose vector's cosine to `vector` (to the
    nearest row of it, for several) is at least `floor`, within the filters, most similar
    first, with `fields` of each; and whether that is all of them."""
    ids, sims = _ranked(vector, floor=floor)
    if filters is None and not fields:
        n = len(ids) if want is None else min(want, len(ids))
        return [Neighbour(int(ids[i]), float(sims[i])) for i in range(n)], n == len(ids)
    return _within(ids, sims, filters, now, want=want, fields=fields)


def vector_of(memory: Memory) -> np.ndarray | None:
    """The stored vector of a memory (None when it has none of the current model)."""
    with _current() as vectors:
        return vectors.vector_of(memory.id)


def similar_to(
    memory: Memory,
    *,
    limit: int = 10,
    threshold: float = 0.0,
    filters: MemoryFilters | None = None,
) -> list[tuple[Memory, float]]:
    """The memories most alike in meaning to `memory` (itself left out), with their cosine,
    at least `threshold`, within the filters; most similar first."""
    ids, sims = _ranked(of=memory.id, floor=threshold, exclude=frozenset([memory.id]))
    found, _ = _within(ids, sims, filters, None, want=limit, fields=())
    by_id = Memory.objects.select_related("project").in_bulk([n.memory_id for n in found])
    return [(by_id[n.memory_id], n.cosine) for n in found if n.memory_id in by_id]


def near_duplicate_pairs(
    tier: int, threshold: float = NEAR_DUPLICATE_COSINE
) -> list[tuple[int, int, float]]:
    """Pairs of memories of one tier (GLOBAL_TIER or a project's id) whose cosine is at least
    `threshold`, as (lower id, higher id, cosine), most similar first.

    Compared block by block: the cosines of a tier of n memories cost n² / 2 multiply-adds of
    256 numbers, without holding the n × n matrix.
    """
    memory_ids = list(Memory.objects.filter(tier=tier).order_by("id").values_list("id", flat=True))
    with _current() as vectors:
        ids, rows = vectors.rows_of(memory_ids)
    pairs = []
    for start in range(0, len(ids), PAIR_BLOCK):
        block = rows[start : start + PAIR_BLOCK] @ rows[start:].T
        a, b = np.nonzero(np.triu(block, k=1) >= threshold)
        for i, j in zip(a.tolist(), b.tolist(), strict=True):
            pairs.append((int(ids[start + i]), int(ids[start + j]), float(block[i, j])))
    pairs.sort(key=lambda pair: (-pair[2], pair[0], pair[1]))
    return pairs


def band_tiers(tier: int) -> tuple[int, ...]:
    """The tiers a memory of `tier` shares a band with: the global tier, and its own."""
    return (GLOBAL_TIER,) if tier == GLOBAL_TIER else (GLOBAL_TIER, tier)


def closest_in_band(
    memory: Memory, threshold: float = NEAR_DUPLICATE_COSINE
) -> tuple[Memory, float] | None:
    """The memory of the same band most alike in meaning to `memory`, if at least
    `threshold` alike (the write door's near-duplicate note), with its cosine; else None."""
    ids, sims = _ranked(of=memory.id, floor=threshold, exclude=frozenset([memory.id]))
    ids, sims = ids[:BAND_CANDIDATES].tolist(), sims[:BAND_CANDIDATES].tolist()
    in_band = (
        Memory.objects.select_related("project")
        .filter(tier__in=band_tiers(memory.tier))
        .in_bulk(ids)
    )
    for memory_id, cosine in zip(ids, sims, strict=True):
        if memory_id in in_band:
            return in_band[memory_id], cosine
    return None
