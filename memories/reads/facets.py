"""Facets of the list, as Datasette shows them: for the memories the current filters admit,
how many fall in each tier, each load, each tag (the most common first), expired or not, and
unverified for each of the pages' periods.

A few aggregate queries with the ORM, whatever the store holds (see facets()), and one
grouping the normalized tag table. The counts are under the filters' own conditions
(MemoryFilters.apply), so a count is what its link then lists.

Where a filter admits most of the store, a pass over its rows costs a row read per match
(unverified for 90 days: 79,400 at 100,000 memories, 140 ms against a 20 ms list); the
filters the pages offer most are counted off indexes and the tallies instead: a range per
band tally or tag tally, never a row of memories_memory.
"""

import datetime as dt
import string
from dataclasses import dataclass, field, replace

from django.db.models import (
    BigIntegerField,
    Count,
    Exists,
    F,
    Func,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)

from memories.engine.hints import Unindexed, likelihood
from memories.models import BandTally, Memory, Tag, TagTally
from memories.reads import tallies
from memories.reads.filters import PERIOD_CHOICES, SPARSE, MemoryFilters
from memories.rules import fields as memory_fields
from memories.rules import tiers
from memories.rules.tiers import ANY_TIER
from projects.models import Project

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


@dataclass
class _Counts:
    total: int
    by_tier: dict[int | None, int]  # project id (None: the global tier): memories
    by_load: dict[str, int]
    expired: int
    spans: dict[str, int]  # period: memories verified within it and not within the shorter
    tags: list[tuple[str, int]]  # (tag as stored, memories)

    def minus(self, other: "_Counts") -> "_Counts":
        """These counts less `other`'s, which count some of the same memories."""

        def less(these: dict, those: dict) -> dict:
            return {key: n - those.get(key, 0) for key, n in these.items() if n > those.get(key, 0)}

        return _Counts(
            total=self.total - other.total,
            by_tier=less(self.by_tier, other.by_tier),
            by_load=less(self.by_load, other.by_load),
            expired=self.expired - other.expired,
            spans={period: n - other.spans[period] for period, n in self.spans.items()},
            tags=list(less(dict(self.tags), dict(other.tags)).items()),
        )


def facets(
    filters: MemoryFilters,
    now: dt.datetime,
    *,
    projects: dict[int, Project] | None = None,
) -> list[Facet]:
    """The facets of the memories `filters` admit, at `now` (`projects`: id to project, when
    the caller holds them).

    Over the store or one tier the counts per tier, load and tag are the tallies', which
    hold expired memories too, as the list does; the expired and the verification spans are
    ranges of their indexes. Unverified for a period over most of the store or a tier is
    those counts less the memories verified since, and a tag over the store or a tier its
    tag tallies, both counted off indexes. Under any other filter, one pass over the rows
    the filter finds counts them all, and a second its tags.
    """
    if projects is None:
        projects = Project.objects.in_bulk()
    if _tally_kept(filters):
        counts = _tallied(filters, now)
    else:
        counts = (
            _by_what_it_leaves_out(filters, now)
            or _tagged(filters, now)
            or _expired_alone(filters, now)
            or _counted(filters.apply(Memory.objects.all(), now), now)
        )
    total = counts.total
    unverified, newer = [], 0
    for period, words in PERIOD_CHOICES:
        newer += counts.spans[period]
        if total - newer:
            unverified.append(FacetValue(period, words, total - newer))
    by_tier, by_load, expired = counts.by_tier, counts.by_load, counts.expired

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
        _tag_facet(counts.tags),
    ]
    return [facet for facet in found if facet.values]


def _tally_kept(filters: MemoryFilters) -> bool:
    """Whether the tallies count what `filters` admit: every tier, or one tier, unfiltered."""
    return not replace(filters, project=ANY_TIER).active


def _span_bounds(now: dt.datetime) -> list[tuple[str, dt.datetime, dt.datetime]]:
    """Each period's span (period, older, newer): verified since `older`, its cutoff, but
    not since `newer`, the shorter period's."""
    bounds, newer = [], now
    for period, _ in PERIOD_CHOICES:
        older = now - memory_fields.period(period)
        bounds.append((period, older, newer))
        newer = older
    return bounds


def _span_conditions(now: dt.datetime) -> dict[str, Q]:
    return {
        period: Q(verified_at__gte=older, verified_at__lt=newer)
        for period, older, newer in _span_bounds(now)
    }


# Declared sparse: left to guess, the planner tested the expiry of every row another filter's
# index found (unverified for 90 days: 535 ms against 13 ms at 100,000).
def _expired(now: dt.datetime) -> Q:
    return Q(likelihood(Q(expires_at__lte=now), SPARSE))


def _tallied(filters: MemoryFilters, now: dt.datetime) -> _Counts:
    """The counts over every tier or one: tiers, loads and tags off the tallies; the
    expired and each verification span a range of memory_expires / memory_verified, or of
    memory_tier_expiry / memory_tier_verified for one tier."""
    tier = filters.tier_key()
    by_tier, by_load = _by_tier_and_load(tallies.tier_loads(tier).items())
    rows = _in_tier(Memory.objects.all(), tier)
    return _Counts(
        total=sum(by_tier.values()),
        by_tier=by_tier,
        by_load=by_load,
        expired=rows.filter(_expired(now)).count(),
        spans=_spans(rows, now),
        tags=tallies.tags(tier),
    )


