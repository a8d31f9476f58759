"""What PostgreSQL's BM25 reads of the store before ranking a query's words: the memories
(N), their average length, and each word's matches (the document frequency), which SQLite's
FTS5 keeps in its index. Read by one statement for the words not read yet, and kept per
connection while the store's change counter stands still (any commit since, by any
process, reads them again), so that the ranking statement carries them as numbers: that
statement is then planned in a fraction of the time, and a word asked again is not
counted again (bench/results/2026-12-05-pgspeed).

A word's matches are counted through the search index up to the words budget; in a store
of more memories than `threshold`, a word among the search column's most common lexemes
(the planner's statistics, which ANALYZE keeps) is taken at their estimate instead, which
is also its `estimate` (else 0), by which a question at scale keeps its rarer words.
"""

import threading
from dataclasses import dataclass

from memories.engine.postgresql.config import change_counter
from memories.engine.postgresql.index import CONFIG, SEARCH_COLUMN, SEARCH_TABLE

S = SEARCH_TABLE
# The memories' average length, in distinct words, as the newest LENGTH_SAMPLE hold it: BM25
# weighs a word less in a memory longer than most.
LENGTH_SAMPLE = 1_000
KEPT_WORDS = 10_000  # words kept per connection at most (a few MB; then read afresh)


@dataclass(frozen=True)
class Store:
    memories: float  # counted up to the budget, past it the planner's estimate
    estimated: float  # the planner's estimate of the memories (pg_class.reltuples)
    average_length: float
    first_id: int = 0  # the lowest and highest ids held (0 in an empty store)
    last_id: int = 0


@dataclass(frozen=True)
class Word:
    matches: float  # the document frequency BM25's idf reads
    estimate: float  # the statistics' estimate of its matches, 0 when it was counted


def lexeme(word: str) -> str:
    """One tsquery operand: whatever it holds is read as text, never as syntax."""
    return "'" + word.replace("\x00", " ").replace("\\", "\\\\").replace("'", "''") + "'"


# The store's memories: counted up to the budget, past it the planner's estimate. Not the
# highest id, which ids left by deleted memories would raise, and every idf with it.
_STORE = (
    "store AS MATERIALIZED (SELECT CASE WHEN estimated > %(budget)s THEN estimated ELSE"
    f" (SELECT count(*) FROM (SELECT 1 FROM {S} LIMIT %(budget)s) AS held) END::float8"
    " AS memories, estimated::float8 AS estimated FROM (SELECT (SELECT greatest(reltuples, 0)"
    f" FROM pg_class WHERE oid = '{S}'::regclass) AS estimated) AS planned), "
    "lengths AS MATERIALIZED (SELECT greatest(coalesce(avg(length(newest.search)), 1),"
    f" 1)::float8 AS average FROM (SELECT {SEARCH_COLUMN} AS search FROM {S} ORDER BY id DESC"
    f" LIMIT {LENGTH_SAMPLE}) AS newest)"
)
_FIGURES = (
    "(SELECT memories FROM store), (SELECT estimated FROM store), (SELECT average FROM lengths),"
    f" coalesce((SELECT min(id) FROM {S}), 0), coalesce((SELECT max(id) FROM {S}), 0)"
)
_STORE_ONLY = f"WITH {_STORE} SELECT {_FIGURES}"
# Each word's matches, with the store's figures on every row. The statistics' estimate is
# float4, as the planner keeps it: cast to float8 here, so that it comes back exactly.
_WORDS = (
    f"WITH {_STORE}, "
    # The schema as the search index's, not current_schema(), which is parallel unsafe.
    "common AS MATERIALIZED (SELECT e.lexeme, e.freq * (SELECT estimated FROM store)::float4"
    " AS df FROM pg_stats AS s, unnest(s.most_common_elems::text::text[],"
    " s.most_common_elem_freqs) AS e(lexeme, freq) WHERE s.schemaname = (SELECT nspname FROM"
    f" pg_namespace WHERE oid = (SELECT relnamespace FROM pg_class WHERE oid = '{S}'::regclass))"
    f" AND s.tablename = '{S}' AND s.attname = '{SEARCH_COLUMN}')"
    f" SELECT {_FIGURES}, w.word, d.df::float8, coalesce(c.df, 0)::float8"
    " FROM unnest(%(words)s::text[], %(quoted)s::text[]) AS w(word, quoted)"
    f" CROSS JOIN LATERAL (SELECT to_tsquery('{CONFIG}', w.quoted) AS query) AS q"
    # The word's lexemes made once (OFFSET 0: not folded back into the test of each of the
    # statistics' thousand lexemes, where they were made again for each).
    f" CROSS JOIN LATERAL (SELECT tsvector_to_array(to_tsvector('{CONFIG}', w.word))"
    " AS lexemes OFFSET 0) AS l CROSS JOIN LATERAL (SELECT CASE WHEN (SELECT estimated"
    " FROM store) > %(threshold)s THEN (SELECT max(common.df) FROM common WHERE common.lexeme"
    " = ANY(l.lexemes)) END AS df OFFSET 0) AS c"
    " CROSS JOIN LATERAL (SELECT coalesce(c.df, (SELECT count(*) FROM (SELECT 1 FROM"
    f" {S} WHERE {S}.{SEARCH_COLUMN} @@ q.query LIMIT %(budget)s) AS matched)) AS df OFFSET 0)"
    " AS d"
)

