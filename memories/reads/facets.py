"""Facets of the list, as Datasette shows them: for the memories the current filters admit,
how many fall in each tier, each load, each tag (the most common first), expired or not, and
unverified for each of the pages' periods.

The counts are under the filters' own conditions (MemoryFilters.apply), so a count is what
its link then lists. Where a filter admits most of the store, a pass over its rows costs a
row read per match, several times the list itself (unverified for 90 days:
bench/results/2026-12-01-facets; bench/results/2026-12-04-figures-from-comments); the filters the
pages offer most (every tier or one, alone or with a tag, an
unverified period or expired) are counted off the tallies the database keeps
(memories.reads.tallies) and short ranges of indexes, in one statement; any other filter by
one pass over its rows and a second over their tags, with the ORM.
"""

import datetime as dt
import string
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from django.db import connection
from django.db.models import (
    Count,
    F,
    Q,
)
from django.db.models.expressions import RawSQL

from memories import engine
from memories.engine.hints import Unindexed, likelihood
from memories.engine.tables import MEMORY_TABLE
from memories.models import Memory, Tag
from memories.reads import tallies
from memories.reads.filters import BY_KEY, DATES, PERIOD_CHOICES, SPARSE, MemoryFilters, Scan
from memories.rules import fields as memory_fields
from memories.rules import tiers
from memories.rules.tiers import ANY_TIER
from projects.models import Project

TAGS_SHOWN = 20  # the most common tags; the next ones are behind "more"
TAGS_MORE = 200  # at most this many more
NEVER_READ_BOUND = 2000  # the never-read memories are counted up to this ("2,000+")
READ = BY_KEY["read"]
# SQLite's lower(), which the tag filter folds with, folds ASCII letters alone.
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


@dataclass(frozen=True)
class FacetValue:
    value: str  # the parameter's value its link sets
    label: str
    count: int
    more: bool = False  # the count stopped at NEVER_READ_BOUND: there are more
    also: tuple[tuple[str, str], ...] = ()  # other parameters its link sets (a month's end)


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
    never_read: int  # the whole count, or up to NEVER_READ_BOUND + 1 where rows are counted

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
            never_read=self.never_read - other.never_read,
        )


def facets(filters: MemoryFilters, now: dt.datetime) -> list[Facet]:
    """The facets of the memories `filters` admit, at `now`.

    Over the store or one tier the counts per tier, load and tag are the tallies', which
    hold expired memories too, as the list does; the expired a range of their index; the
    verification spans the day tallies'. Unverified for a period over most of the store or a
    tier is those counts less the memories verified since (the day tallies again); a tag over
    the store or a tier its tag tallies, its day tallies and its pair tallies (its other
    tags); the expired one pass over them. Under any other filter, one pass over the rows the
    filter finds counts them all, and a second its tags. The never read (the read filter's
    one choice) are counted in the same statement or pass: off the band or tag tallies,
    which count them, or where those cannot tell them, by rows up to NEVER_READ_BOUND.
    """
    names = dict(Project.objects.values_list("id", "name"))
    counts = (
        (_tallied(filters, now) if _tally_kept(filters) else None)
        or _by_what_it_leaves_out(filters, now)
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
        name = None if project_id is None else names[project_id]
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
        _read_facet(counts.never_read),
    ]
    return [facet for facet in found if facet.values]


def month_facets(filters: MemoryFilters, now: dt.datetime) -> list[Facet]:
    """Each date range's memories by month (UTC, as the day tallies count), in date order: a
    month's link sets the range to its first and last days. One grouped pass over the
    memories the filters admit for each moment, on the moment's own index when no filter
    narrows: a pass over every row they admit, so drawn when asked for, apart from the
    facets, which the tallies keep cheap (bench/results/2026-12-05-dates)."""
    admitted = filters.apply(Memory.objects.all(), now)
    month_of = engine.of(connection).statements.utc_month
    found = []
    for name, column, words in DATES:
        months = (
            admitted.filter(**{f"{column}__isnull": False})
            .annotate(month=RawSQL(month_of(f'"{MEMORY_TABLE}"."{column}"'), []))
            .values("month")
            .annotate(n=Count("id"))
            .order_by("month")
        )
        values = []
        for month, count in months.values_list("month", "n"):
            first = dt.date.fromisoformat(f"{month}-01")
            last = (first + dt.timedelta(days=32)).replace(day=1) - dt.timedelta(days=1)
            also = ((f"{name}_until", last.isoformat()),)
            values.append(FacetValue(first.isoformat(), month, count, also=also))
        found.append(Facet(f"{name}_since", f"{words.capitalize()}, by month (UTC)", values))
    return found


