"""Counts of a tier read off the tallies the database keeps (memories.models.BandTally,
TagTally, and for the list's facets VerifiedTally, TagVerifiedTally and TagPairTally), less
the tier's expired memories, which the tallies hold too: an expired memory leaves the index
and the inline band by the clock, with no write to move a tally.

What these cost follows the expired memories of the tiers asked about and their distinct
tags, not every memory the tiers hold, where a count that read the band index grew with
the tier (bench/results/2026-12-04-figures-from-comments).
"""

import datetime as dt
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from django.db import connection
from django.db.models import QuerySet, Value
from django.db.models.functions import Lower

from memories import engine
from memories.engine.sql import NEVER_READ
from memories.engine.tables import (
    BAND_TALLY,
    DANGLING_TALLY,
    DANGLING_TARGET,
    DANGLING_TOTAL,
    MEMORY_TABLE,
    TAG_PAIR_TALLY,
    TAG_TABLE,
    TAG_TALLY,
    TAG_VERIFIED_TALLY,
    VERIFIED_TALLY,
)
from memories.models import Load, Memory, TagTally
from memories.reads.filters import SPARSE, MemoryFilters
from memories.reads.rows import db_time
from memories.rules import fields as memory_fields
from memories.rules import reach
from memories.rules.tiers import ANY_TIER


@dataclass(frozen=True)
class TierTally:
    """A tier's memories per load, every one and the expired ones."""

    memories: dict[str, int]
    expired: dict[str, int]

    def in_force(self, load: str) -> int:
        return self.memories.get(load, 0) - self.expired.get(load, 0)

    @property
    def expired_total(self) -> int:
        return sum(self.expired.values())


def tier_tallies(tiers, now: dt.datetime) -> dict[int, TierTally]:
    """Each tier's TierTally, in one statement however many tiers: the tallies' memories per
    load and, beside them, the expired ones counted off their index.

    Written out rather than as a union of querysets: every view of a band asks, and building
    the union's SQL cost more than running it. A row a tier, its loads side by side: grouped
    by tier alone, the expired are counted in the expiry index's order, where grouping them
    by load too sorted them first, nearly twice as long
    (bench/results/2026-12-04-figures-from-comments)."""
    loads = Load.values
    marks = ", ".join(["%s"] * len(tiers))
    tallied = ", ".join(
        ["CAST(SUM(CASE WHEN load = %s THEN memories ELSE 0 END) AS BIGINT)"] * len(loads)
    )
    counted = ", ".join(["SUM(CASE WHEN load = %s THEN 1 ELSE 0 END)"] * len(loads))
    counts = {True: {}, False: {}}
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT tier, 0, {tallied} FROM {BAND_TALLY} "
            f"WHERE tier IN ({marks}) GROUP BY tier UNION ALL "
            f"SELECT tier, 1, {counted} FROM {MEMORY_TABLE} "
            f"WHERE {_expired_sql()} AND tier IN ({marks}) GROUP BY tier",
            [*loads, *tiers, *loads, db_time(now), *tiers],
        )
        for tier, expired, *per_load in cursor.fetchall():
            counts[bool(expired)][tier] = {
                load: n for load, n in zip(loads, per_load, strict=True) if n
            }
    return {
        tier: TierTally(counts[False].get(tier, {}), counts[True].get(tier, {})) for tier in tiers
    }


def _expired_sql() -> str:
    # Declared sparse, the condition is read off memory_tier_expiry (tier, expiry, load): the
    # range of a tier's expired memories. Left to guess, the planner reads the whole tier
    # off the band index (bench/results/2026-12-04-figures-from-comments).
    return engine.of(connection).statements.likelihood("expires_at <= %s", SPARSE)