# The same figures of words in a store known to hold no more memories than the threshold:
# each counted, and the statistics (a view costly to plan) not read.
_WORDS_COUNTED = (
    "SELECT w.word, d.df::float8, 0::float8 FROM unnest(%(words)s::text[], %(quoted)s::text[])"
    " AS w(word, quoted) CROSS JOIN LATERAL (SELECT count(*) FROM (SELECT 1 FROM"
    f" {S} WHERE {S}.{SEARCH_COLUMN} @@ to_tsquery('{CONFIG}', w.quoted) LIMIT %(budget)s)"
    " AS matched) AS d(df)"
)


class _Kept(threading.local):
    raw = None
    counter = None
    store: dict
    words: dict


_kept = _Kept()


def _kept_for(connection) -> tuple[dict, dict]:
    """The store's figures (by budget) and the words' (by word, threshold and budget) read on
    this thread's connection since the change counter last moved; nothing kept inside a
    transaction, which sees its own writes."""
    counter = change_counter(connection)
    if counter is None:
        return {}, {}
    raw = connection.connection
    if _kept.raw is not raw or _kept.counter != counter or len(_kept.words) > KEPT_WORDS:
        _kept.raw, _kept.counter, _kept.store, _kept.words = raw, counter, {}, {}
    return _kept.store, _kept.words


def statistics(
    connection, words: list[str], *, threshold: int, budget: int
) -> tuple[Store, list[Word]]:
    """The store's figures and each word's, in the order given."""
    store_kept, words_kept = _kept_for(connection)
    missing = [word for word in dict.fromkeys(words) if (word, threshold, budget) not in words_kept]
    store = store_kept.get(budget)
    if missing or store is None:
        counted = store is not None and store.estimated <= threshold
        with connection.cursor() as cursor:
            if missing:
                cursor.execute(
                    _WORDS_COUNTED if counted else _WORDS,
                    {
                        "budget": budget,
                        "threshold": threshold,
                        "words": missing,
                        "quoted": [lexeme(word) for word in missing],
                    },
                )
            else:
                cursor.execute(_STORE_ONLY, {"budget": budget})
            rows = cursor.fetchall()
        if not counted:
            store = store_kept[budget] = Store(*rows[0][:5])
            rows = [row[5:] for row in rows] if missing else []
        for word, matches, estimate in rows:
            words_kept[(word, threshold, budget)] = Word(matches, estimate)
    return store, [words_kept[(word, threshold, budget)] for word in words]
