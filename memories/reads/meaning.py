"""Nearest neighbours by meaning: an exact scan over every memory's vector, held in the
process and brought up to date with the store before each use.

The vectors (memories.MemoryVector, quantized to bytes) are read once per process into one
float32 matrix of unit rows, so a cosine is a dot product, and kept as stored beside it: a
search's first pass multiplies the query with those bytes (memories.reads.quantized, a quarter
of the float32 matrix to read), then takes the exact cosines of the few memories it may
return (`_Ranked`). Before each use two small queries (the highest vector row, the row
count) tell whether another process or this one wrote since: new rows are read alone;
anything else (a memory deleted, the last one edited, rows rolled back and their ids reused)
compares the rows held with the table's ids and stamps and reads only those that differ.
An exact scan needs no extension and gives every engine the same answer; the README gives
the measurements that chose it over an SQLite vector index.

A cosine here can be centred (CENTRED): taken between vectors less the mean of the store's
vectors. Averaged static word vectors (WordLlama, the model before all-MiniLM-L6-v2) all
leaned one way, and centring took the shared lean out (recall@5 of the paraphrase set 0.56
plain, 0.76 centred); the sentence encoder's vectors gain nothing from it once the hubness
penalty below is taken (one query of 107), so it is off and the centre is zero.

A search by meaning ranks less each memory's hubness (`hubness()`): some memories are near
many others, and so near many queries, without being what any of them means. A memory's
hubness is the mean of its HUB_NEIGHBOURS highest cosines to a sample of the store (all of
it in a store of up to HUB_SAMPLE), the penalty of cross-domain similarity local scaling
(CSLS, as in word translation retrieval): with all-MiniLM-L6-v2, recall@5 0.757 without,
0.841 with (bench/results/2026-12-04-encoder).

What it offers the other reads: `similar_to(memory)`, `near_duplicate_pairs(tier)`, and
`ranking(texts)` and `nearest(ranking, filters)` behind the search's meaning and hybrid
modes.
"""

import functools
import logging
import threading
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from django.db import connection
from django.db.models.expressions import RawSQL
from django.utils import timezone

from memories import embedding, engine
from memories.models import GLOBAL_TIER, Memory, MemoryVector
from memories.reads import conditions, quantized
from memories.reads import rows as memory_rows
from memories.reads.filters import MemoryFilters
from memories.rules import facts, similarity

# Two memories say the same thing (`say_the_same`, the one rule of the write door's note, the
# hygiene page and the consolidation review) when their vectors' cosine is at least
# NEAR_DUPLICATE_COSINE, no number, identifier or name tells them apart (facts.differ), and
# either one's description says the other's in another order (similarity.reworded) or what
# one says that the other does not is alike in meaning too: the cosine of those differing
# words (static word vectors: embedding.embed_words) at least DIFFERENCE_COSINE. "uses Redis"
# and "dropped Redis" are alike as wholes, "uses" and "dropped" are not; "Invoices go out on
# the first business day of the month" and "Invoices are sent on the month's first business
# day" are the same fact, though "go out" and "sent" read apart. The thresholds get the most of
# the 128 labelled pairs of bench/meaning/duplicate_pairs.py right (the highest among equals):
# 125 (precision 0.98, recall 0.96); on 57 pairs never used to choose them, 53 (precision
# 0.96, recall 0.90) (bench/results/2026-12-05-duplicates).
NEAR_DUPLICATE_COSINE = 0.66
DIFFERENCE_COSINE = 0.29
# The nearest memories of any tier looked at for one in the same band as a write's.
BAND_CANDIDATES = 50
FILTER_SLICE = 256  # neighbours first held against the filters at once (then 4x more)
CONNECTIONS_KEPT = 64  # connections whose last look at the vectors table is remembered
PAIR_BLOCK = 2048  # rows compared at once by alike_pairs: a 2048 x n block of cosines
EXACT_UP_TO = 16384  # memories alike_pairs compares every pair of; more, by cells (k-means)
CELL_PROBES = 3
KMEANS_ROUNDS = 4
KMEANS_SAMPLE = 20_000  # rows the cells are drawn from, at most
PAIR_QUERIES = 64  # changed memories whose pairs are drawn again at once: a 64 x n block
NEIGHBOURS_KEPT = 20  # the most similar pairs alike_pairs keeps of any one memory
ROW_PAIRS_KEPT = 64  # the most similar pairs a memory's row finds in one comparison, kept


logger = logging.getLogger(__name__)

V = MemoryVector._meta.db_table
# The table's row count and its last row, in one statement (no row at all when it is empty).
STATE = f"SELECT (SELECT COUNT(*) FROM {V}), id, stamp FROM {V} ORDER BY id DESC LIMIT 1"
COLUMNS = ("id", "stamp", "memory_id", "model", "vector")
SINCE = f"SELECT {', '.join(COLUMNS)} FROM {V} WHERE id >= %s ORDER BY id"
ROWS = f"SELECT id, stamp, memory_id FROM {V}"
DECODE_ROWS = 10_000  # vectors decoded at once: the float32 copy of a slice, not of them all
# The centre counts this many zero vectors beside the store's (recall@5 of the paraphrase set,
# 303 memories, alike from 1 to 256).
CENTRE_PRIOR = 256
# Whether cosines are centred (taken less the store's mean vector). Static word vectors all
# leaned one way and needed it (recall@5 of the paraphrase set 0.56 plain, 0.76 centred);
# all-MiniLM-L6-v2's gain one query of 107 from it once the hubness penalty is taken (0.841
# plain, 0.850 centred; 0.757 and 0.794 without the penalty; bodies of 300 characters,
# bench/results/2026-12-04-encoder/recipes-minilm.txt). Off: the centre is zero.
CENTRED = False
HUB_SAMPLE = 1024  # the memories a memory's hubness is measured against, at most
HUB_NEIGHBOURS = 10
HUB_BLOCK = 4096  # rows whose hubness is measured at once: a 4096 x HUB_SAMPLE block
# A search by meaning ranks by cosine less HUB_PENALTY x hubness: recall@5 of the paraphrase
# set 0.757 at 0, 0.822 at 0.25, 0.841 at 0.5, 0.860 at 0.75 and 1 (all-MiniLM-L6-v2, bodies
# of 300 characters); with the 150 the store reads, 0.860 at 0.5 and at 0.75.
HUB_PENALTY = 0.5