def count(filters, now: dt.datetime) -> int | None:
    """How many memories `filters` (reads.filters.MemoryFilters) admit, from the tallies when
    every condition is one they are kept by (tier or band, load, priority; in force or not), else
    None: the caller counts the rows.

    A tag filter is left to the rows: it finds a tag in any case, and a memory holding two
    spellings of one tag is in two tag tallies. An in-force condition costs the range of the
    expired memories the others admit.
    """
    if filters.unverified:
        return _unverified(filters, now)
    kept_by_bands = ("project", "load", "priority_min", "priority_max", "expired")
    if not filters.asks_only(*kept_by_bands) or filters.expired is True:
        return None
    # A plain statement: the list and /v1 ask on every call, and the aggregate's queryset,
    # built and compiled, cost more than summing the tallies (the more so with a grant's
    # tiers: bench/results/2026-12-05-grants2).
    where, params = [], []
    tier, band = filters.tier_key(), filters.band_tiers()
    if tier is not None:
        where.append("tier = %s")
        params.append(tier)
    if band is not None:
        where.append(f"tier IN ({', '.join(['%s'] * len(band))})" if band else "1 = 0")
        params.extend(band)
    for condition, value in (
        ("load = %s", filters.load or None),
        ("priority >= %s", filters.priority_min),
        ("priority <= %s", filters.priority_max),
    ):
        if value is not None:
            where.append(condition)
            params.append(value)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT CAST(SUM(memories) AS BIGINT) FROM {BAND_TALLY}"
            + (f" WHERE {' AND '.join(where)}" if where else ""),
            params,
        )
        total = cursor.fetchone()[0] or 0
    if filters.expired is False:
        expired = replace(filters, expired=True)
        total -= expired.apply(Memory.objects.all(), now, sparse=True).count()
    return total


def _unverified(filters, now: dt.datetime) -> int | None:
    """The memories of every tier or of one not verified within `filters.unverified`: the
    tier's memories less those the day tallies show verified since the cutoff (None when
    any other condition is asked: the caller counts the rows). The rows counted walked the
    verified index before the cutoff, growing with the store
    (bench/results/2026-12-04-figures-from-comments)."""
    if replace(filters, unverified=None, project=ANY_TIER) != MemoryFilters():
        return None
    try:
        cutoff = now - memory_fields.period(filters.unverified)
    except OverflowError:
        return 0  # a period reaching back before year 1: nothing was verified that long ago
    tier = filters.tier_key()
    batch = Batch()
    bands = add_bands(batch, tier)
    verified_since = add_verified_since(batch, [cutoff], tier)
    found = batch.run()
    total = sum(n for _, _, _, n in found.get(bands, []))
    return total - verified_since(found)[cutoff]


def tag_tallies(tag: str) -> QuerySet:
    """The tallies of `tag` in any spelling: the tag filter finds it in any case."""
    return TagTally.objects.alias(folded=Lower("tag")).filter(folded=Lower(Value(tag)))


def more_tagged_than(filters, bound: int) -> bool:
    """Whether the tag tallies show more than `bound` memories admitted by `filters` when
    their tag, tier and load are all they ask (False: the caller counts the rows).

    A memory holding a tag in several spellings is in the tally of each, so the memories are
    at least the tallies' sum over the number of spellings.
    """
    if not filters.tag or not filters.asks_only("tag", "project", "load"):
        return False
    kept = tag_tallies(filters.tag)
    tier, band = filters.tier_key(), filters.band_tiers()
    if tier is not None:
        kept = kept.filter(tier=tier)
    if band is not None:
        kept = kept.filter(tier__in=band)
    if filters.load:
        kept = kept.filter(load=filters.load)
    spellings: Counter[str] = Counter()
    for tag, memories in kept.values_list("tag", "memories"):
        spellings[tag] += memories
    return bool(spellings) and sum(spellings.values()) > bound * len(spellings)


def priorities() -> list[tuple[int, int, int]]:
    """(tier, priority, memories) of every tier the caller's reach sees, expired memories
    counted (written out, as tier_tallies is: its queryset's SQL cost the budget page four
    times running it)."""
    where, params = _of_tier(None)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT tier, priority, CAST(SUM(memories) AS BIGINT) FROM {BAND_TALLY} "
            f"WHERE 1 = 1{where} GROUP BY tier, priority",
            params,
        )
        return cursor.fetchall()


def left_out_tags(
    tiers, load: str, now: dt.datetime, listed: list[int], *, limit: int = 3
) -> list[tuple[str, int]]:
    """The `limit` most common tags of the tiers' memories of `load` in force, but for those
    `listed`, with their counts."""
    return most_common_tags(left_out_tag_counts(tiers, load, now, listed), limit)


