"""Filters narrow a search; the statement count stays fixed whatever the store holds."""

import datetime as dt

import pytest
from django.db import connection
from django.utils import timezone

from memories.reads.filters import MemoryFilters
from memories.reads.search import ranking_sql
from memories.rules.errors import UnknownProject
from tests.reads.search.conftest import days_ago, names, set_fields


@pytest.fixture
def store(write, project, other_project):
    write("g-heron", description="Heron in the global tier", tags=["birds"], load="inline")
    write("w-heron", project="webdev", description="Heron on the web", references=["g-heron"])
    write("i-heron", project="infra", description="Heron in the racks", priority=7)
    write("old-heron", description="Heron from long ago", expires="2001-01-01", tags=["birds"])
    stale = write("stale-heron", description="Heron nobody checked", load="search").memory
    set_fields(stale, created_at=days_ago(200), verified_at=days_ago(200))
    write("unrelated", description="Nothing about birds")


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (MemoryFilters(), ["g-heron", "i-heron", "old-heron", "stale-heron", "w-heron"]),
        (MemoryFilters(project=None), ["g-heron", "old-heron", "stale-heron"]),
        (MemoryFilters(project="webdev"), ["w-heron"]),
        (MemoryFilters(expired=True), ["old-heron"]),
        (MemoryFilters(expired=False), ["g-heron", "i-heron", "stale-heron", "w-heron"]),
        (MemoryFilters(unverified="90d"), ["stale-heron"]),
        (MemoryFilters(referencing="g-heron"), ["w-heron"]),
        (MemoryFilters(tag="birds"), ["g-heron", "old-heron"]),
        (MemoryFilters(load="search"), ["stale-heron"]),
        (MemoryFilters(priority_min=6), ["i-heron"]),
        (MemoryFilters(tag="birds", expired=False), ["g-heron"]),
    ],
)
def test_filters_narrow_a_search(store, find, filters, expected):
    result = find("heron", filters=filters)
    assert sorted(names(result)) == expected
    assert result.count == len(expected)


@pytest.mark.parametrize("query", ["heron", "herons in", "ヘロン", "/srv/heron/x", "eron"])
def test_filters_narrow_every_sense(store, write, find, query):
    write("w-extra", project="webdev", description="ヘロン /srv/heron/x herons in the rack")
    result = find(query, filters=MemoryFilters(project="webdev"))
    assert result.hits and {hit.memory.project_name for hit in result.hits} == {"webdev"}


def test_prefix_retry_is_decided_within_the_filters(write, find, project):
    write("global-deploys", description="Deploys go through the bastion")
    write("web-pipeline", project="webdev", description="The deployment pipeline")
    assert names(find("deploy")) == ["global-deploys"]
    result = find("deploy", filters=MemoryFilters(project="webdev"))
    assert names(result) == ["web-pipeline"] and result.hits[0].matched_by == "prefix"


def test_an_unknown_project_is_refused(store, find):
    with pytest.raises(UnknownProject):
        find("heron", filters=MemoryFilters(project="nope"))


def test_now_decides_expiry(write, find):
    write("soon", description="Heron watch", expires=(timezone.now().date().isoformat()))
    tomorrow = timezone.now() + dt.timedelta(days=2)
    assert names(find("heron", filters=MemoryFilters(expired=True), now=tomorrow)) == ["soon"]
    assert find("heron", filters=MemoryFilters(expired=True)).hits == []


@pytest.mark.parametrize(
    ("queries", "statements", "ranked"),
    [
        # words: one statement ranks, counts and loads the page; one reads the references
        (["heron"], 2, 1),
        # words matching nothing: a second statement tries their prefixes
        (["deploy"], 3, 2),
        (["heron 東京", "/srv/heron/x"], 2, 1),  # words, scans and synonyms alike
        # nothing answered, not even a prefix: the last resort is a fourth statement
        (["zyzzyva"], 4, 2),
    ],
)
def test_a_search_runs_a_fixed_number_of_statements(
    store, write, find, django_assert_num_queries, queries, statements, ranked
):
    write("pipeline", project="webdev", description="The deployment pipeline")
    for number in range(40):
        write(f"more-{number}", project="webdev" if number % 2 else None, description="Heron")
    # PostgreSQL reads the words' statistics before each statement ranking words (here,
    # inside the test's transaction, each time: outside one they are kept while the store
    # stands still).
    statements += ranked if connection.vendor == "postgresql" else 0
    with django_assert_num_queries(statements):
        result = find(*queries)
        [hit.to_dict() for hit in result.hits]
    assert result.hits or queries == ["zyzzyva"]
    with django_assert_num_queries(statements + 1):  # + the project's id
        result = find(*queries, filters=MemoryFilters(project="webdev", expired=False))
        [hit.to_dict() for hit in result.hits]


def test_ranking_sql_is_the_statement_search_runs(store, find):
    sql, params = ranking_sql(["heron"], MemoryFilters(tag="birds"))
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    assert rows[0][0] == find("heron", filters=MemoryFilters(tag="birds")).count == 2
    assert ranking_sql(["  "], MemoryFilters()) is None


@pytest.mark.engine("sqlite")
def test_the_ranking_statement_reads_the_search_index(store):
    sql, params = ranking_sql(["heron"], MemoryFilters(tag="birds"))
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN QUERY PLAN " + sql, params)
        assert any("memories_fts" in str(row) for row in cursor.fetchall())


def test_a_filter_admitting_nothing_is_an_empty_answer(store, find, django_assert_num_queries):
    with django_assert_num_queries(0):
        result = find("heron", filters=MemoryFilters(unverified="999999w"))
    assert result.hits == [] and result.count == 0
