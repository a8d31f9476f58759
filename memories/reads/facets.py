"""Facets of the list, as Datasette shows them: for the memories the current filters admit,
how many fall in each tier, each load, each tag (the most common first), expired or not, and
unverified for each of the pages' periods.

A few aggregate queries with the ORM, whatever the store holds (see facets()), and one
grouping the normalized tag table. The counts are under the filters' own conditions
(MemoryFilters.apply), so a count is what its link then lists.
"""

import datetime as dt
import string
from dataclasses import dataclass, field

from django.db.models import Count, F, Q

from memories.engine.hints import Unindexed, likelihood
from memories.models import Memory, Tag
from memories.reads.filters import PERIOD_CHOICES, SPARSE, MemoryFilters
from memories.rules import fields as memory_fields
from memories.rules import tiers
from projects.models import Project

DEFAULT = memory_fields.DEFAULT_LOAD
TAGS_SHOWN = 20  # the most common tags; the next ones are behind "more"
TAGS_MORE = 200  # at most this many more
# SQLite's lower(), which the tag filter folds with, folds ASCII letters alone.
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


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
    reads from the row); the unverified are counted as the disjoint spans between the
    periods' cutoffs, newest first, added up. Over the whole store each count is a range of
    its own index; under a filter, one pass over the rows the filter finds counts them all.
    """
    admitted = filters.apply(Memory.objects.all(), now)
    total = admitted.count()
    if projects is None:
        projects = Project.objects.in_bulk()
    tier_key = filters.tier_key()
    if tier_key is not None:
        by_tier = {tier_key or None: total} if total else {}
    else:
        # Over the store, the project key's index groups alone; under a filter, its rows
        # are grouped as its own index finds them (walking the project index instead tested
        # every row of the store against the filter).
        key = (
            F("project_id")
            if not filters.active
            else Unindexed(F("project_id"), output_field=Memory._meta.get_field("project"))
        )
        by_tier = {
            row["key"]: row["count"]
            for row in admitted.values(key=key).annotate(count=Count("id")).order_by()
        }
    # Declared sparse: left to guess, the planner tested the expiry of every row another
    # filter's index found (unverified for 90 days: 535 ms against 13 ms at 100,000).
    conditions = {"expired": Q(likelihood(Q(expires_at__lte=now), SPARSE))}
    # The default load is most memories': it is what the others leave.
    conditions.update({load: Q(load=load) for load in memory_fields.LOADS if load != DEFAULT})
    since = now
    for period, _ in PERIOD_CHOICES:
        cutoff = now - memory_fields.period(period)
        conditions[period] = Q(verified_at__gte=cutoff, verified_at__lt=since)
        since = cutoff
    if filters.active:
        # The rows the filters' own index finds, counted in one pass.
        counts = admitted.aggregate(
            **{key: Count("id", filter=condition) for key, condition in conditions.items()}
        )
    else:
        # Each count a range of the band, expiry or verification index.
        counts = {key: admitted.filter(condition).count() for key, condition in conditions.items()}
    by_load = {load: counts[load] for load in memory_fields.LOADS if load != DEFAULT}
    by_load[DEFAULT] = total - sum(by_load.values())
    by_load = {load: count for load, count in by_load.items() if count}
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
    case. Grouped as stored, off the tag index alone, and folded here: grouping on the folded
    tag read every row of the tag table (an expression index covers nothing in SQLite)."""
    tags = Tag.objects.all()
    if filters.active:
        tags = tags.filter(memory_id__in=admitted.values("id"))
    folded: dict[str, int] = {}
    for row in tags.values("tag").annotate(count=Count("*")).order_by():
        key = row["tag"].translate(_ASCII_LOWER)
        folded[key] = folded.get(key, 0) + row["count"]
    ranked = sorted(folded.items(), key=lambda item: (-item[1], item[0]))
    values = [FacetValue(tag, tag, count) for tag, count in ranked]
    return Facet(
        "tag",
        "Tag",
        values[:TAGS_SHOWN],
        more=values[TAGS_SHOWN : TAGS_SHOWN + TAGS_MORE],
        others=max(len(values) - TAGS_SHOWN - TAGS_MORE, 0),
    )
