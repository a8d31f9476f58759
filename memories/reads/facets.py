"""Facets of the list, as Datasette shows them: for the memories the current filters admit,
how many fall in each tier, each load, each tag (the most common first), expired or not, and
unverified for each of the pages' periods.

A few aggregate queries with the ORM, whatever the store holds (see facets()), and one
grouping the normalized tag table. The counts are under the filters' own conditions
(MemoryFilters.apply), so a count is what its link then lists.
"""

import datetime as dt
from dataclasses import dataclass, field

from django.db.models import Count, Q
from django.db.models.functions import Lower

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

    The tiers are grouped on the project key (the tier column is computed, which SQLite
    reads from the row), the loads grouped, and the unverified counted as the disjoint spans
    between the periods' cutoffs, newest first, added up. Over the whole store (or a filter
    admitting many) each span and the expired are a range of their own index; within a tier,
    a tag or a target's citers, one pass over the rows those filters find counts them all.
    """
    admitted = filters.apply(Memory.objects.all(), now)
    total = admitted.count()
    if projects is None:
        projects = Project.objects.in_bulk()
    tier_key = filters.tier_key()
    if tier_key is None:
        by_tier = {
            row["project"]: row["count"]
            for row in admitted.values("project").annotate(count=Count("id")).order_by()
        }
    else:
        by_tier = {tier_key or None: total} if total else {}
    by_load = {
        row["load"]: row["count"]
        for row in admitted.values("load").annotate(count=Count("id")).order_by()
    }
    conditions = {"expired": Q(expires_at__lte=now)}
    since = now
    for period, _ in PERIOD_CHOICES:
        cutoff = now - memory_fields.period(period)
        conditions[period] = Q(verified_at__gte=cutoff, verified_at__lt=since)
        since = cutoff
    if tier_key is not None or filters.tag or filters.referencing:
        # Few rows, found by the filters' own index: one pass over them counts everything.
        counts = admitted.aggregate(
            **{key: Count("id", filter=condition) for key, condition in conditions.items()}
        )
    else:
        # Each count a range of the expiry or verification index.
        counts = {key: admitted.filter(condition).count() for key, condition in conditions.items()}
    expired = counts["expired"]
    unverified, newer = [], 0
    for period, words in PERIOD_CHOICES:
        newer += counts[period]
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
    """The tags counted regardless of case, as the tag filter finds them, each shown in lower
    case (read off the folded tag's index alone)."""
    tags = Tag.objects.all()
    if filters.active:
        tags = tags.filter(memory_id__in=admitted.values("id"))
    folded = tags.values(folded=Lower("tag"))
    ranked = list(
        folded.annotate(count=Count("*")).order_by("-count", "folded")[: TAGS_SHOWN + TAGS_MORE + 1]
    )
    values = [FacetValue(row["folded"], row["folded"], row["count"]) for row in ranked]
    others = 0
    if len(values) > TAGS_SHOWN + TAGS_MORE:
        others = folded.distinct().count() - TAGS_SHOWN - TAGS_MORE
    return Facet(
        "tag",
        "Tag",
        values[:TAGS_SHOWN],
        more=values[TAGS_SHOWN : TAGS_SHOWN + TAGS_MORE],
        others=others,
    )
