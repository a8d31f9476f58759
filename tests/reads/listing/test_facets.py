"""Facets: the counts of what the filters admit, per tier, load, expiry, verification, tag."""

import datetime as dt
from dataclasses import replace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memories.models import Memory
from memories.reads import facets
from memories.reads.filters import MemoryFilters
from memories.rules.tiers import ANY_TIER
from memories.writes import doors
from tests.conftest import backdate


@pytest.fixture
def store(db, project):
    past = (timezone.now() - dt.timedelta(days=1)).isoformat()
    doors.write("a", description="a", tags=["ops", "people"], load="inline", body="x")
    doors.write("b", description="b", tags=["ops"], expires=past)
    backdate(doors.write("c", description="c", tags=["Ops", "docs"]).memory, days=100)
    backdate(doors.write("d", project="webdev", description="d", load="search").memory, days=400)
    doors.write("e", project="webdev", description="e", tags=["docs"])


def counted(found, key):
    facet = next((facet for facet in found if facet.key == key), None)
    return [] if facet is None else [(value.value, value.count) for value in facet.values]


def test_every_facet_counts_what_the_filters_admit(store):
    found = facets.facets(MemoryFilters(), timezone.now())
    assert counted(found, "project") == [("", 3), ("webdev", 2)]
    assert counted(found, "load") == [("inline", 1), ("index", 3), ("search", 1)]
    assert counted(found, "expired") == [("true", 1), ("false", 4)]
    assert counted(found, "unverified") == [
        ("7d", 2),
        ("30d", 2),
        ("90d", 2),
        ("180d", 1),
        ("365d", 1),
    ]
    # counted regardless of case, as the tag filter finds them
    assert counted(found, "tag") == [("ops", 3), ("docs", 2), ("people", 1)]


def test_facets_follow_the_filters(store):
    found = facets.facets(MemoryFilters(project="webdev"), timezone.now())
    assert counted(found, "project") == [("webdev", 2)]
    assert counted(found, "tag") == [("docs", 1)]
    found = facets.facets(MemoryFilters(project=ANY_TIER, tag="OPS"), timezone.now())
    assert counted(found, "project") == [("", 3)]  # the tag filter finds Ops and ops alike


def test_the_most_common_tags_come_first_and_the_rest_are_more(db, monkeypatch):
    monkeypatch.setattr(facets, "TAGS_SHOWN", 2)
    monkeypatch.setattr(facets, "TAGS_MORE", 1)
    for number, tags in enumerate([["x", "y", "z", "w"], ["x", "y", "z"], ["x", "y"], ["x"]]):
        doors.write(f"m{number}", description=f"m {number}", tags=tags)
    (tag,) = [
        facet for facet in facets.facets(MemoryFilters(), timezone.now()) if facet.key == "tag"
    ]
    assert [(v.value, v.count) for v in tag.values] == [("x", 4), ("y", 3)]
    assert [(v.value, v.count) for v in tag.more] == [("z", 2)]
    assert tag.others == 1  # w


def test_facets_run_a_fixed_number_of_queries(store, django_assert_num_queries):
    # the projects; then the band tallies (tiers, loads), expired, the verification spans
    # (the day tallies, the spans' edge days), tags and the never-read count in one
    with django_assert_num_queries(2):
        facets.facets(MemoryFilters(), timezone.now())
    for number in range(20):
        doors.write(f"more-{number}", description=f"more {number}", tags=[f"t{number}"])
    with django_assert_num_queries(2):
        facets.facets(MemoryFilters(), timezone.now())


@pytest.mark.parametrize("tier", [ANY_TIER, None, "webdev"])
def test_over_a_tier_or_the_store_the_tallies_count_what_the_rows_do(store, tier):
    doors.write("f", project="webdev", description="f", tags=["docs", "Docs"], load="inline")
    now = timezone.now()
    filters = MemoryFilters(project=tier)
    assert facets._tally_kept(filters)

    def ordered(counts):
        return replace(counts, tags=sorted(counts.tags))

    rows = filters.apply(Memory.objects.all(), now)
    assert ordered(facets._tallied(filters, now)) == ordered(facets._counted(rows, now))


def test_over_the_store_the_facets_read_no_memory_tags(store):
    with CaptureQueriesContext(connection) as queries:
        facets.facets(MemoryFilters(project="webdev"), timezone.now())
    read = " ".join(query["sql"] for query in queries.captured_queries)
    assert "memories_tagtally" in read
    assert '"memories_tag"' not in read and "memories_bandtally" in read


