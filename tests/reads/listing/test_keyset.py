"""Keyset pages walk the same rows in the same order as the full listing, both ways."""

from dataclasses import replace

import pytest
from django.db import connection

from memories import engine
from memories.reads import listing, pagination
from memories.reads.filters import MemoryFilters
from memories.rules.errors import InvalidField
from projects.models import Project


def walk_forward(filters, sort, limit):
    seen, cursor = [], None
    while True:
        page = listing.page_memories(filters, sort=sort, limit=limit, after=cursor)
        seen += [m.name for m in page.memories]
        if not page.next_cursor:
            return seen, page
        cursor = page.next_cursor


@pytest.mark.parametrize("sort", list(listing.SORTS))
@pytest.mark.parametrize("limit", [1, 7, 50])
def test_pages_cover_the_listing_exactly_once_in_order(varied, sort, limit):
    expected = [m.name for m in listing.memories(MemoryFilters(), sort=sort)]
    seen, last = walk_forward(MemoryFilters(), sort, limit)
    assert seen == expected
    assert last.count == 40
    # and back again from the last page
    back, cursor = list(reversed([m.name for m in last.memories])), last.previous_cursor
    while cursor:
        page = listing.page_memories(MemoryFilters(), sort=sort, limit=limit, before=cursor)
        back += list(reversed([m.name for m in page.memories]))
        cursor = page.previous_cursor
    assert list(reversed(back)) == expected


def test_pages_keep_to_the_filters(varied):
    filters = MemoryFilters(project="webdev", priority_max=5)
    expected = [m.name for m in listing.memories(filters)]
    seen, last = walk_forward(filters, "index", 3)
    assert seen == expected and last.count == len(expected)


def test_expiry_sorts_never_expiring_last_going_up_and_first_going_down(varied):
    up = listing.memories(MemoryFilters(), sort="expires")
    values = [m.expires_at for m in up]
    firsts = [v for v in values if v is not None]
    assert values == firsts + [None] * (len(values) - len(firsts))
    assert firsts == sorted(firsts)
    down = [m.expires_at for m in listing.memories(MemoryFilters(), sort="-expires")]
    assert down[0] is None and down[-1] == firsts[0]


@pytest.mark.parametrize(
    "cursor",
    ["", "@@@", "bm90IGpzb24", "WzEsMl0", "WyJ4IiwieCIsIngiXQ", "W3RydWUsbnVsbCwxXQ", "e30"],
)
def test_a_forged_cursor_is_refused_cleanly(varied, cursor):
    keys = listing.sort_keys("index")
    if cursor:
        with pytest.raises(InvalidField):
            pagination.decode(keys, cursor)


def test_a_cursor_round_trips(varied):
    keys = listing.sort_keys("expires")
    memory = listing.memories(MemoryFilters(), sort="expires").last()
    values = pagination.decode(keys, pagination.encode(keys, memory))
    assert values == [memory.expires_at, memory.id]


def test_a_page_runs_four_queries_given_the_projects(varied, django_assert_num_queries):
    first = listing.page_memories(MemoryFilters(), limit=10)
    projects = Project.objects.in_bulk()
    # The rows, the count, the rows before the page (its number), the citations.
    with django_assert_num_queries(4):
        page = listing.page_memories(
            MemoryFilters(), limit=10, after=first.next_cursor, projects=projects
        )
        names = [memory.project_name for memory in page.memories]
    assert any(names) and None in names


def test_a_page_reads_the_projects_itself_when_not_given(varied, django_assert_num_queries):
    with django_assert_num_queries(4):  # and the projects
        page = listing.page_memories(MemoryFilters(), limit=10)
        names = [memory.project_name for memory in page.memories]
    assert any(names)


FILTERS = [
    MemoryFilters(),
    MemoryFilters(unverified="1d"),
    MemoryFilters(expired=True),
    MemoryFilters(expired=False, project="webdev"),
    MemoryFilters(load="index", priority_min=1),
    MemoryFilters(tag="INFRA"),
    MemoryFilters(tag="infra", project="webdev", expired=False),
]


@pytest.mark.parametrize("filters", FILTERS)
def test_walking_the_sorts_index_admits_the_same_rows(varied, filters):
    filters = replace(filters)  # a fresh copy: a tier key held from another test's store
    from memories.models import Memory

    plain = filters.apply(Memory.objects.all()).order_by("id")
    walked = filters.apply(Memory.objects.all(), walk_order=True).order_by("id")
    assert list(plain.values_list("id", flat=True)) == list(walked.values_list("id", flat=True))
    if filters.unverified or filters.expired is not None or filters.load:
        hinted = engine.of(connection).statements.unindexed('"memories_memory".')
        assert hinted in str(walked.query)


@pytest.mark.parametrize("filters", FILTERS)
@pytest.mark.parametrize("sort", ["index", "name", "expires", "-read_count"])
def test_pages_are_the_same_whether_they_walk_or_not(varied, monkeypatch, filters, sort):
    filters = replace(filters)  # a fresh copy: a tier key held from another test's store
    expected = [m.name for m in listing.memories(filters, sort=sort)]
    monkeypatch.setattr(listing, "WALK_AFTER", 0)
    seen, last = walk_forward(filters, sort, 6)
    assert seen == expected and last.count == len(expected)


def test_a_named_project_is_looked_up_once(varied, django_assert_num_queries):
    filters = MemoryFilters(project="webdev")
    with django_assert_num_queries(1):
        filters.tier_key()
        filters.tier_key()


def test_a_tag_held_more_often_than_the_bound_is_told_by_its_tallies(varied, monkeypatch):
    """20 memories carry infra, 10 of them in two spellings: 30 in the tallies, 15 at least."""
    from memories.reads import tallies

    assert tallies.more_tagged_than(MemoryFilters(tag="INFRA"), 14)
    assert not tallies.more_tagged_than(MemoryFilters(tag="infra"), 15)  # 30 / 2 spellings
    assert not tallies.more_tagged_than(MemoryFilters(tag="infra", unverified="1d"), 1)
    assert not tallies.more_tagged_than(MemoryFilters(tag="nowhere"), 0)
    monkeypatch.setattr(listing, "PAGE_COUNT_BOUND", 14)
    page = listing.page_memories(MemoryFilters(tag="infra"), limit=50)
    assert (page.count, page.more) == (14, True)
    tagged = [m.name for m in listing.memories(MemoryFilters(tag="infra"))]
    assert [m.name for m in page.memories] == tagged and len(tagged) == 20
