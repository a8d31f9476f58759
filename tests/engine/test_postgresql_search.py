"""PostgreSQL's ranking statement as it runs: planned with the parallel setting for it alone,
a prefix retry that does not run starts no parallel workers, and the words' statistics it
carries are kept while the store stands still."""

import datetime as dt

import pytest
from django.db import connection, transaction
from django.utils import timezone

from memories import engine
from memories.reads.filters import MemoryFilters
from memories.reads.search import ranking_sql, search

pytestmark = pytest.mark.engine("postgresql")

NOW = timezone.now() + dt.timedelta(days=1)  # one moment for every score compared
SETTING = "SELECT current_setting('parallel_tuple_cost'), current_setting('parallel_setup_cost')"


def _ranked(sql: str, params: list) -> list[tuple]:
    return engine.of(connection).search.ranked_rows(connection, sql, params)


def _setting() -> str:
    with connection.cursor() as cursor:
        cursor.execute(SETTING)
        return cursor.fetchone()


@pytest.mark.django_db(transaction=True)
def test_the_ranking_statement_alone_runs_with_the_parallel_setting():
    default = _setting()
    assert _ranked(SETTING + " WHERE %s", [True]) == [("0.01", "10")] != [default]
    assert _setting() == default


def test_inside_a_transaction_the_setting_ends_with_the_statement(db):
    default = _setting()
    with transaction.atomic():
        assert _ranked(SETTING, []) == [("0.01", "10")]
        assert _setting() == default


def test_a_prefix_retry_that_does_not_run_starts_no_workers(write):
    """The words match, so the prefix retry's guard is false: it stops the retry above its
    parallel scan, where the scan's workers would otherwise be started for nothing. (The
    retries ride in the statement of synonyms; a query alone tries them by a statement of
    their own, and only when its words match nothing.) Parallel
    plans are forced here: a test store is too small for the planner to choose them, and
    with the rows' work priced far above the pages' a worker's share is clearly cheaper,
    whatever statistics the table has."""
    for number in range(30):
        write(f"heron-{number}", body="Herons at the lake")
    sql, params = ranking_sql(["heron", "lake"], MemoryFilters())
    with transaction.atomic(), connection.cursor() as cursor:
        for setting, value in (
            ("parallel_setup_cost", 0),
            ("parallel_tuple_cost", 0),
            ("min_parallel_table_scan_size", 0),
            ("min_parallel_index_scan_size", 0),
            ("max_parallel_workers_per_gather", 2),  # whatever the cores the cluster has
            ("cpu_tuple_cost", 10),
            ("cpu_operator_cost", 10),
        ):
            cursor.execute(f"SET LOCAL {setting} = {value}")
        cursor.execute("ANALYZE memories_search")
        cursor.execute("EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) " + sql, params)
        lines = [row[0] for row in cursor.fetchall()]
    plan = "\n".join(lines)
    # The retry's scan is the one testing prefixes (`:*`); the Gather above it is its own.
    retry = next(n for n, line in enumerate(lines) if "Filter:" in line and ":*" in line)
    gather = next((line for line in reversed(lines[:retry]) if "Gather" in line), "")
    assert "Gather" in gather and "never executed" in gather, plan


def _score(name: str, query: str) -> float:
    hits = search([query], MemoryFilters(), mode="words", now=NOW).hits
    return next(hit.score for hit in hits if hit.memory.name == name)


@pytest.mark.django_db(transaction=True)
def test_the_words_statistics_are_kept_until_a_change_is_committed(
    write, django_assert_num_queries
):
    """BM25's figures (the memories, their length, each word's matches) are read once and
    kept while the store stands still; a commit reads them again, and kept or read afresh
    (inside a transaction, where nothing is kept), a search ranks alike."""
    write("lake-heron", body="Herons at the lake")
    write("pier", body="Gulls by the pier")
    before = _score("lake-heron", "heron lake")
    with django_assert_num_queries(1):  # the change counter alone
        ranking_sql(["heron lake"], MemoryFilters())
    with django_assert_num_queries(2):  # a word not read yet: the counter, then its matches
        ranking_sql(["gulls"], MemoryFilters())
    write("pier-heron", body="A heron on the lake by the pier")
    after = _score("lake-heron", "heron lake"), _score("pier", "gulls pier")
    with transaction.atomic():
        fresh = _score("lake-heron", "heron lake"), _score("pier", "gulls pier")
    assert after == fresh and after[0] != before