def _read_facet(never_read: int) -> Facet:
    """The read filter's one choice, `never`, counted up to NEVER_READ_BOUND."""
    shown = min(never_read, NEVER_READ_BOUND)
    more = never_read > NEVER_READ_BOUND
    values = [FacetValue("never", READ.choice_words("never"), shown, more)] if shown else []
    return Facet(READ.key, READ.title, values)


def _tally_kept(filters: MemoryFilters) -> bool:
    """Whether the tallies count what `filters` admit: every tier (the caller's reach sees),
    or one tier, unfiltered."""
    return not replace(filters, project=ANY_TIER).asks_anything


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
# index found (unverified for 90 days: bench/results/2026-12-01-facets).
def _expired(now: dt.datetime) -> Q:
    return Q(likelihood(Q(expires_at__lte=now), SPARSE))


def _tallied(filters: MemoryFilters, now: dt.datetime) -> _Counts:
    """The counts over every tier or one, in one statement: tiers, loads and tags off the
    tallies; the expired a range of memory_expires, or of memory_tier_expiry for one tier;
    the verification spans off the day tallies; the never read off the band tallies."""
    tier = filters.tier_key()
    batch = tallies.Batch()
    bands, tags = tallies.add_bands(batch, tier), tallies.add_tags(batch, tier)
    expired = tallies.add_expired(batch, tier, now)
    spans = _add_spans(batch, now, tier)
    never_read = tallies.add_never_read(batch, tier)
    found = batch.run()
    by_tier, by_load = tallies.by_tier_and_load(found.get(bands, []))
    return _Counts(
        total=sum(by_tier.values()),
        by_tier=by_tier,
        by_load=by_load,
        expired=tallies.single(found, expired),
        spans=spans(found),
        tags=_named(found, tags),
        never_read=tallies.single(found, never_read),
    )


def _named(found: dict, kind: str) -> list[tuple[str, int]]:
    """(name, count) of the rows of a kind's arms, each name's counts summed."""
    counts: dict[str, int] = {}
    for _, _, name, n in found.get(kind, []):
        counts[name] = counts.get(name, 0) + n
    return [(name, n) for name, n in counts.items() if n]


def _by_what_it_leaves_out(filters: MemoryFilters, now: dt.datetime) -> _Counts | None:
    """Unverified for a period, over the store or one tier, when that is most of it, in one
    statement: the tallies' tiers, loads and tags less those of the memories verified since
    (the day tallies after the cutoff's day, the rest of that day by rows); the expired among
    the sparse expired; each span older than the period off the day tallies; the never read
    among the unverified a range of memory_read_tier, up to NEVER_READ_BOUND. None for any
    other filter, or when those verified since are the more (the rows are fewer then)."""
    scope = replace(filters, unverified=None)
    if not filters.unverified or not _tally_kept(scope):
        return None
    try:
        cutoff = now - memory_fields.period(filters.unverified)
    except OverflowError:
        return None
    tier = scope.tier_key()
    batch = tallies.Batch()
    bands, tags = tallies.add_bands(batch, tier), tallies.add_tags(batch, tier)
    since_bands = tallies.add_verified_since_per_band(batch, cutoff, tier)
    since_tags = tallies.add_tags_verified_since(batch, cutoff, tier)
    expired = tallies.add_expired(batch, tier, now, verified_before=cutoff)
    never_read = tallies.add_never_read_up_to(batch, tier, NEVER_READ_BOUND, verified_before=cutoff)
    bounds = _span_bounds(now)
    verified = tallies.add_verified_since(
        batch, [now, cutoff, *(older for _, older, _ in bounds)], tier
    )
    found = batch.run()
    by_tier, by_load = tallies.by_tier_and_load(found.get(bands, []))
    total = sum(by_tier.values())
    since_by_tier, since_by_load = tallies.by_tier_and_load(found.get(since_bands, []))
    since = _Counts(
        total=sum(since_by_tier.values()),
        by_tier=since_by_tier,
        by_load=since_by_load,
        expired=0,
        spans={period: 0 for period, _ in PERIOD_CHOICES},
        tags=_named(found, since_tags),
        never_read=0,
    )
    if since.total * 2 > total:
        return None
    verified_since = verified(found)
    # Only the memories verified before the cutoff are in the filter's spans.
    spans = {
        period: 0 if older >= cutoff else verified_since[older] - verified_since[min(newer, cutoff)]
        for period, older, newer in bounds
    }
    whole = _Counts(
        total=total,
        by_tier=by_tier,
        by_load=by_load,
        expired=tallies.single(found, expired),
        spans=spans,
        tags=_named(found, tags),
        never_read=tallies.single(found, never_read),
    )
    return whole.minus(since)