def most_common_tags(counts: Counter, limit: int = 3) -> list[tuple[str, int]]:
    """The `limit` tags counted most, ties by name."""
    ranked = sorted((item for item in counts.items() if item[1] > 0), key=lambda t: (-t[1], t[0]))
    return ranked[:limit]


def left_out_tag_counts(tiers, load: str, now: dt.datetime, listed: list[int]) -> Counter:
    """How many of the tiers' memories of `load` in force, but for those `listed`, carry each
    tag: the tallies less the tags of the expired and the listed.

    One statement: the tallies and, counted negative, the tags to take off (of the listed and
    of the expired, each through the tags' memory index: as one OR, PostgreSQL read every
    tag row), each grouped by tag in the database: the expired grow with the store, and a
    row for each of their tags with them. Written out as tier_tallies is: the union of
    querysets cost more to build than it runs (bench/results/2026-12-04-figures-from-comments).
    """
    marks = ", ".join(["%s"] * len(tiers))
    parts = [
        f"SELECT tag, CAST(SUM(memories) AS BIGINT) FROM {TAG_TALLY} "
        f"WHERE load = %s AND tier IN ({marks}) GROUP BY tag"
    ]
    params = [load, *tiers]
    if listed:
        parts.append(
            f"SELECT tag, -COUNT(*) FROM {TAG_TABLE} "
            f"WHERE memory_id IN ({', '.join(['%s'] * len(listed))}) GROUP BY tag"
        )
        params += listed
    # The expired of `load` as every expired tag of the tiers, read off tag_tier_expiry
    # alone, less those of the other loads' expired memories: a tag row holds no load, and
    # the index load is most of a tier (bench/results/2026-12-04-figures-from-comments).
    parts.append(
        f"SELECT tag, -COUNT(*) FROM {TAG_TABLE} "
        f"WHERE {_expired_sql()} AND tier IN ({marks}) GROUP BY tag"
    )
    parts.append(
        f"SELECT tag, COUNT(*) FROM {TAG_TABLE} WHERE memory_id IN (SELECT id FROM "
        f"{MEMORY_TABLE} WHERE {_expired_sql()} AND tier IN ({marks}) AND load != %s) "
        "GROUP BY tag"
    )
    now_value = db_time(now)
    params += [now_value, *tiers, now_value, *tiers, load]
    counts: Counter[str] = Counter()
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        for tag, n in cursor.fetchall():
            counts[tag] += n
    return counts


# The facets' counts, read in one statement (Batch): plain SQL, the same on either engine.
# Built with the ORM, each of a facets view's dozen counts cost more Python to build than the
# database took to count it off a tally or an index (bench/results/2026-12-01-facets-5).


class Batch:
    """Counts asked of the tallies and indexes, read together by run(): each arm a SELECT of
    (kind, tier, load, name, n) rows, the kind naming what asked for them."""

    def __init__(self):
        self.selects: list[str] = []
        self.params: list = []
        self.spelled: str | None = None  # the tag whose spellings the arms ask for
        self.found: dict[str, list[tuple]] = {}  # what run() read

    def spellings(self, tag: str) -> str:
        """A subquery of the spellings of `tag` the tag tallies hold (the tag filter finds it
        in any case), read once for the statement however many arms ask."""
        if self.spelled not in (None, tag):
            raise ValueError("a batch reads the spellings of one tag")
        self.spelled = tag
        return "SELECT tag FROM spelled"

    def add(self, kind: str, columns: str, rest: str, params=()) -> str:
        """An arm: `columns` (tier, load, name, n), `rest` from FROM on. Returns its kind."""
        self.selects.append(f"SELECT '{kind}', {columns} FROM {rest}")
        self.params.extend(params)
        return kind

    def run(self) -> dict[str, list[tuple]]:
        """Each kind's (tier, load, name, n) rows."""
        found: dict[str, list[tuple]] = {}
        statement, params = " UNION ALL ".join(self.selects), self.params
        if self.spelled is not None:
            # Materialized: each arm's IN list read the tallies anew, a scan of them each.
            statement = (
                f"WITH spelled AS MATERIALIZED (SELECT DISTINCT tag FROM {TAG_TALLY}"
                f" WHERE lower(tag) = lower(%s)) {statement}"
            )
            params = [self.spelled, *params]
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
            for kind, *row in cursor.fetchall():
                found.setdefault(kind, []).append(tuple(row))
        self.found = found
        return found


