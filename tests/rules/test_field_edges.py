"""Edges of the shared parsers the API leans on: tiers, far dates, long periods, backlinks."""

import datetime as dt

import pytest

from memories.models import Memory
from memories.reads import backlinks
from memories.reads.filters import MemoryFilters
from memories.reads.params import TierForm
from memories.rules import fields
from memories.rules.errors import InvalidField
from memories.rules.tiers import ANY_TIER


@pytest.mark.parametrize(
    ("data", "expected"),
    [({}, ANY_TIER), ({"project": ""}, None), ({"project": " webdev "}, "webdev")],
)
def test_tier_form_reads_absent_empty_and_named(data, expected):
    form = TierForm(data)
    assert form.is_valid()
    assert form.cleaned_data["project"] == expected


@pytest.mark.parametrize("value", ["bad name", "x" * 65, "nul\x00"])
def test_tier_form_refuses_a_bad_project_name(value):
    form = TierForm({"project": value})
    assert not form.is_valid()
    assert form.first_error().startswith("project: ")


@pytest.mark.parametrize(
    "text", ["9999-12-31", "9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00+01:00"]
)
def test_expiries_outside_what_can_be_stored_are_refused(text):
    with pytest.raises(InvalidField) as error:
        fields.expires(text)
    assert error.value.field == "expires"


def test_the_last_storable_expiry_is_accepted():
    assert fields.expires("9999-12-30") == dt.datetime(9999, 12, 31, tzinfo=fields.local_zone())


def test_an_unverified_period_reaching_before_year_one_matches_nothing(write):
    write("old")
    assert list(MemoryFilters(unverified="999999w").apply(Memory.objects.all())) == []


def test_backlink_is_the_shape_of_referenced_by(write):
    write("host")
    citing = write("runbook", references=["host"], description="How to deploy").memory
    assert backlinks.backlink(citing) == {
        "name": "runbook",
        "project": None,
        "description": "How to deploy",
    }
    assert backlinks.backlink_dicts(Memory.objects.get(name="host")) == [backlinks.backlink(citing)]