def _by_tier_and_load(bands) -> tuple[dict[int | None, int], dict[str, int]]:
    """Memories per tier (None: the global one) and per load of ((tier, load), n) pairs."""
    by_tier: dict[int | None, int] = {}
    by_load: dict[str, int] = {}
    for (tier, load), n in bands:
        if n:
            by_tier[tier or None] = by_tier.get(tier or None, 0) + n
            by_load[load] = by_load.get(load, 0) + n
    return by_tier, by_load


def _by_what_it_leaves_out(filters: MemoryFilters, now: dt.datetime) -> _Counts | None:
    """Unverified for a period, over the store or one tier, when that is most of it: the
    tallies' tiers, loads and tags less those of the memories verified since, which are
    fewer (unverified for 90 days on the generated store: 20,600 rather than 79,400); the
    expired among the sparse expired and each span older than the period a range of the
    verification index. None for any other filter, or when those verified since are the
    more."""
    scope = replace(filters, unverified=None)
    if not filters.unverified or not _tally_kept(scope):
        return None
    try:
        cutoff = now - memory_fields.period(filters.unverified)
    except OverflowError:
        return None
    tier = scope.tier_key()
    by_tier, by_load = _by_tier_and_load(tallies.tier_loads(tier).items())
    total = sum(by_tier.values())
    since = _verified_since(tier, cutoff)
    if since.total * 2 > total:
        return None
    rows = _in_tier(Memory.objects.all(), tier).filter(verified_at__lt=cutoff)
    spans = {
        period: 0
        if older >= cutoff
        else rows.filter(verified_at__gte=older, verified_at__lt=newer).count()
        for period, older, newer in _span_bounds(now)
    }
    whole = _Counts(
        total=total,
        by_tier=by_tier,
        by_load=by_load,
        expired=rows.filter(_expired(now)).count(),
        spans=spans,
        tags=tallies.tags(tier),
    )
    return whole.minus(since)


def _in_tier(rows: QuerySet, tier: int | None) -> QuerySet:
    """`rows` (of a model with a tier column) of `tier`, or (None) of every tier."""
    return rows if tier is None else rows.filter(tier=tier)


def _count_of(rows: QuerySet) -> Subquery:
    """How many rows the correlated queryset `rows` holds, as a scalar subquery (a plain
    COUNT, which groups nothing, so each outer row counts its own range of an index)."""
    counted = rows.order_by().annotate(n=Func(F("id"), function="COUNT")).values("n")
    return Subquery(counted, output_field=BigIntegerField())


def _one_per(tallies: QuerySet, *keys: str) -> QuerySet:
    """One row of `tallies` for each distinct value of `keys` (a tally is kept per load or
    priority as well: counting a range for each of them would count it several times)."""
    first = tallies.order_by().values(*keys).annotate(first=Min("id")).values("first")
    return tallies.filter(id__in=first).order_by()


def _verified_since(tier: int | None, cutoff: dt.datetime) -> _Counts:
    """How many memories of `tier` (None: every tier) were verified since `cutoff`, per tier,
    load and tag (none of the expired or spans), off indexes alone: a range of
    memory_band_verified for each tier and load the band tallies hold, of tag_facets for each
    tier and tag the tag tallies hold."""
    since = Memory.objects.filter(
        tier=OuterRef("tier"), load=OuterRef("load"), verified_at__gte=cutoff
    )
    bands = _one_per(_in_tier(BandTally.objects.all(), tier), "tier", "load")
    by_tier, by_load = _by_tier_and_load(
        ((row_tier, load), n)
        for row_tier, load, n in bands.values_list("tier", "load").annotate(n=_count_of(since))
    )
    tagged = Tag.objects.filter(tier=OuterRef("tier"), tag=OuterRef("tag"), verified_at__gte=cutoff)
    tag_tallies = _one_per(_in_tier(TagTally.objects.all(), tier), "tier", "tag")
    tags: dict[str, int] = {}
    for tag, n in tag_tallies.values_list("tag").annotate(n=_count_of(tagged)):
        if n:
            tags[tag] = tags.get(tag, 0) + n
    return _Counts(
        total=sum(by_tier.values()),
        by_tier=by_tier,
        by_load=by_load,
        expired=0,
        spans={period: 0 for period, _ in PERIOD_CHOICES},
        tags=list(tags.items()),
    )


def _spans(rows: QuerySet, now: dt.datetime) -> dict[str, int]:
    """How many memories of `rows` fall in each verification span: a range of an index on
    the verification each (one pass testing every span on each row read its column per row,
    6 ms against 1 for 20,600 memories)."""
    return {period: rows.filter(span).count() for period, span in _span_conditions(now).items()}