def _add_spans(
    batch: tallies.Batch, now: dt.datetime, tier: int | None, tag: str | None = None
) -> Callable[[dict], dict[str, int]]:
    """Arms counting the memories of `tier` (None: every tier), of a spelling of `tag` when
    given, in each verification span: those verified since its older end less those since its
    newer. Returns what reads the spans off the batch's rows."""
    bounds = _span_bounds(now)
    verified = tallies.add_verified_since(
        batch, [now, *(older for _, older, _ in bounds)], tier, tag
    )

    def read(found: dict) -> dict[str, int]:
        since = verified(found)
        return {period: since[older] - since[newer] for period, older, newer in bounds}

    return read


def _tagged(filters: MemoryFilters, now: dt.datetime) -> _Counts | None:
    """Tagged with one tag, over the store or one tier, in one statement: the tiers and loads
    off the tag's tallies, its verification spans off its day tallies, the expired among the
    sparse expired, its memories' other tags off the pair tallies, its never read off its
    tallies. None under any other filter, or when the tag is held in more than one spelling
    (the filter finds any case, and a memory holding two is in two tallies): its rows count
    it then."""
    if not filters.tag or not _tally_kept(replace(filters, tag=None)):
        return None
    tier = filters.tier_key()
    batch = tallies.Batch()
    spelled = tallies.add_spelled(batch, filters.tag, tier)
    others = tallies.add_tags_with(batch, filters.tag, tier)
    expired = tallies.add_expired(batch, tier, now, tag=filters.tag)
    spans = _add_spans(batch, now, tier, filters.tag)
    never_read = tallies.add_never_read(batch, tier, filters.tag)
    found = batch.run()
    tallied = found.get(spelled, [])
    spellings = {tag for _, _, tag, _ in tallied}
    if len(spellings) > 1:
        return None
    by_tier, by_load = tallies.by_tier_and_load(tallied)
    total = sum(by_tier.values())
    # The tag itself is on every one of them; the pair tallies hold the others.
    return _Counts(
        total=total,
        by_tier=by_tier,
        by_load=by_load,
        expired=tallies.single(found, expired),
        spans=spans(found),
        tags=_named(found, others) + [(tag, total) for tag in spellings if total],
        never_read=tallies.single(found, never_read),
    )


def _expired_alone(filters: MemoryFilters, now: dt.datetime) -> _Counts | None:
    """The expired, over the store or one tier, in one statement: one pass over them,
    declared few, off memory_tier_expiry (tier, expiry, load, verification), grouped by tier,
    load and span (reading each memory's row for its project cost several times the index:
    bench/results/2026-12-04-figures-from-comments), and their tags; the never read among
    them a range of memory_read_tier per tier, up to NEVER_READ_BOUND. None under any other
    filter."""
    if filters.expired is not True or not _tally_kept(replace(filters, expired=None)):
        return None
    tier = filters.tier_key()
    batch = tallies.Batch()
    spans = [(period, older) for period, older, _ in _span_bounds(now)]
    rows = tallies.add_expired_by_span(batch, tier, now, spans)
    tags = tallies.add_expired_tags(batch, tier, now)
    never_read = tallies.add_never_read_up_to(batch, tier, NEVER_READ_BOUND, expired_at=now)
    found = batch.run()
    by_tier, by_load = tallies.by_tier_and_load(found.get(rows, []))
    in_span = dict.fromkeys((period for period, _ in PERIOD_CHOICES), 0)
    for _, _, period, n in found.get(rows, []):
        if period is not None:
            in_span[period] += n
    total = sum(by_tier.values())
    return _Counts(
        total=total,
        by_tier=by_tier,
        by_load=by_load,
        expired=total,
        spans=in_span,
        tags=_named(found, tags),
        never_read=tallies.single(found, never_read),
    )


def _counted(admitted, now: dt.datetime, *, key=None) -> _Counts:
    """The counts of the memories `admitted` (a queryset) under a filter the tallies do not
    keep: one pass over its rows, grouped by tier (`key`: the tier's column) and load,
    counting the expired, each verification span and the never read as it goes; the tags in
    a second."""
    # Grouped as the filter's own index finds the rows (walking the project index instead
    # tested every row of the store against the filter).
    key = key or Unindexed(F("project_id"), output_field=Memory._meta.get_field("project"))
    conditions = {
        "expired": _expired(now),
        **_span_conditions(now),
        "never_read": READ.condition("never", Scan(now)),
    }
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
        never_read=counted["never_read"],
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