_NO_TIER, _NO_TEXT = "CAST(NULL AS BIGINT)", "CAST(NULL AS TEXT)"


def _day(moment: dt.datetime) -> dt.date:
    """The day (UTC) the verification tallies file `moment` under."""
    return moment.astimezone(dt.UTC).date()


def _rest_of_day(moment: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """From `moment` to the end of its day (UTC): the part of a day's tally a moment within
    it cuts off, counted by rows."""
    return moment, dt.datetime.combine(_day(moment) + dt.timedelta(days=1), dt.time(), dt.UTC)


def _of_tier(tier: int | None, column: str = "tier") -> tuple[str, list]:
    """The condition that a row is of `tier`, or (None) of every tier the caller's reach
    sees (memories.rules.reach)."""
    if tier is not None:
        return f" AND {column} = %s", [tier]
    seen = reach.current().seen
    if seen is None:
        return "", []
    if not seen:
        return " AND 1 = 0", []
    return f" AND {column} IN ({', '.join(['%s'] * len(seen))})", sorted(seen)


def _db_day(moment: dt.datetime):
    return connection.ops.adapt_datefield_value(_day(moment))


def _carrying(batch: Batch, tag: str) -> str:
    """The condition that the memory `m` carries a spelling of `tag`."""
    spelled = batch.spellings(tag)
    return (
        f" AND EXISTS (SELECT 1 FROM {TAG_TABLE} t"
        f" WHERE t.memory_id = m.id AND t.tag IN ({spelled}))"
    )


def single(found: dict, kind: str) -> int:
    """The count of a one-row arm."""
    return found[kind][0][-1]


def by_tier_and_load(bands) -> tuple[dict[int | None, int], dict[str, int]]:
    """Memories per tier (None: the global one) and per load of (tier, load, _, n) rows."""
    by_tier: dict[int | None, int] = {}
    by_load: dict[str, int] = {}
    for tier, load, _, n in bands:
        if n:
            by_tier[tier or None] = by_tier.get(tier or None, 0) + n
            by_load[load] = by_load.get(load, 0) + n
    return by_tier, by_load


def add_bands(batch: Batch, tier: int | None) -> str:
    """Memories per tier and load, expired ones counted, of `tier` or (None) every tier."""
    where, params = _of_tier(tier)
    return batch.add(
        "bands",
        f"tier, load, {_NO_TEXT}, CAST(SUM(memories) AS BIGINT)",
        f"{BAND_TALLY} WHERE 1 = 1{where} GROUP BY tier, load",
        params,
    )


def add_dangling(batch: Batch, top: int) -> tuple[str, str]:
    """Arms of the references naming no memory of their band over every tier: how many there
    are and how many targets they name, and the `top` most cited targets with their counts.
    Read off the totals' one row (none: nothing dangles) and the first `top` entries of the
    targets' index, which the triggers keep: the cost follows neither the references nor the
    targets. A caller whose reach is narrowed gets them of the tiers it sees, summed off the
    tiers' own tallies."""
    if not reach.current().whole:
        return _add_dangling_within_reach(batch, top)
    totals = batch.add(
        "dangling",
        f"{_NO_TIER}, {_NO_TEXT}, CAST(coalesce(sum(targets), 0) AS TEXT),"
        " CAST(coalesce(sum(refs), 0) AS BIGINT)",
        DANGLING_TOTAL,
    )
    ranked = batch.add(
        "most_cited",
        f"{_NO_TIER}, {_NO_TEXT}, target, refs",
        f"(SELECT target, refs FROM {DANGLING_TARGET} ORDER BY refs DESC, target LIMIT %s)"
        " AS ranked",
        [top],
    )
    return totals, ranked


def _add_dangling_within_reach(batch: Batch, top: int) -> tuple[str, str]:
    where, params = _of_tier(None)
    per_target = (
        f"(SELECT target, SUM(refs) AS refs FROM {DANGLING_TALLY} WHERE refs > 0{where}"
        " GROUP BY target)"
    )
    totals = batch.add(
        "dangling",
        f"{_NO_TIER}, {_NO_TEXT}, CAST(count(*) AS TEXT), CAST(coalesce(sum(refs), 0) AS BIGINT)",
        f"{per_target} AS targets",
        params,
    )
    ranked = batch.add(
        "most_cited",
        f"{_NO_TIER}, {_NO_TEXT}, target, refs",
        f"(SELECT target, refs FROM {per_target} AS targets ORDER BY refs DESC, target LIMIT %s)"
        " AS ranked",
        [*params, top],
    )
    return totals, ranked


def add_tags(batch: Batch, tier: int | None) -> str:
    """Memories per tag as stored, expired ones counted, of `tier` or (None) every tier."""
    where, params = _of_tier(tier)
    return batch.add(
        "tags",
        f"{_NO_TIER}, {_NO_TEXT}, tag, CAST(SUM(memories) AS BIGINT)",
        f"{TAG_TALLY} WHERE 1 = 1{where} GROUP BY tag",
        params,
    )


def add_expired(
    batch: Batch,
    tier: int | None,
    now: dt.datetime,
    *,
    verified_before: dt.datetime | None = None,
    tag: str | None = None,
) -> str:
    """How many memories of `tier` (None: every tier) are expired at `now`, of those verified
    before `verified_before`, or carrying a spelling of `tag` (counted off its rows, which
    keep the memory's expiry), when given."""
    if tag is None:
        where, params = _expired_where(tier, now, "m")
        counted, rows = "count(*)", f"{MEMORY_TABLE} m"
        if verified_before is not None:
            where += " AND m.verified_at < %s"
            params.append(db_time(verified_before))
    else:
        where, params = _expired_where(tier, now, "t")
        where = f"t.tag IN ({batch.spellings(tag)}) AND {where}"
        counted, rows = "count(DISTINCT t.memory_id)", f"{TAG_TABLE} t"
    return batch.add(
        "expired", f"{_NO_TIER}, {_NO_TEXT}, {_NO_TEXT}, {counted}", f"{rows} WHERE {where}", params
    )


def add_verified_since(
    batch: Batch, moments: list[dt.datetime], tier: int | None, tag: str | None = None
) -> Callable[[dict], dict[dt.datetime, int]]:
    """Arms counting how many memories of `tier` (None: every tier), carrying a spelling of
    `tag` when given, were verified at or after each of `moments`: the day tallies after the
    moment's day (a range of days each, between one moment's day and the next), and the rest
    of the moment's day counted by rows. Returns what reads the counts off run()'s rows."""
    days = sorted({_day(moment) for moment in moments}, reverse=True)
    where, params = _of_tier(tier)
    rows_where, rows_params = _of_tier(tier, "m.tier")
    if tag is None:
        tallied = VERIFIED_TALLY
    else:
        tallied = TAG_VERIFIED_TALLY
        where = f" AND tag IN ({batch.spellings(tag)}){where}"
        rows_where = _carrying(batch, tag) + rows_where
    kind = f"days{len(batch.selects)}"
    for number, day in enumerate(days):
        # The days after `day` and not after the previous (later) one.
        later = "" if number == 0 else " AND day <= %s"
        batch.add(
            kind,
            f"{number}, {_NO_TEXT}, {_NO_TEXT}, CAST(SUM(memories) AS BIGINT)",
            f"{tallied} WHERE day > %s{later}{where}",
            [
                connection.ops.adapt_datefield_value(day),
                *([connection.ops.adapt_datefield_value(days[number - 1])] if number else []),
                *params,
            ],
        )
    edge = f"edges{len(batch.selects)}"
    for number, moment in enumerate(moments):
        start, end = _rest_of_day(moment)
        batch.add(
            edge,
            f"{number}, {_NO_TEXT}, {_NO_TEXT}, count(*)",
            f"{MEMORY_TABLE} m WHERE m.verified_at >= %s AND m.verified_at < %s{rows_where}",
            [db_time(start), db_time(end), *rows_params],
        )

    def read(found: dict) -> dict[dt.datetime, int]:
        in_range = {number: n or 0 for number, _, _, n in found.get(kind, [])}
        after, total = {}, 0
        for number, day in enumerate(days):
            total += in_range.get(number, 0)
            after[day] = total
        edges = {number: n for number, _, _, n in found.get(edge, [])}
        return {
            moment: after[_day(moment)] + edges.get(number, 0)
            for number, moment in enumerate(moments)
        }

    return read


def _add_since(
    batch: Batch,
    kind: str,
    cutoff: dt.datetime,
    tier: int | None,
    tallied: tuple[str, str],
    counted: tuple[str, str],
) -> str:
    """Two arms of `kind` counting what was verified at or after `cutoff` in `tier` (None:
    every tier): `tallied`, the (columns, rest) of an arm over a day tally, `{where}` in the
    rest standing for its condition, for the days after the cutoff's; `counted` likewise
    over the memories `m` verified from the cutoff to the end of its day."""
    where, params = _of_tier(tier)
    rows_where, rows_params = _of_tier(tier, "m.tier")
    start, end = _rest_of_day(cutoff)
    columns, rest = tallied
    batch.add(kind, columns, rest.format(where=f"day > %s{where}"), [_db_day(cutoff), *params])
    columns, rest = counted
    verified = f"m.verified_at >= %s AND m.verified_at < %s{rows_where}"
    rest = rest.format(where=verified)
    return batch.add(kind, columns, rest, [db_time(start), db_time(end), *rows_params])


def add_verified_since_per_band(batch: Batch, cutoff: dt.datetime, tier: int | None) -> str:
    """Arms counting how many memories of each tier and load of `tier` (None: every tier)
    were verified at or after `cutoff`. Their rows may repeat a (tier, load): sum them."""
    return _add_since(
        batch,
        "since_bands",
        cutoff,
        tier,
        (
            f"tier, load, {_NO_TEXT}, CAST(SUM(memories) AS BIGINT)",
            f"{VERIFIED_TALLY} WHERE {{where}} GROUP BY tier, load",
        ),
        (
            f"m.tier, m.load, {_NO_TEXT}, count(*)",
            f"{MEMORY_TABLE} m WHERE {{where}} GROUP BY m.tier, m.load",
        ),
    )


def add_tags_verified_since(batch: Batch, cutoff: dt.datetime, tier: int | None) -> str:
    """Arms counting how many memories of `tier` (None: every tier) carrying each tag (as
    stored) were verified at or after `cutoff`. Their rows may repeat a tag: sum them."""
    return _add_since(
        batch,
        "since_tags",
        cutoff,
        tier,
        (
            f"{_NO_TIER}, {_NO_TEXT}, tag, CAST(SUM(memories) AS BIGINT)",
            f"{TAG_VERIFIED_TALLY} WHERE {{where}} GROUP BY tag",
        ),
        (
            f"{_NO_TIER}, {_NO_TEXT}, t.tag, count(*)",
            f"{TAG_TABLE} t WHERE t.memory_id IN"
            f" (SELECT m.id FROM {MEMORY_TABLE} m WHERE {{where}})"
            " GROUP BY t.tag",
        ),
    )


def add_spelled(batch: Batch, tag: str, tier: int | None) -> str:
    """The tag tallies of each spelling of `tag`: (tier, load, tag as stored, memories)."""
    where, params = _of_tier(tier)
    return batch.add(
        "spelled",
        "tier, load, tag, memories",
        f"{TAG_TALLY} WHERE tag IN ({batch.spellings(tag)}){where}",
        params,
    )


def add_tags_with(batch: Batch, tag: str, tier: int | None) -> str:
    """The other tags (as stored) of the memories of `tier` (None: every tier) carrying a
    spelling of `tag`, with how many carry each: the pair tallies. A memory holding two of
    the spellings is counted for each: the caller reads these for a tag in one spelling."""
    spelled = batch.spellings(tag)
    where, params = _of_tier(tier)
    return batch.add(
        "with",
        f"{_NO_TIER}, {_NO_TEXT}, other, CAST(SUM(memories) AS BIGINT)",
        f"{TAG_PAIR_TALLY} WHERE tag IN ({spelled}) AND other NOT IN ({spelled}){where}"
        " GROUP BY other",
        params,
    )


def _expired_where(tier: int | None, now: dt.datetime, rows: str) -> tuple[str, list]:
    """The condition that the row `rows` (a memory's, or a tag's, which keeps its memory's
    tier and expiry) is of `tier` (None: any) and expired at `now`."""
    # Declared sparse, read off the expiry indexes: the planner left to guess tested the
    # expiry of each row another index found.
    expired = engine.of(connection).statements.likelihood(f"{rows}.expires_at <= %s", SPARSE)
    where, params = _of_tier(tier, f"{rows}.tier")
    return f"{expired}{where}", [db_time(now), *params]


def add_expired_by_span(
    batch: Batch, tier: int | None, now: dt.datetime, spans: list[tuple[str, dt.datetime]]
) -> str:
    """The memories of `tier` (None: every tier) expired at `now`, per tier, load and span
    (`spans`: (name, older end) each, newest first, the first's newer end `now`; NULL for a
    memory in none), in one pass over the expiry index, which holds the verification too."""
    buckets = " ".join("WHEN m.verified_at >= %s THEN %s" for _ in spans)
    where, params = _expired_where(tier, now, "m")
    bounds = [value for name, older in spans for value in (db_time(older), name)]
    return batch.add(
        "expired_spans",
        f"m.tier, m.load, CASE WHEN m.verified_at >= %s THEN NULL {buckets} END, count(*)",
        f"{MEMORY_TABLE} m WHERE {where} GROUP BY 2, 3, 4",  # after the kind
        [db_time(now), *bounds, *params],
    )


def add_expired_tags(batch: Batch, tier: int | None, now: dt.datetime) -> str:
    """The tags (as stored) of the memories of `tier` (None: every tier) expired at `now`,
    with how many carry each: the tag rows, which keep their memory's expiry."""
    where, params = _expired_where(tier, now, "t")
    return batch.add(
        "expired_tags",
        f"{_NO_TIER}, {_NO_TEXT}, t.tag, count(*)",
        f"{TAG_TABLE} t WHERE {where} GROUP BY t.tag",
        params,
    )


def add_never_read(batch: Batch, tier: int | None, tag: str | None = None) -> str:
    """How many memories of `tier` (None: every tier), expired ones counted, the agent never
    read (the read filter's `never`), or of those carrying a spelling of `tag` when given:
    the band or the tag tallies. A memory holding two spellings of `tag` is counted for
    each: the caller reads these for a tag in one spelling."""
    where, params = _of_tier(tier)
    if tag is None:
        rows = f"{BAND_TALLY} WHERE 1 = 1{where}"
    else:
        rows = f"{TAG_TALLY} WHERE tag IN ({batch.spellings(tag)}){where}"
    return batch.add(
        f"never_read{len(batch.selects)}",
        f"{_NO_TIER}, {_NO_TEXT}, {_NO_TEXT}, CAST(coalesce(SUM(never_read), 0) AS BIGINT)",
        rows,
        params,
    )


def add_never_read_up_to(
    batch: Batch,
    tier: int | None,
    bound: int,
    *,
    expired_at: dt.datetime | None = None,
    verified_before: dt.datetime | None = None,
) -> str:
    """How many memories of `tier` (None: every tier) expired at `expired_at`, or verified
    before `verified_before`, the agent never read, up to `bound` + 1: a range of
    memory_read_tier (read_count, tier, expires_at, load, verified_at), which the tallies
    cannot tell them from. Written out, as the other arms are: the queryset's SQL cost more
    to build than the count (bench/results/2026-12-05-facets)."""
    where, params = _of_tier(tier, "m.tier")
    if expired_at is not None:
        # Over every tier, a range of the index per tier: left to the expiry alone, SQLite
        # stepped every never-read memory's entry.
        if tier is None:
            where += f" AND m.tier IN (SELECT tier FROM {BAND_TALLY})"
        where += " AND m.expires_at <= %s"
        params.append(db_time(expired_at))
    if verified_before is not None:
        where += " AND m.verified_at < %s"
        params.append(db_time(verified_before))
    return batch.add(
        f"never_read{len(batch.selects)}",
        f"{_NO_TIER}, {_NO_TEXT}, {_NO_TEXT}, count(*)",
        f"(SELECT 1 FROM {MEMORY_TABLE} m WHERE m.{NEVER_READ}{where} LIMIT %s) AS bounded",
        [*params, bound + 1],
    )
