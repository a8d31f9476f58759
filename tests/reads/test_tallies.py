"""Counts read off the tallies (memories.reads.tallies): the expired memories taken off, the
left-out tags of an index, the priority histograms, and a list's count, each the count of
the rows."""

import datetime as dt

import pytest
from django.db.models import Count, Q
from django.utils import timezone

from memories.models import Memory, Tag
from memories.reads import budget, listing, tallies
from memories.reads.agent_view import agent_view
from memories.reads.drift import priority_histograms
from memories.reads.filters import MemoryFilters


def test_the_counts_of_a_view_take_the_expired_off(write, project):
    now = timezone.now()
    past, future = now - dt.timedelta(days=1), now + dt.timedelta(days=1)
    for number in range(5):
        write(f"listed{number}", tags=["ops"])
    write("gone", expires=past.isoformat(), tags=["ops"])
    write("going", expires=future.isoformat(), tags=["ops"], project="webdev")
    write("quiet", load="search", project="webdev")
    write("quiet-gone", load="search", expires=past.isoformat())
    write("rule", load="inline", body="1234", tags=["style"])
    write("old-rule", load="inline", body="12345678", expires=past.isoformat())
    global_tally = tallies.tier_tallies([0], now)[0]
    assert global_tally.in_force("index") == 5
    assert global_tally.in_force("search") == 0
    assert global_tally.expired_total == 3
    assert budget.inline_totals(now) == {0: 4}
    view = agent_view(project, now)
    assert (view.index.left_out, view.search_only, view.expired) == (0, 1, 3)
    assert view.inline_total == 4


def test_left_out_tags_count_what_the_index_leaves_out(write, settings):
    settings.MEMADMIN_INDEX_MAX_ENTRIES = 3
    now = timezone.now()
    for number in range(3):
        write(f"top{number}", tags=["listed"], priority=0)
    for number in range(4):
        write(f"rest{number}", tags=["ops", "docs"] if number else ["docs"], priority=9)
    write("expired", tags=["ops"], priority=9, expires=(now - dt.timedelta(hours=1)).isoformat())
    write("searchable", tags=["ops"], load="search")
    # Expired memories of other loads hold no index tag to take off.
    gone = (now - dt.timedelta(hours=1)).isoformat()
    write("searchable-gone", tags=["ops", "docs"], load="search", expires=gone)
    write("inline-gone", tags=["docs"], load="inline", body="b", expires=gone)
    view = agent_view(None, now)
    assert view.index.left_out == 4
    expected = (
        Tag.objects.filter(
            memory__load="index", memory__priority=9, memory__expires_at__isnull=True
        )
        .values_list("tag")
        .annotate(n=Count("id"))
        .order_by("-n", "tag")
    )
    assert view.index.left_out_tags == list(expected) == [("docs", 4), ("ops", 3)]
    # With nothing listed, every tag in force of the band counts (no list to take off).
    assert tallies.left_out_tags([0], "index", now, []) == [("docs", 4), ("listed", 3), ("ops", 3)]


def test_priority_histograms_come_from_the_tallies(write, project):
    write("a", priority=1)
    write("b", priority=1, project="webdev")
    write("c", priority=7, project="webdev", expires="2000-01-01")
    by_tier = {h.project: h.counts for h in priority_histograms()}
    assert by_tier == {None: {1: 1}, "webdev": {1: 1, 7: 1}}
    counted = Memory.objects.filter(Q(project__isnull=True)).count()
    assert sum(by_tier[None].values()) == counted


FILTERS = [
    {},
    {"project": None},
    {"project": "webdev"},
    {"load": "search"},
    {"priority_min": 2, "priority_max": 5},
    {"expired": False},
    {"expired": False, "project": None, "priority_min": 1},
    {"expired": False, "load": "inline", "priority_max": 3},
    {"band": "webdev"},  # a session's band: the MCP tools' list counts it
    {"band": None, "load": "index"},
    {"band": "webdev", "expired": False},
]


@pytest.mark.parametrize("given", FILTERS, ids=[str(f) for f in FILTERS])
def test_a_count_from_the_tallies_is_the_count_of_the_rows(write, project, other_project, given):
    now = timezone.now()
    past = (now - dt.timedelta(days=2)).isoformat()
    for number in range(12):
        write(
            f"m{number}",
            project=(None, "webdev", "infra")[number % 4 % 3],
            load=("index", "search", "inline")[number % 3],
            priority=number % 7,
            tags=[["ops"], ["ops", "docs"], []][number % 3],
            expires=past if number % 4 == 0 else None,
            body="b" * number,
        )
    filters = MemoryFilters(**given)
    assert tallies.count(filters, now) == filters.apply(Memory.objects.all(), now).count()


@pytest.mark.parametrize(
    "given",
    [
        {"expired": True},
        {"unverified": "90d", "load": "index"},
        {"referencing": "x"},
        {"tag": "ops"},
    ],
)
def test_the_tallies_leave_other_counts_to_the_rows(db, given):
    assert tallies.count(MemoryFilters(**given), timezone.now()) is None


@pytest.mark.parametrize(
    "given",
    [
        {"unverified": "90d"},
        {"unverified": "1d", "project": "webdev"},
        {"unverified": "12h", "project": None},
        {"unverified": "400000w"},  # before year 1: nothing was verified that long ago
    ],
)
def test_an_unverified_count_from_the_day_tallies_is_the_count_of_the_rows(
    write, project, other_project, given
):
    """Verified on days either side of each cutoff and on its own day, before and after it."""
    now = timezone.now()
    ages = [dt.timedelta(hours=hours) for hours in (1, 11, 13, 23, 25, 47, 2159, 2161, 5000)]
    for number, age in enumerate(ages * 2):
        write(f"m{number}", project=(None, "webdev", "infra")[number % 3])
        Memory.objects.filter(name=f"m{number}").update(verified_at=now - age)
    filters = MemoryFilters(**given)
    assert tallies.count(filters, now) == filters.apply(Memory.objects.all(), now).count()


def test_the_list_counts_from_the_tallies(write, django_assert_num_queries):
    for number in range(3):
        write(f"m{number}", load="search")
    with django_assert_num_queries(2):  # the tallies, the page
        page = listing.list_memories(MemoryFilters(load="search"), limit=2)
    assert page.count == 3 and len(page.memories) == 2


def test_a_tag_in_two_spellings_is_counted_once(write):
    write("m", tags=["Ops", "ops"])
    filters = MemoryFilters(tag="OPS")
    assert listing.list_memories(filters).count == 1
