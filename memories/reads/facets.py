"""Facets of the list, as Datasette shows them: for the memories the current filters admit,
how many fall in each tier, each load, each tag (the most common first), expired or not, and
unverified for each of the pages' periods.

A few aggregate queries with the ORM, whatever the store holds (see facets()), and one
grouping the normalized tag table. The counts are under the filters' own conditions
(MemoryFilters.apply), so a count is what its link then lists.
"""

import datetime as dt
from dataclasses import dataclass, field

from django.db.models import Count

from memories.models import Memory, Tag
from memories.reads.filters import PERIOD_CHOICES, MemoryFilters
from memories.rules import fields as memory_fields
from memories.rules import tiers
from projects.models import Project

TAGS_SHOWN = 20  # the most common tags; the next ones are behind "more"
TAGS_MORE = 200  # at most this many more


@dataclass(frozen=True)
class FacetValue:
    value: str  # the parameter's value its link sets
    label: str
    count: int


@dataclass
class Facet:
    key: str  # the list's parameter (`project`, `load`, `tag`, `expired`, `unverified`)
    title: str
    values: list[FacetValue]
    more: list[FacetValue] = field(default_factory=list)  # tags past the first TAGS_SHOWN
    others: int = 0  # tags past those too, counted only


def facets(
    filters: MemoryFilters,
    now: dt.datetime,
    *,
    projects: dict[int, Project] | None = None,
) -> list[Facet]:
    """The facets of the memories `filters` admit, at `now` (`projects`: id to project, when
    the caller holds them).

    Each count is read off an index where the filters allow: the tiers grouped on the project
    key (the tier column is computed, which SQLite reads from the row), the loads grouped,
    the expired counted, and the unverified counted as the disjoint spans between the
    periods' cutoffs, newest first, added up: one pass over the recent memories rather than
    one over most of the store for each period.
    """
    admitted = filters.apply(Memory.objects.all(), now)
    total = admitted.count()
    if projects is None:
        projects = Project.objects.in_bulk()
    by_tier = {
        row["project"]: row["count"]
        for row in admitted.values("project").annotate(count=Count("id")).order_by()
    }
    by_load = {
        row["load"]: row["count"]
        for row in admitted.values("load").annotate(count=Count("id")).order_by()
    }
    expired = admitted.filter(expires_at__lte=now).count()
    unverified, newer, since = [], 0, now
    for period, words in PERIOD_CHOICES:
        cutoff = now - memory_fields.period(period)
        newer += admitted.filter(verified_at__gte=cutoff, verified_at__lt=since).count()
        since = cutoff
        if total - newer:
            unverified.append(FacetValue(period, words, total - newer))

    def tier_value(project_id: int | None) -> FacetValue:
        name = None if project_id is None else projects[project_id].name
        return FacetValue(name or "", tiers.label(name), by_tier[project_id])

    found = [
        Facet(
            "project",
            "Tier",
            sorted(
                (tier_value(project_id) for project_id in by_tier),
                key=lambda v: (v.value != "", -v.count, v.value),
            ),
        ),
        Facet(
            "load",
            "Load",
            [
                FacetValue(load, load, by_load[load])
                for load in memory_fields.LOADS
                if load in by_load
            ],
        ),
        Facet(
            "expired",
            "Expiry",
            [
                value
                for value in (
                    FacetValue("true", "expired", expired),
                    FacetValue("false", "in force", total - expired),
                )
                if value.count
            ],
        ),
        Facet("unverified", "Unverified for", unverified),
        _tag_facet(filters, admitted),
    ]
    return [facet for facet in found if facet.values]


def _tag_facet(filters: MemoryFilters, admitted) -> Facet:
    tags = Tag.objects.all()
    if filters.active:
        tags = tags.filter(memory_id__in=admitted.values("id"))
    ranked = list(
        tags.values("tag")
        .annotate(count=Count("id"))
        .order_by("-count", "tag")[: TAGS_SHOWN + TAGS_MORE + 1]
    )
    values = [FacetValue(row["tag"], row["tag"], row["count"]) for row in ranked]
    others = 0
    if len(values) > TAGS_SHOWN + TAGS_MORE:
        others = tags.values("tag").distinct().count() - TAGS_SHOWN - TAGS_MORE
    return Facet(
        "tag",
        "Tag",
        values[:TAGS_SHOWN],
        more=values[TAGS_SHOWN : TAGS_SHOWN + TAGS_MORE],
        others=others,
    )
