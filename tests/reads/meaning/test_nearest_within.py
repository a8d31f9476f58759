"""The neighbours by meaning a condition admits (a search's filters), read a growing slice at
a time and each slice no further than the neighbours still wanted: the same neighbours, in
the same order, as the whole ranking held against the filters."""

import pytest
from django.utils import timezone

from memories.models import Memory
from memories.reads import conditions, meaning
from memories.reads.filters import MemoryFilters

DEPLOYS = [
    "Deploys go to host-7 through the bastion",
    "Production releases pass the bastion host",
    "Rolling back a release takes the previous build",
    "The deploy pipeline runs the tests first",
    "Staging deploys run every hour",
    "A hotfix is deployed by hand on host-7",
]


@pytest.fixture
def store(write, project):
    for number, text in enumerate(DEPLOYS):
        write(f"deploy-{number}", description=text, project="webdev" if number % 2 else None)


def _ranking():
    return meaning.ranking(["how do we ship a new version"], floor=-1.0, less_hubness=False)


def _all_within(filters) -> list[int]:
    admitted = set(filters.apply(Memory.objects.all(), timezone.now()).values_list("id", flat=True))
    return [n.memory_id for n in meaning.nearest(_ranking())[0] if n.memory_id in admitted]


@pytest.mark.parametrize("slice_size", [1, 2, 256])
@pytest.mark.parametrize("want", [1, 2, 3, 10])
def test_the_neighbours_within_the_filters_are_the_ranking_held_against_them(
    store, monkeypatch, slice_size, want
):
    monkeypatch.setattr(meaning, "FILTER_SLICE", slice_size)
    filters = MemoryFilters(project="webdev")
    expected = _all_within(filters)
    assert len(expected) == 3
    found, complete = meaning.nearest(
        _ranking(),
        condition=conditions.of(filters, timezone.now()),
        want=want,
        fields=("name", "priority"),
    )
    assert [n.memory_id for n in found] == expected[:want]
    assert complete == (want >= len(expected))
    names = Memory.objects.in_bulk([n.memory_id for n in found])
    assert [n.values for n in found] == [(names[n.memory_id].name, 5) for n in found]
