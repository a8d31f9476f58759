"""Facets: the counts of what the filters admit, per tier, load, expiry, verification, tag."""

import datetime as dt

import pytest
from django.utils import timezone

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
    # the total, the projects, tiers, two loads, expired, five verification spans, tags
    with django_assert_num_queries(12):
        facets.facets(MemoryFilters(), timezone.now())
    for number in range(20):
        doors.write(f"more-{number}", description=f"more {number}", tags=[f"t{number}"])
    with django_assert_num_queries(12):
        facets.facets(MemoryFilters(), timezone.now())