def test_any_other_filter_is_counted_from_its_rows(store):
    assert not facets._tally_kept(MemoryFilters(load="inline"))
    assert not facets._tally_kept(MemoryFilters(project="webdev", expired=False))
    assert not facets._tally_kept(MemoryFilters(band=None))


def test_under_another_filter_the_rows_are_read_in_one_pass_and_the_tags_in_another(
    store, django_assert_num_queries
):
    # The projects, the grouped pass (which counts the never read too), the tags.
    with django_assert_num_queries(3):
        found = facets.facets(MemoryFilters(load="index"), timezone.now())
    assert counted(found, "project") == [("", 2), ("webdev", 1)]
    assert counted(found, "expired") == [("true", 1), ("false", 2)]
    assert counted(found, "unverified") == [("7d", 1), ("30d", 1), ("90d", 1)]  # c, 100 days


@pytest.mark.parametrize("tier", [ANY_TIER, None, "webdev"])
def test_unverified_over_most_of_a_tier_is_the_tallies_less_what_was_verified_since(store, tier):
    for number in range(6):
        memory = doors.write(
            f"old-{number}",
            project="webdev" if number % 2 else None,
            description="old",
            tags=["ops", "Legacy"],
            load="search" if number % 3 else "index",
        ).memory
        backdate(memory, days=200)
    now = timezone.now()
    filters = MemoryFilters(project=tier, unverified="90d")
    by_complement = facets._by_what_it_leaves_out(filters, now)
    assert by_complement is not None

    def ordered(counts):
        return replace(counts, tags=sorted(counts.tags))

    rows = filters.apply(Memory.objects.all(), now)
    assert ordered(by_complement) == ordered(facets._counted(rows, now))
    # the few unverified are read directly
    assert facets._by_what_it_leaves_out(MemoryFilters(unverified="365d"), now) is None
    assert facets._by_what_it_leaves_out(replace(filters, load="index"), now) is None


def _ordered(counts):
    return replace(counts, tags=sorted(counts.tags))


def _rows_counted(filters, now):
    """The counts of a pass over the rows the filters admit, which every other way matches."""
    return facets._counted(filters.apply(Memory.objects.all(), now), now)


@pytest.mark.parametrize("period", ["90d", "45d", "12h"])
def test_unverified_for_any_period_counts_as_its_rows_do(store, period):
    for number in range(6):
        memory = doors.write(f"old-{number}", description="old", tags=["ops"]).memory
        backdate(memory, days=120 + number * 20)
    now = timezone.now()
    filters = MemoryFilters(unverified=period)
    by_complement = facets._by_what_it_leaves_out(filters, now)
    assert by_complement is not None
    assert _ordered(by_complement) == _ordered(_rows_counted(filters, now))


@pytest.mark.parametrize("tier", [ANY_TIER, None, "webdev"])
@pytest.mark.parametrize("tag", ["docs", "DOCS", "people", "absent"])
def test_a_tag_over_a_tier_or_the_store_is_counted_off_its_tallies(store, tier, tag):
    doors.write("f", project="webdev", description="f", tags=["docs", "ci"], load="inline")
    backdate(doors.write("g", description="g", tags=["docs"]).memory, days=50)
    now = timezone.now()
    filters = MemoryFilters(project=tier, tag=tag)
    tallied = facets._tagged(filters, now)
    assert tallied is not None
    assert _ordered(tallied) == _ordered(_rows_counted(filters, now))


def test_a_tag_held_in_two_spellings_or_under_another_filter_is_counted_from_its_rows(store):
    now = timezone.now()
    assert facets._tagged(MemoryFilters(tag="ops"), now) is None  # ops and Ops
    assert facets._tagged(MemoryFilters(tag="docs", load="index"), now) is None
    found = facets.facets(MemoryFilters(tag="ops"), now)
    assert counted(found, "tag") == [("ops", 3), ("docs", 1), ("people", 1)]


@pytest.mark.parametrize("tier", [ANY_TIER, None, "webdev"])
def test_the_expired_over_a_tier_or_the_store_are_counted_off_the_expiry_index(store, tier):
    past = (timezone.now() - dt.timedelta(days=2)).isoformat()
    doors.write("f", project="webdev", description="f", tags=["docs"], expires=past)
    backdate(doors.write("g", description="g", tags=["ops"], expires=past).memory, days=50)
    now = timezone.now()
    filters = MemoryFilters(project=tier, expired=True)
    alone = facets._expired_alone(filters, now)
    assert alone is not None and alone.total
    assert _ordered(alone) == _ordered(_rows_counted(filters, now))
    assert facets._expired_alone(replace(filters, load="index"), now) is None
    assert facets._expired_alone(replace(filters, expired=False), now) is None