def _tagged(filters: MemoryFilters, now: dt.datetime) -> _Counts | None:
    """Tagged with one tag, over the store or one tier: the tiers and loads off the tag's
    tallies, its verification spans off tag_facets, the expired among the sparse expired, its
    memories' other tags off tag_memory_tag. None under any other filter, or when the tag is
    held in more than one spelling (the filter finds any case, and a memory holding two is
    in two tallies): its rows count it then."""
    if not filters.tag or not _tally_kept(replace(filters, tag=None)):
        return None
    tier = filters.tier_key()
    spelled = _in_tier(tallies.tag_tallies(filters.tag), tier)
    tallied = list(spelled.values_list("tier", "load", "tag", "memories"))
    spellings = {tag for _, _, tag, _ in tallied}
    if len(spellings) > 1:
        return None
    by_tier, by_load = _by_tier_and_load(((t, load), n) for t, load, _, n in tallied)
    total = sum(by_tier.values())
    holding = Tag.objects.filter(memory_id=OuterRef("id"), tag__in=spellings)
    expired = _in_tier(Memory.objects.all(), tier).filter(_expired(now), Exists(holding))
    # Each tier's span a range of tag_facets (tag, tier, verified_at); over every tier, a
    # span is no range of it.
    in_span = {
        period: _count_of(Tag.objects.filter(span, tag=OuterRef("tag"), tier=OuterRef("tier")))
        for period, span in _span_conditions(now).items()
    }
    spans = dict.fromkeys(in_span, 0)
    for counted in _one_per(
        _in_tier(TagTally.objects.all(), tier).filter(tag__in=spellings), "tier"
    ).values(**in_span):
        for period, n in counted.items():
            spans[period] += n
    # The tag itself is on every one of them: only the others are read.
    tagged = _in_tier(Tag.objects.all(), tier).filter(tag__in=spellings)
    others = Tag.objects.filter(memory_id__in=tagged.values("memory_id")).exclude(tag__in=spellings)
    tags = list(others.values_list("tag").annotate(count=Count("*")).order_by())
    return _Counts(
        total=total,
        by_tier=by_tier,
        by_load=by_load,
        expired=expired.count(),
        spans=spans,
        tags=tags + [(tag, total) for tag in spellings if total],
    )


def _expired_alone(filters: MemoryFilters, now: dt.datetime) -> _Counts | None:
    """The expired, over the store or one tier: the one pass reads them, declared few, off
    memory_tier_expiry (tier, expiry, load, verification), grouped on the tier it holds
    (3.6 ms reading each memory's row for its project at 100,000, 0.6 off the index). None
    under any other filter."""
    if filters.expired is not True or not _tally_kept(replace(filters, expired=None)):
        return None
    return _counted(filters.apply(Memory.objects.all(), now, sparse=True), now, key=F("tier"))


def _counted(admitted, now: dt.datetime, *, key=None) -> _Counts:
    """The counts of the memories `admitted` (a queryset) under a filter the tallies do not
    keep: one pass over its rows, grouped by tier (`key`: the tier's column) and load,
    counting the expired and each verification span as it goes; the tags in a second."""
    # Grouped as the filter's own index finds the rows (walking the project index instead
    # tested every row of the store against the filter).
    key = key or Unindexed(F("project_id"), output_field=Memory._meta.get_field("project"))
    conditions = {"expired": _expired(now), **_span_conditions(now)}
    rows = (
        admitted.values(key=key, band_load=F("load"))
        .annotate(
            n=Count("id"),
            **{name: Count("id", filter=condition) for name, condition in conditions.items()},
        )
        .order_by()
    )
    by_tier: dict[int | None, int] = {}
    by_load: dict[str, int] = {}
    counted = dict.fromkeys(conditions, 0)
    for row in rows:
        tier = row["key"] or None  # the global tier: no project, or tier 0
        by_tier[tier] = by_tier.get(tier, 0) + row["n"]
        by_load[row["band_load"]] = by_load.get(row["band_load"], 0) + row["n"]
        for name in conditions:
            counted[name] += row[name]
    tags = Tag.objects.filter(memory_id__in=admitted.values("id"))
    return _Counts(
        total=sum(by_tier.values()),
        by_tier=by_tier,
        by_load=by_load,
        expired=counted["expired"],
        spans={period: counted[period] for period, _ in PERIOD_CHOICES},
        tags=list(tags.values_list("tag").annotate(count=Count("*")).order_by()),
    )


def _tag_facet(tags: list[tuple[str, int]]) -> Facet:
    """The tags counted regardless of case, as the tag filter finds them, each shown in lower
    case. Grouped as stored and folded here: grouping on the folded tag read every row of the
    tag table (an expression index covers nothing in SQLite)."""
    folded: dict[str, int] = {}
    for tag, count in tags:
        key = tag.translate(_ASCII_LOWER)
        folded[key] = folded.get(key, 0) + count
    ranked = sorted(folded.items(), key=lambda item: (-item[1], item[0]))
    values = [FacetValue(tag, tag, count) for tag, count in ranked]
    return Facet(
        "tag",
        "Tag",
        values[:TAGS_SHOWN],
        more=values[TAGS_SHOWN : TAGS_SHOWN + TAGS_MORE],
        others=max(len(values) - TAGS_SHOWN - TAGS_MORE, 0),
    )