class _Vectors:
    """One database's vectors in this process: memory ids and their unit rows."""

    def __init__(self):
        self.lock = threading.Lock()
        # One drawing of the pairs at a time (`alike_pairs`), outside `lock`: searches go on.
        self.drawing = threading.Lock()
        self._clear()

    def _clear(self) -> None:
        self.ids = np.full(0, -1, dtype=np.int64)  # -1: a free row
        self.matrix = np.zeros((0, embedding.DIMENSIONS), dtype=np.float32)
        # The rows as stored (signed bytes), one a column, and each one's 1 / length: what a
        # search's first pass reads (`cosines`), a quarter of the matrix.
        self.columns = np.zeros((embedding.DIMENSIONS, 0), dtype=np.int8)
        self.scale = np.zeros(0, dtype=np.float32)
        self.packed = quantized.Packed()
        self.row_of: dict[int, int] = {}
        self.used = 0  # rows of the arrays in use (some freed)
        self.table_rows = np.zeros((0, 2), dtype=np.int64)  # each row's (id, stamp) in the table
        # Memories whose vector is of another model: its row's (id, stamp) in the table.
        self.other_version: dict[int, tuple[int, int]] = {}
        self.last_id = 0
        self.last_stamp = None
        self.rows = 0
        self.total = np.zeros(embedding.DIMENSIONS, dtype=np.float64)  # sum of the rows in use
        self.hub = np.zeros(0, dtype=np.float32)  # each row's hubness, known up to hub_known
        self.hub_known = 0
        self.sample = np.zeros((0, embedding.DIMENSIONS), dtype=np.float32)  # centred
        self.sampled_from = 0  # how many memories were held when the sample was drawn
        self.lengths = None  # each row's |m - centre|, until the rows or the centre change
        self.pairs = None  # (memory id, memory id, cosine): every pair that may say the same
        self.changed: set[int] = set()  # memories whose vector came or went since
        # Per connection (by id, with the connection itself): the store's change counter
        # when these rows were last found up to date through it.
        self.current_at: dict[int, tuple] = {}

    def refresh(self) -> None:
        """Bring the held vectors up to date with the table: not read again while nothing
        was committed since this connection last found them so (counting the table's rows
        cost PostgreSQL 6 ms at 100,000 vectors, before every search by meaning)."""
        counter = engine.of(connection).config.change_counter(connection)
        raw = connection.connection  # open now: the counter was read through it
        if counter is not None and self.current_at.get(id(raw)) == (raw, counter):
            return
        self._read_table()
        if counter is not None:
            if len(self.current_at) > CONNECTIONS_KEPT:
                self.current_at.clear()
            self.current_at[id(raw)] = (raw, counter)

    def _read_table(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute(STATE)
            rows, *last = cursor.fetchone() or (0, 0, None)
        if (*last, rows) == (self.last_id, self.last_stamp, self.rows):
            return
        # Through the cursor: building 100,000 rows through the ORM took seconds.
        with connection.cursor() as cursor:
            cursor.execute(SINCE, [self.last_id])
            found = cursor.fetchall()
        if self.last_id and (not found or found[0][:2] != (self.last_id, self.last_stamp)):
            # The row this copy ended at is gone or another: the last memory written was
            # edited or deleted, or rows were rolled back and their ids reused.
            self._reconcile()
        else:
            new = found[1:] if self.last_id else found
            self._take(new)
            if new:
                self.last_id, self.last_stamp = new[-1][:2]
            if len(self.row_of) + len(self.other_version) != rows:
                self._reconcile()
        self.rows = rows

    def _reconcile(self) -> None:
        """Compare the rows held with the table's by id and stamp (no vector read): free those
        gone, read those new. An edit of the last memory written costs that, not a second
        read of every vector and every pair drawn again."""
        with connection.cursor() as cursor:
            cursor.execute(ROWS)
            table = cursor.fetchall()
        now = {memory_id: (row_id, stamp) for row_id, stamp, memory_id in table}
        held = self.table_rows[: self.used].tolist()
        stale = [m for m, row in self.row_of.items() if now.get(m) != tuple(held[row])]
        stale += [m for m, row in self.other_version.items() if now.get(m) != row]
        for memory_id in stale:
            self._free(memory_id)
        wanted = sorted(
            row[0] for m, row in now.items() if m not in self.row_of and m not in self.other_version
        )
        for first in range(0, len(wanted), DECODE_ROWS):
            chunk = MemoryVector.objects.filter(id__in=id_set(wanted[first : first + DECODE_ROWS]))
            self._take(list(chunk.order_by("id").values_list(*COLUMNS)))
        self.last_id, self.last_stamp = max(table)[:2] if table else (0, None)

    def _take(self, found: list[tuple[int, int, int, str, bytes]]) -> None:
        """Hold these rows of the table (id, stamp, memory, model, vector), in place of any
        row held of the same memory."""
        if self.row_of or self.other_version:
            for _, _, memory_id, _, _ in found:
                self._free(memory_id)
        current = [
            (m, (row_id, stamp), bytes(v))
            for row_id, stamp, m, model, v in found
            if model == embedding.MODEL_VERSION
        ]
        self.other_version.update(
            (m, (row_id, stamp))
            for row_id, stamp, m, model, _ in found
            if model != embedding.MODEL_VERSION
        )
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
            table_rows = np.zeros((capacity, 2), dtype=np.int64)
            table_rows[: self.used] = self.table_rows[: self.used]
            columns = np.zeros((embedding.DIMENSIONS, capacity), dtype=np.int8)
            columns[:, : self.used] = self.columns[:, : self.used]
            scale = np.zeros(capacity, dtype=np.float32)
            scale[: self.used] = self.scale[: self.used]
            self.ids, self.matrix, self.table_rows = ids, matrix, table_rows
            self.columns, self.scale = columns, scale
        start = self.used
        for first in range(0, len(current), DECODE_ROWS):
            codes = embedding.codes_of([v for _, _, v in current[first : first + DECODE_ROWS]])
            rows = slice(start + first, start + first + len(codes))
            self.matrix[rows] = embedding.unit_rows(codes)
            self.columns[:, rows] = codes.T
            lengths = np.linalg.norm(codes.astype(np.float64), axis=1)
            lengths[lengths == 0] = np.inf  # a zero vector's scale: 0
            self.scale[rows] = 1.0 / lengths
        self.total += self.matrix[start:needed].sum(axis=0, dtype=np.float64)
        self.lengths = None
        memory_ids = [memory_id for memory_id, _, _ in current]
        self.ids[start:needed] = memory_ids
        self.table_rows[start:needed] = [row for _, row, _ in current]
        self.row_of.update(zip(memory_ids, range(start, needed), strict=True))
        self.changed.update(memory_ids)
        self.used = needed

    def _free(self, memory_id: int) -> None:
        self.other_version.pop(memory_id, None)
        row = self.row_of.pop(memory_id, None)
        if row is not None:
            self.changed.add(memory_id)
            self.total -= self.matrix[row]
            self.lengths = None
            self.ids[row] = -1
            self.matrix[row] = 0.0
            self.columns[:, row] = 0
            self.scale[row] = 0.0

    def centre(self) -> np.ndarray:
        """The mean of the held vectors, drawn toward zero as if CENTRE_PRIOR more memories
        held zero vectors: the few memories of a small store, often of one topic, would
        lose that topic to their own mean."""
        if not CENTRED:
            return np.zeros(embedding.DIMENSIONS, dtype=np.float32)
        return (self.total / (len(self.row_of) + CENTRE_PRIOR)).astype(np.float32)

    def centred(self, rows: np.ndarray) -> np.ndarray:
        """Unit vectors (one a row) less the centre, made units again (zero stays zero)."""
        return _centred(rows, self.centre())

    def cosines(self, vector: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(memory ids, centred cosine to `vector`, how far each may be from its exact value
        (`cosines_of`)) of every held vector; to the nearest of them when `vector` is
        several, one a row. The cosines are the first pass's (`quantized.Packed`)."""
        used = self.ids[: self.used]
        live = used >= 0
        if not len(vector) or not self.used:
            nothing = np.full(int(live.sum()), -1.0, dtype=np.float32)
            return used[live], nothing, np.zeros_like(nothing)
        centre, queries = self.centre(), self.centred(vector)
        dots, error = self.packed.products(self.columns, self.used, queries)
        dots *= self.scale[: self.used]
        sims = ((dots - (queries @ centre)[:, None]) / self._lengths()).max(axis=0)
        return used[live], sims[live], (np.float32(error.max()) / self._lengths())[live]

    def cosines_of(self, memory_ids: list[int], vectors: np.ndarray) -> dict[int, float]:
        """The centred cosine to `vectors` (the nearest of them) of those of the memories that
        have a vector, by id: in float64, rounded to float32, so a memory's is the same
        whatever else is computed with it (a float32 product's last bits move with where a
        row falls in it)."""
        held, rows = self.rows_of(memory_ids)
        if not len(held) or not len(vectors):
            return {}
        centre = self.centre().astype(np.float64)
        queries = self.centred(vectors).astype(np.float64)
        rows = rows.astype(np.float64)
        lengths = np.sqrt(np.maximum(1.0 - 2.0 * (rows @ centre) + centre @ centre, 1e-12))
        sims = ((rows @ queries.T - queries @ centre) / lengths[:, None]).max(axis=1)
        return dict(zip(held.tolist(), sims.astype(np.float32).tolist(), strict=True))

    def _cosines_to(self, vectors: np.ndarray) -> np.ndarray:
        """The centred cosine of each row in use (freed ones too) to each of `vectors` (one a
        row), a column each."""
        centre, queries = self.centre(), self.centred(vectors)
        products = self.matrix[: self.used] @ queries.T
        return (products - queries @ centre) / self._lengths()[:, None]

    def _lengths(self) -> np.ndarray:
        """Each row's |m - c|, kept until the rows or the centre change. The held rows are
        not centred in place (every write would move them all): with unit rows m,
        (m - c) . q = m . q - c . q and |m - c|² = 1 - 2 m . c + c . c, so a search is one
        product with the queries."""
        if self.lengths is None:
            centre = self.centre()
            squared = 1.0 - 2.0 * (self.matrix[: self.used] @ centre) + centre @ centre
            self.lengths = np.sqrt(np.maximum(squared, 1e-12))
        return self.lengths

    def to_draw(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(memory ids, their unit rows, the centre) to draw every pair of (`_drawn`) when
        none are drawn yet or more than √n memories changed since they were; else None.
        Taken as they are now: what changes while they are drawn is what `alike` then
        brings up to date."""
        if self.pairs is not None and len(self.changed) ** 2 <= len(self.row_of):
            return None
        live = np.flatnonzero(self.ids[: self.used] >= 0)
        self.changed = set()
        return self.ids[live], self.matrix[live], self.centre()

    def alike(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(memory id, memory id, centred cosine), the lower id first, of every pair of held
        vectors at least NEAR_DUPLICATE_COSINE alike: the pairs last drawn (`to_draw`),
        kept in step with the writes since, the pairs of a memory whose vector came or went
        dropped and its own drawn again against every held vector (n multiply-adds of 256
        each, where drawing all of them costs about 4 n √n: at 100,000 memories a second
        of CPU). The cosines of the pairs kept are those of the centre they were drawn with:
        the √n changes at most before all are drawn again move it by about 1/√n."""
        if not self.changed:
            return self.pairs
        changed = np.fromiter(self.changed, dtype=np.int64, count=len(self.changed))
        a, b, cosines = self.pairs
        kept = ~(np.isin(a, changed) | np.isin(b, changed))
        found = [(a[kept], b[kept], cosines[kept])]
        redrawn = np.array([self.row_of[m] for m in self.changed if m in self.row_of], dtype=int)
        for start in range(0, len(redrawn), PAIR_QUERIES):
            rows = redrawn[start : start + PAIR_QUERIES]
            sims = self._cosines_to(self.matrix[rows]).T
            sims[:, self.ids[: self.used] < 0] = -1.0
            sims[np.arange(len(rows)), rows] = -1.0  # not with itself
            column, at, cosines = _hits(sims, NEAR_DUPLICATE_COSINE)
            x, y = self.ids[at], self.ids[rows[column]]
            found.append((np.minimum(x, y), np.maximum(x, y), cosines))
        a, b, cosines = (np.concatenate(column) for column in zip(*found, strict=True))
        # Two changed memories alike found each other: once.
        _, first = np.unique(np.stack([a, b]), axis=1, return_index=True)
        self.pairs, self.changed = (a[first], b[first], cosines[first]), set()
        return self.pairs

    def hubness(self) -> np.ndarray:
        """Each row's hubness (of the rows in use), trusted as the centre is: less in a small
        store (by held / (held + CENTRE_PRIOR)). Rows added since it was last measured are
        measured against the same sample; once the store has grown by an eighth (or shrunk
        by one) since the sample was drawn, a new one is drawn and every row measured again,
        so what a search costs follows what it reads, not every write."""
        held = len(self.row_of)
        if not (self.sampled_from * 7 // 8 <= held <= self.sampled_from * 9 // 8 + 1):
            live = np.flatnonzero(self.ids[: self.used] >= 0)
            picked = live[np.linspace(0, len(live) - 1, min(HUB_SAMPLE, len(live))).astype(int)]
            self.sample = self.centred(self.matrix[picked]) if len(live) else self.sample[:0]
            self.sampled_from, self.hub_known = held, 0
        else:
            picked = np.zeros(0, dtype=np.int64)
        if len(self.hub) < self.used:
            hub = np.zeros(len(self.ids), dtype=np.float32)
            hub[: self.hub_known] = self.hub[: self.hub_known]
            self.hub = hub
        k = min(HUB_NEIGHBOURS, len(self.sample) - 1)
        for start in range(self.hub_known, self.used, HUB_BLOCK):
            stop = min(start + HUB_BLOCK, self.used)
            sims = self.centred(self.matrix[start:stop]) @ self.sample.T
            inside = np.flatnonzero((picked >= start) & (picked < stop))
            sims[picked[inside] - start, inside] = -1.0  # a sampled row is not its own neighbour
            top = np.partition(sims, -k, axis=1)[:, -k:] if k > 0 else np.zeros((stop - start, 1))
            self.hub[start:stop] = top.mean(axis=1)
        self.hub_known = self.used
        return self.hub[: self.used] * (held / (held + CENTRE_PRIOR))

    def vector_of(self, memory_id: int) -> np.ndarray | None:
        row = self.row_of.get(memory_id)
        return None if row is None else self.matrix[row].copy()

    def rows_of(self, memory_ids) -> tuple[np.ndarray, np.ndarray]:
        """(the ids of those memories that have a vector, their rows), in the order given."""
        held = [m for m in memory_ids if m in self.row_of]
        rows = [self.row_of[m] for m in held]
        return np.array(held, dtype=np.int64), self.matrix[rows]


_held = _Vectors()


def _store_pairs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_Vectors.alike` of this process's vectors brought up to date, all drawn again first
    when `to_draw` says so: outside the lock searches take (seconds at 100,000), one
    drawing at a time."""
    with _held.drawing:
        with _current() as vectors:
            drawing = vectors.to_draw()
            if drawing is None:
                return vectors.alike()
        drawn = _drawn(*drawing)
        with vectors.lock:
            vectors.pairs = drawn
            return vectors.alike()


def _centred(rows: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """Unit vectors (one a row) less `centre`, made units again (zero stays zero)."""
    rows = np.atleast_2d(rows)
    # In place, on one copy: for 100,000 rows a tenth of the time temporaries took.
    moved = np.subtract(rows, centre, dtype=np.float32)
    moved[~rows.any(axis=1)] = 0.0
    norms = np.sqrt(np.einsum("ij,ij->i", moved, moved))
    norms[norms == 0] = 1.0
    moved /= norms[:, None]
    return moved


def _drawn(ids: np.ndarray, rows: np.ndarray, centre: np.ndarray) -> tuple[np.ndarray, ...]:
    """Every pair of these memories (their ids and unit rows) at least NEAR_DUPLICATE_COSINE
    alike, centred on `centre`, as (lower id, higher id, cosine): every pair compared up to
    EXACT_UP_TO rows, by cells past that."""
    draw = _all_pairs if len(ids) <= EXACT_UP_TO else _pairs_by_cell
    a, b, cosines = draw(_centred(rows, centre), NEAR_DUPLICATE_COSINE)
    x, y = ids[a], ids[b]
    return np.minimum(x, y), np.maximum(x, y), cosines.astype(np.float32)


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
    """Several search texts (synonyms), a unit vector a row (read-only); none when the
    encoder's files are not sound (the system check says so), so a search finds by words
    alone."""
    try:
        return _encoded(embedding.model(), tuple(texts))
    except embedding.ModelUnavailable as error:
        logger.warning("Searching without meaning: %s", error)
        return np.zeros((0, embedding.DIMENSIONS), dtype=np.float32)


# A question is asked again and again: each page of its results, each filter or sort changed
# on the list, its export, an agent repeating itself; encoding one costs 3-5 ms of CPU
# (bench/results/2026-12-05-routes-37), its vectors 1.5 KiB each.
QUESTIONS_KEPT = 1024


@functools.lru_cache(maxsize=QUESTIONS_KEPT)
def _encoded(model, texts: tuple[str, ...]) -> np.ndarray:
    """Keyed by the model too: one loaded again (its files changed) encodes afresh."""
    vectors = embedding.embed(list(texts))
    vectors.flags.writeable = False
    return vectors


def forget_questions() -> None:
    """Encode every question afresh: what a question asked for the first time costs, as the
    benchmarks time it."""
    _encoded.cache_clear()


def id_set(ids) -> RawSQL:
    """A set of ids bound as one parameter, whatever its size (for `id__in=`)."""
    return RawSQL(*engine.of(connection).statements.values(list(ids)))


@dataclass
class Neighbour:
    memory_id: int
    cosine: float
    values: tuple = ()  # the fields a caller asked for with the filters, in its order
    hubness: float = 0.0  # (only when asked for)


class _Ranked:
    """Memory ids with their cosine and hubness, ranked by cosine less HUB_PENALTY x hubness
    (the earlier held row first among equals), ordered only as far as a caller reads: a
    search reads its first few hundred of what may be most of the store.

    The cosines are the first pass's, each within its `error` of the exact one
    (`_Vectors.cosines_of`); those of every memory that may be among the first read are made
    exact before they are ordered, so what is read is ranked and scored as the exact
    cosines of every memory would rank and score it."""

    def __init__(self, ids, sims, hubs, query=None, error=None):
        self._ids, self._sims, self._hubs = ids, sims, hubs
        self._query = query  # the query's vectors, one a row
        self._error = np.zeros(len(ids), dtype=np.float32) if error is None else error
        self._key = -(sims - HUB_PENALTY * hubs)
        self._order = np.zeros(0, dtype=np.int64)
        self.total = len(ids)

    def first(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ids, cosines, hubness) of the first `n`, as a stable sort of them all would give."""
        n = min(n, self.total)
        if len(self._order) < n:
            self._settle(n)
            self._order = _stable_first(self._key, n)
        order = self._order[:n]
        return self._ids[order], self._sims[order], self._hubs[order]

    def _settle(self, n: int) -> None:
        """Make exact the cosine of every memory that may be among the first `n`: n keys
        plus their errors are at most the n-th least of those, so no memory whose key less
        its error is above it can be."""
        if not n or not self._error.any():
            return
        bound = np.partition(self._key + self._error, n - 1)[n - 1]
        doubtful = np.flatnonzero((self._key - self._error <= bound) & (self._error > 0))
        self._sims[doubtful] = _exact(self._ids[doubtful], self._sims[doubtful], self._query)
        self._key[doubtful] = -(self._sims[doubtful] - HUB_PENALTY * self._hubs[doubtful])
        self._error[doubtful] = 0.0

    def similarity(self, memory_ids: list[int]) -> dict[int, float]:
        """The cosine of each of those memories that has a vector to the query, however far
        down the ranking (or below its floor) it is."""
        if self._query is None or not len(memory_ids):
            return {}
        with _held.lock:
            return _held.cosines_of(memory_ids, self._query)


def _stable_first(key: np.ndarray, n: int) -> np.ndarray:
    """The positions of the `n` least keys, in the order `np.argsort(key, kind="stable")`
    starts with: those up to the n-th least, ties at it included, then sorted."""
    if n >= len(key):
        return np.argsort(key, kind="stable")
    bound = np.partition(key, n - 1)[n - 1]
    within = np.flatnonzero(key <= bound)
    return within[np.argsort(key[within], kind="stable")][:n]


def _exact(ids: np.ndarray, sims: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The exact cosines (`_Vectors.cosines_of`) of these memories to the query, in place of
    their first pass's `sims` (kept for a memory whose vector went meanwhile)."""
    with _held.lock:
        exact = _held.cosines_of(ids.tolist(), query)
    return np.array([exact.get(m, s) for m, s in zip(ids.tolist(), sims, strict=True)], sims.dtype)


def _above(floor: float, ids, sims, error, hubs, query: np.ndarray) -> _Ranked:
    """The ranking of those of the memories (with their first pass's cosines, their error
    and their hubness) whose exact cosine is at least `floor`: those near it made exact."""
    maybe = sims + error >= floor
    ids, sims, error, hubs = ids[maybe], sims[maybe], error[maybe], hubs[maybe]
    doubtful = np.flatnonzero(sims - error < floor)
    if len(doubtful):
        sims[doubtful] = _exact(ids[doubtful], sims[doubtful], query)
        error[doubtful] = 0.0
        keep = sims >= floor
        ids, sims, error, hubs = ids[keep], sims[keep], error[keep], hubs[keep]
    return _Ranked(ids, sims, hubs, query, error)


def _ranked(
    vector: np.ndarray | None = None,
    *,
    of: int | None = None,
    floor: float,
    exclude: frozenset[int] = frozenset(),
) -> _Ranked:
    """The held vectors at least `floor` alike to `vector` (or to memory `of`'s own vector),
    most similar first."""
    with _current() as vectors:
        if of is not None:
            vector = vectors.vector_of(of)
            if vector is None:
                return _Ranked(*(np.zeros(0) for _ in range(3)))
        ids, sims, error = vectors.cosines(vector)
    if exclude:
        kept = ~np.isin(ids, list(exclude))
        ids, sims, error = ids[kept], sims[kept], error[kept]
    hubs = np.zeros(len(ids), dtype=np.float32)
    return _above(floor, ids, sims, error, hubs, np.atleast_2d(vector))


def ranking(query: list[str] | np.ndarray, *, floor: float, less_hubness: bool = True) -> Future:
    """Every held vector at least `floor` alike to the query (texts, a query and its synonyms,
    or their vectors, one a row; each memory at its nearest), ranked by cosine, less
    HUB_PENALTY x its hubness as a search ranks (`less_hubness`): a future `nearest` reads.
    Begun now on a thread of its own, so that a hybrid search reads the words meanwhile (the
    encoder and the matrix product let go of the GIL). The vectors are brought up to date
    first, here: through this thread's connection, which sees its own transaction's writes.
    With no query or no vector held, nothing is ranked and the question is not encoded."""
    if len(query) and held_count():
        return _rankers.submit(_ranked_for_search, query, floor, less_hubness)
    nothing: Future = Future()
    nothing.set_result(_Ranked(np.zeros(0, dtype=np.int64), *(np.zeros(0, np.float32),) * 2))
    return nothing


_rankers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="meaning")


def _ranked_for_search(query: list[str] | np.ndarray, floor: float, less_hubness: bool) -> _Ranked:
    vectors = query_vectors(query) if isinstance(query, list) else query
    with _held.lock:  # held still, not brought up to date: that reads the database
        ids, sims, error = _held.cosines(vectors)
        live = _held.ids[: _held.used] >= 0
        hubs = _held.hubness()[live] if less_hubness else np.zeros(len(ids), dtype=np.float32)
    return _above(floor, ids, sims, error, hubs, vectors)


def _within(
    ranked: _Ranked,
    condition: conditions.Condition,
    *,
    want: int | None,
    fields: tuple[str, ...],
) -> tuple[list[Neighbour], bool]:
    """The first `want` (all, for None) of the ranked neighbours the condition admits
    (memories.reads.conditions: the filters as they narrow a listing), with the `fields`
    asked for; and whether every neighbour was looked at. Looked up a growing slice at a
    time, most similar first, each slice read no further than the admitted neighbours still
    wanted, so a broad condition reads about `want` rows and a narrow one reads on until it
    has them."""
    found: list[Neighbour] = []
    total = ranked.total
    if want is None:
        size = total
    elif condition.where is None:
        size = want  # every neighbour admitted: read no more than wanted
    else:
        size = max(4 * want, FILTER_SLICE)
    start = 0
    while start < total and (want is None or len(found) < want):
        ids, sims, hubs = (column[start:] for column in ranked.first(start + size))
        chunk = ids.tolist()
        place = {memory_id: start + i for i, memory_id in enumerate(chunk)}
        # One more than wanted: whether there are more than `want` tells `complete`.
        limit = None if want is None else want - len(found) + 1
        where, params = condition.where, condition.params
        rows = memory_rows.in_order(chunk, where, params, ("id", *fields), limit)
        for memory_id, *values in rows:
            at = place[memory_id] - start
            cosine, hubness = float(sims[at]), float(hubs[at])
            found.append(Neighbour(memory_id, cosine, tuple(values), hubness))
        start, size = start + size, size * 4
    complete = start >= total and (want is None or len(found) <= want)
    return (found if want is None else found[:want]), complete


def nearest(
    ranking: Future,
    *,
    condition: conditions.Condition | None = None,
    want: int | None = None,
    fields: tuple[str, ...] = (),
) -> tuple[list[Neighbour], bool]:
    """The first `want` memories (or all) of a `ranking` the condition admits (None: every
    memory), with `fields` of each; and whether that is all of them."""
    ranked = ranking.result()
    if condition is None and not fields:
        ids, sims, hubs = ranked.first(ranked.total if want is None else want)
        found = [
            Neighbour(int(memory_id), float(cosine), (), float(hubness))
            for memory_id, cosine, hubness in zip(ids, sims, hubs, strict=True)
        ]
        return found, len(found) == ranked.total
    return _within(ranked, condition or conditions.Condition(None, []), want=want, fields=fields)


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
    condition = conditions.of(filters or MemoryFilters(), timezone.now())
    if condition is None:
        return []
    ranked = _ranked(of=memory.id, floor=threshold, exclude=frozenset([memory.id]))
    found, _ = _within(ranked, condition, want=limit, fields=())
    by_id = Memory.objects.select_related("project").in_bulk([n.memory_id for n in found])
    return [(by_id[n.memory_id], n.cosine) for n in found if n.memory_id in by_id]


def near_duplicate_pairs(
    tier: int, threshold: float = NEAR_DUPLICATE_COSINE
) -> list[tuple[int, int, float]]:
    """Pairs of memories of one tier (GLOBAL_TIER or a project's id) that say the same
    (`alike_pairs`), as (lower id, higher id, cosine), most similar first."""
    ids = Memory.objects.filter(tier=tier).order_by("id").values_list("id", flat=True)
    return alike_pairs({tier: list(ids)}, threshold=threshold)


def alike_pairs(
    by_tier: dict[int, list[int]],
    *,
    descriptions: dict[int, str] | None = None,
    threshold: float = NEAR_DUPLICATE_COSINE,
) -> list[tuple[int, int, float]]:
    """Pairs of these memories (their ids by tier) that one session sees together (of one
    tier, or one of them global) and that say the same: at least `threshold` alike (no less
    than NEAR_DUPLICATE_COSINE) and `say_the_same`; as (lower id, higher id, cosine), most
    similar first, each memory in its NEIGHBOURS_KEPT most similar pairs at most.
    `descriptions` (by id, as stored) saves reading them. The pairs come from those this
    process keeps of the whole store (`_Vectors.alike`), shared by the hygiene page and the
    consolidation plan, so a view of a store that changed little since costs no product.
    Bounding the pairs a memory keeps bounds what the rule and the clusters built on them
    cost, whatever a tier of near-copies holds."""
    if threshold < NEAR_DUPLICATE_COSINE:
        raise ValueError(f"pairs are kept from a cosine of {NEAR_DUPLICATE_COSINE}")
    a, b, cosines = _store_pairs()
    tier_of = {m: tier for tier, members in by_tier.items() for m in members}
    asked = np.fromiter(tier_of, dtype=np.int64, count=len(tier_of))
    inside = np.isin(a, asked) & np.isin(b, asked) & (cosines >= threshold)
    a, b, cosines = a[inside], b[inside], cosines[inside]
    tiers_a = np.array([tier_of[m] for m in a.tolist()], dtype=np.int64)
    tiers_b = np.array([tier_of[m] for m in b.tolist()], dtype=np.int64)
    seen = (tiers_a == tiers_b) | (tiers_a == GLOBAL_TIER) | (tiers_b == GLOBAL_TIER)
    a, b, cosines = a[seen], b[seen], cosines[seen].astype(np.float64)
    order = np.lexsort((b, a, -cosines))
    kept, counted = [], defaultdict(int)
    for x, y, cosine in zip(
        a[order].tolist(), b[order].tolist(), cosines[order].tolist(), strict=True
    ):
        if counted[x] < NEIGHBOURS_KEPT and counted[y] < NEIGHBOURS_KEPT:
            counted[x] += 1
            counted[y] += 1
            kept.append((x, y, cosine))
    if descriptions is None and kept:
        wanted = id_set({m for pair in kept for m in pair[:2]})
        descriptions = dict(Memory.objects.filter(id__in=wanted).values_list("id", "description"))
    present = [p for p in kept if p[0] in descriptions and p[1] in descriptions]
    same = say_the_same([(descriptions[x], descriptions[y]) for x, y, _ in present])
    return [pair for pair, ok in zip(present, same, strict=True) if ok]


def paired_ids() -> set[int]:
    """The memories in any pair alike_pairs can give (the store's pairs at
    NEAR_DUPLICATE_COSINE or more), whatever tiers are asked for."""
    a, b, _ = _store_pairs()
    return set(np.union1d(a, b).tolist())


def _all_pairs(rows: np.ndarray, threshold: float) -> tuple[np.ndarray, ...]:
    """(row, row, cosine) of every pair of rows at least `threshold` alike, each pair once:
    a matrix product a block of PAIR_BLOCK rows against the rest, only the cosines at the
    threshold kept (n² / 2 multiply-adds of 256 numbers, never the n x n matrix)."""
    found = [_NO_PAIRS]
    for start in range(0, len(rows), PAIR_BLOCK):
        block = rows[start : start + PAIR_BLOCK] @ rows[start:].T
        block[np.tril_indices(len(block), m=block.shape[1])] = -1.0  # once, not with itself
        a, b, cosines = _hits(block, threshold)
        found.append((start + a, start + b, cosines))
    return tuple(np.concatenate(column) for column in zip(*found, strict=True))


_NO_PAIRS = (np.zeros(0, dtype=np.int64),) * 2 + (np.zeros(0, dtype=np.float32),)


def _hits(block: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, column, cosine) of the cosines of `block` at `threshold` or more, at most
    ROW_PAIRS_KEPT of a row (its highest), so the pairs of memories with thousands of
    copies stay bounded (the rule keeps NEIGHBOURS_KEPT a memory of them in the end). Most
    rows hold none: the rows' maxima are read first, then only the rows that do."""
    rows = np.flatnonzero(block.max(axis=1, initial=-1.0) >= threshold)
    near = block[rows]
    crowded = np.flatnonzero((near >= threshold).sum(axis=1) > ROW_PAIRS_KEPT)
    if len(crowded):
        top = np.argpartition(-near[crowded], ROW_PAIRS_KEPT - 1, axis=1)[:, :ROW_PAIRS_KEPT]
        best = np.full((len(crowded), near.shape[1]), -1.0, dtype=near.dtype)
        np.put_along_axis(best, top, np.take_along_axis(near[crowded], top, axis=1), axis=1)
        near[crowded] = best
    a, b = np.nonzero(near >= threshold)
    return rows[a], b, near[a, b]


def _pairs_by_cell(rows: np.ndarray, threshold: float) -> tuple[np.ndarray, ...]:
    """The pairs of `_all_pairs` for many rows, each compared only with the rows of its
    CELL_PROBES nearest cells: the rows are clustered into about √n cells (`_cells`), so n
    rows cost about n × (1 + CELL_PROBES) × √n multiply-adds of 256 instead of n² / 2. A
    pair alike enough to say the same lies in neighbouring cells; one split across cells
    neither probes is missed (the list is advisory; bench/results/2026-12-01-meaning-4 gives
    the share found at 100,000)."""
    n = len(rows)
    cells = max(1, int(np.sqrt(n)))
    cell, probes = _nearest_cells(rows, _cells(rows, cells), min(CELL_PROBES, cells))
    # The members of each cell and the rows probing it, each found by one sort.
    members_of = np.argsort(cell, kind="stable")
    member_bounds = np.searchsorted(cell[members_of], np.arange(cells + 1))
    probed = probes.ravel()
    by_probed = np.argsort(probed, kind="stable")
    probing = np.repeat(np.arange(n), probes.shape[1])[by_probed]
    probe_bounds = np.searchsorted(probed[by_probed], np.arange(cells + 1))
    found = [_NO_PAIRS]
    for c in range(cells):
        members = members_of[member_bounds[c] : member_bounds[c + 1]]
        if not len(members):
            continue
        inside = rows[members]
        a, b, cosines = _all_pairs(inside, threshold)  # a cell's own rows among themselves
        found.append((members[a], members[b], cosines))
        asking = probing[probe_bounds[c] : probe_bounds[c + 1]]
        asking = asking[cell[asking] != c]
        for start in range(0, len(asking), PAIR_BLOCK):
            some = asking[start : start + PAIR_BLOCK]
            a, b, cosines = _hits(rows[some] @ inside.T, threshold)
            a, b = some[a], members[b]
            found.append((np.minimum(a, b), np.maximum(a, b), cosines))
    a, b, cosines = (np.concatenate(column) for column in zip(*found, strict=True))
    _, first = np.unique(a * n + b, return_index=True)  # a pair two cells found, once
    return a[first], b[first], cosines[first]


def _cells(rows: np.ndarray, cells: int) -> np.ndarray:
    """`cells` centroids of the rows (unit vectors): k-means from evenly spaced rows, for
    KMEANS_ROUNDS rounds over at most KMEANS_SAMPLE evenly spaced rows, which place the
    centroids about as well as all of them at a fraction of the cost."""
    sample = rows[np.linspace(0, len(rows) - 1, min(len(rows), KMEANS_SAMPLE)).astype(int)]
    centroids = sample[np.linspace(0, len(sample) - 1, cells).astype(int)].copy()
    for _ in range(KMEANS_ROUNDS):
        cell, _ = _nearest_cells(sample, centroids, 0)
        order = np.argsort(cell, kind="stable")
        filled, starts = np.unique(cell[order], return_index=True)
        sums = np.add.reduceat(sample[order], starts, axis=0)
        centroids[filled] = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
    return centroids


def _nearest_cells(
    rows: np.ndarray, centroids: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's most similar centroid, and its k most similar (none for k = 0), by index;
    a block of rows at a time."""
    nearest = np.empty(len(rows), dtype=np.int64)
    some = np.empty((len(rows), k), dtype=np.int64)
    for start in range(0, len(rows), PAIR_BLOCK):
        sims = rows[start : start + PAIR_BLOCK] @ centroids.T
        nearest[start : start + PAIR_BLOCK] = sims.argmax(axis=1)
        if k:
            some[start : start + PAIR_BLOCK] = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    return nearest, some


def say_the_same(descriptions: list[tuple[str, str]]) -> list[bool]:
    """For pairs of descriptions of memories already NEAR_DUPLICATE_COSINE alike: whether one
    says the other in another order (similarity.reworded) or what one says that the other does
    not (similarity.differing_words) means the same as well, at DIFFERENCE_COSINE or more.
    Nothing differing, or words only added on one side, is the same fact said again; all the
    differing words are embedded in one call. Never the same: descriptions that state different
    numbers, identifiers or names (facts.differ)."""
    distinct = [facts.differ(a, b) for a, b in descriptions]
    reworded = [similarity.reworded(a, b) for a, b in descriptions]
    differing = [similarity.differing_words(a, b) for a, b in descriptions]
    compared = [
        i
        for i, (ours, theirs) in enumerate(differing)
        if ours and theirs and not distinct[i] and not reworded[i]
    ]
    texts = [" ".join(words) for i in compared for words in differing[i]]
    vectors = embedding.embed_words(texts)
    alike = {i: float(vectors[2 * n] @ vectors[2 * n + 1]) for n, i in enumerate(compared)}
    return [
        not distinct[i] and alike.get(i, 1.0) >= DIFFERENCE_COSINE for i in range(len(descriptions))
    ]


def band_tiers(tier: int) -> tuple[int, ...]:
    """The tiers a memory of `tier` shares a band with: the global tier, and its own."""
    return (GLOBAL_TIER,) if tier == GLOBAL_TIER else (GLOBAL_TIER, tier)


def closest_in_band(
    memory: Memory, threshold: float = NEAR_DUPLICATE_COSINE
) -> tuple[Memory, float] | None:
    """The memory of the same band most alike in meaning to `memory` that says the same
    (`say_the_same`, at least `threshold` alike), with its cosine; else None. The write door's
    near-duplicate note."""
    ranked = _ranked(of=memory.id, floor=threshold, exclude=frozenset([memory.id]))
    ids, sims, _ = (column.tolist() for column in ranked.first(BAND_CANDIDATES))
    in_band = (
        Memory.objects.select_related("project")
        .filter(tier__in=band_tiers(memory.tier))
        .in_bulk(ids)
    )
    candidates = [(in_band[m], cosine) for m, cosine in zip(ids, sims, strict=True) if m in in_band]
    same = say_the_same([(memory.description, other.description) for other, _ in candidates])
    return next((pair for pair, ok in zip(candidates, same, strict=True) if ok), None)


def changed_value_pairs(by_tier: dict[int, list[int]]) -> list[tuple[int, int, float]]:
    """Pairs of these memories (their ids by tier), each pair of one tier, at least
    NEAR_DUPLICATE_COSINE alike whose descriptions state a different number, identifier or
    name (facts.differ): what `say_the_same` tells apart, and what may be a fact and its
    correction. As (lower id, higher id, cosine), most similar first."""
    a, b, cosines = _store_pairs()
    tier_of = {m: tier for tier, members in by_tier.items() for m in members}
    asked = np.fromiter(tier_of, dtype=np.int64, count=len(tier_of))
    inside = np.isin(a, asked) & np.isin(b, asked)
    a, b, cosines = a[inside], b[inside], cosines[inside].astype(np.float64)
    same_tier = np.array([tier_of[x] == tier_of[y] for x, y in zip(a, b, strict=True)], dtype=bool)
    a, b, cosines = a[same_tier], b[same_tier], cosines[same_tier]
    order = np.lexsort((b, a, -cosines))
    pairs = list(zip(a[order].tolist(), b[order].tolist(), cosines[order].tolist(), strict=True))
    wanted = id_set({m for pair in pairs for m in pair[:2]})
    descriptions = dict(Memory.objects.filter(id__in=wanted).values_list("id", "description"))
    return [
        (x, y, cosine)
        for x, y, cosine in pairs
        if x in descriptions
        and y in descriptions
        and facts.differ(descriptions[x], descriptions[y])
    ]