def _verified_around_every_span_edge(now):
    """Memories verified a second either side of each span's edge, at the start and the end
    of the edge's day (UTC), and after `now`: where the day tallies meet the rows."""
    moments = [now + dt.timedelta(hours=1)]
    for _, older, _ in facets._span_bounds(now):
        start = dt.datetime.combine(older.astimezone(dt.UTC).date(), dt.time(), dt.UTC)
        moments += [older - dt.timedelta(seconds=1), older, older + dt.timedelta(seconds=1)]
        moments += [start, start + dt.timedelta(days=1, microseconds=-1)]
    for number, moment in enumerate(moments):
        doors.write(
            f"edge-{number}",
            project="webdev" if number % 2 else None,
            description="edge",
            tags=["edge", "docs"] if number % 3 else ["edge"],
            load="search" if number % 4 else "index",
        )
        Memory.objects.filter(name=f"edge-{number}").update(verified_at=moment)


@pytest.mark.parametrize("zone", ["UTC", "Pacific/Auckland"])
@pytest.mark.parametrize("tier", [ANY_TIER, None, "webdev"])
def test_the_day_tallies_count_each_span_to_the_second(store, tier, zone, settings):
    settings.TIME_ZONE = zone  # the tallies' days are UTC's whatever the server's zone
    now = timezone.now()
    _verified_around_every_span_edge(now)
    filters = MemoryFilters(project=tier)
    assert _ordered(facets._tallied(filters, now)) == _ordered(_rows_counted(filters, now))
    tagged = replace(filters, tag="edge")
    assert _ordered(facets._tagged(tagged, now)) == _ordered(_rows_counted(tagged, now))
    for period in ("7d", "90d", "45d", "12h"):
        unverified = replace(filters, unverified=period)
        by_complement = facets._by_what_it_leaves_out(unverified, now)
        if by_complement is not None:
            assert _ordered(by_complement) == _ordered(_rows_counted(unverified, now)), period


@pytest.fixture
def partly_read(store):
    """The store with old memories, most unverified for 90 days, some expired, and some of
    every kind read through the read door."""
    past = (timezone.now() - dt.timedelta(days=1)).isoformat()
    for number in range(8):
        memory = doors.write(
            f"old-{number}",
            project="webdev" if number % 2 else None,
            description="old",
            tags=["docs"],
            expires=past if number % 3 == 0 else None,
        ).memory
        backdate(memory, days=200)
    for name, project in [("a", None), ("b", None), ("e", "webdev"), ("old-0", None)]:
        doors.read(name, project=project)
    doors.read("old-1", project="webdev")
    doors.read("old-1", project="webdev")


@pytest.mark.parametrize(
    "way, query",
    [
        ("_tallied", {}),
        ("_tallied", {"project": "webdev"}),
        ("_tallied", {"project": None}),
        ("_by_what_it_leaves_out", {"unverified": "90d"}),
        ("_by_what_it_leaves_out", {"unverified": "90d", "project": "webdev"}),
        ("_tagged", {"tag": "docs"}),
        ("_tagged", {"tag": "DOCS", "project": "webdev"}),
        ("_expired_alone", {"expired": True}),
        ("_expired_alone", {"expired": True, "project": None}),
    ],
)
def test_each_way_of_counting_counts_the_never_read_as_the_rows_do(partly_read, way, query):
    now = timezone.now()
    filters = MemoryFilters(**query)
    counts = getattr(facets, way)(filters, now)
    assert counts is not None
    never = filters.apply(Memory.objects.filter(read_count=0), now).count()
    assert 0 < never < counts.total  # some read, some not
    assert counts.never_read == never == _rows_counted(filters, now).never_read
    assert counted(facets.facets(filters, now), "read") == [("never", never)]


def test_the_never_read_facet_reads_past_its_bound_as_more(partly_read, monkeypatch):
    monkeypatch.setattr(facets, "NEVER_READ_BOUND", 3)
    now = timezone.now()
    # Off the tallies, a bounded count of rows, a grouped pass, under the read filter.
    for query in ({}, {"unverified": "90d"}, {"load": "index"}, {"read": "never"}):
        filters = MemoryFilters(**query)
        (read,) = [facet for facet in facets.facets(filters, now) if facet.key == "read"]
        assert [(v.value, v.count, v.more) for v in read.values] == [("never", 3, True)]
    # Under the read filter itself every memory counted is never read: of ops, c alone.
    found = facets.facets(MemoryFilters(read="never", tag="ops"), now)
    assert counted(found, "read") == [("never", 1)] and counted(found, "project") == [("", 1)]
