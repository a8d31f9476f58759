"""Counts of a tier read off the tallies the database keeps (memories.models.BandTally and
TagTally), less the tier's expired memories, which the tallies hold too: an expired memory
leaves the index and the inline band by the clock, with no write to move a tally.

What these cost follows the expired memories of the tiers asked about and their distinct
tags, not every memory the tiers hold: a count that read the band index took 2 ms a tier at
100,000 memories, the tags of a band's index 37 ms.
"""

import datetime as dt
from collections import Counter
from dataclasses import dataclass, replace

from django.db import connection
from django.db.models import BigIntegerField, QuerySet, Sum, Value
from django.db.models.functions import Cast, Lower

from memories import engine
from memories.models import BandTally, Memory, TagTally
from memories.reads.filters import SPARSE


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
    the union's SQL cost more than running it (0.7 ms against 0.2 on PostgreSQL)."""
    counts = {True: {tier: {} for tier in tiers}, False: {tier: {} for tier in tiers}}
    marks = ", ".join(["%s"] * len(tiers))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tier, load, CAST(SUM(memories) AS BIGINT), 0 FROM memories_bandtally "
            f"WHERE tier IN ({marks}) GROUP BY tier, load UNION ALL "
            "SELECT tier, load, COUNT(*), 1 FROM memories_memory "
            f"WHERE {_expired_sql()} AND tier IN ({marks}) GROUP BY tier, load",
            [*tiers, _db_time(now), *tiers],
        )
        for tier, load, n, expired in cursor.fetchall():
            counts[bool(expired)][tier][load] = n
    return {tier: TierTally(counts[False][tier], counts[True][tier]) for tier in tiers}


def _expired_sql() -> str:
    # Declared sparse, the condition is read off memory_tier_expiry (tier, expiry, load): the
    # range of a tier's expired memories. Left to guess, the planner reads the whole tier
    # off the band index (2.2 ms against 0.1 ms for a tier of 30,000 memories).
    return engine.of(connection).statements.likelihood("expires_at <= %s", SPARSE)


def _db_time(moment: dt.datetime):
    return connection.ops.adapt_datetimefield_value(moment)


def _sum(column: str) -> Cast:
    """A whole-number sum (PostgreSQL sums a bigint column as numeric, a Decimal in Python)."""
    return Cast(Sum(column), BigIntegerField())


def count(filters, now: dt.datetime) -> int | None:
    """How many memories `filters` (reads.filters.MemoryFilters) admit, from the tallies when
    every condition is one they are kept by (tier, load, priority; in force or not), else
    None: the caller counts the rows.

    A tag filter is left to the rows: it finds a tag in any case, and a memory holding two
    spellings of one tag is in two tag tallies. An in-force condition costs the range of the
    expired memories the others admit.
    """
    if filters.unverified or filters.referencing or filters.tag or filters.expired is True:
        return None
    kept = BandTally.objects.all()
    tier = filters.tier_key()
    if tier is not None:
        kept = kept.filter(tier=tier)
    if filters.load:
        kept = kept.filter(load=filters.load)
    if filters.priority_min is not None:
        kept = kept.filter(priority__gte=filters.priority_min)
    if filters.priority_max is not None:
        kept = kept.filter(priority__lte=filters.priority_max)
    total = kept.aggregate(n=_sum("memories"))["n"] or 0
    if filters.expired is False:
        expired = replace(filters, expired=True)
        total -= expired.apply(Memory.objects.all(), now, sparse=True).count()
    return total


def tag_tallies(tag: str) -> QuerySet:
    """The tallies of `tag` in any spelling: the tag filter finds it in any case."""
    return TagTally.objects.alias(folded=Lower("tag")).filter(folded=Lower(Value(tag)))


def more_tagged_than(filters, bound: int) -> bool:
    """Whether the tag tallies show more than `bound` memories admitted by `filters` when
    their tag, tier and load are all they ask (False: the caller counts the rows).

    A memory holding a tag in several spellings is in the tally of each, so the memories are
    at least the tallies' sum over the number of spellings.
    """
    if not filters.tag or filters.unverified or filters.referencing:
        return False
    if filters.expired is not None or (filters.priority_min, filters.priority_max) != (None,) * 2:
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
    """(tier, priority, memories) of every tier, expired memories counted."""
    return list(
        BandTally.objects.order_by().values_list("tier", "priority").annotate(n=_sum("memories"))
    )


def left_out_tags(
    tiers, load: str, now: dt.datetime, listed: list[int], *, limit: int = 3
) -> list[tuple[str, int]]:
    """The `limit` most common tags of the tiers' memories of `load` in force, but for those
    `listed`, with their counts: the tallies less the tags of the expired and the listed.

    One statement: the tallies and, counted negative, the tags to take off (of the listed and
    of the expired, each through the tags' memory index: as one OR, PostgreSQL read every
    tag row, 18 ms at 100,000 memories), each grouped by tag in the database: the expired
    grow with the store, and a row for each of their tags cost 25 ms at 1,000,000. Written
    out as tier_tallies is: the union of querysets cost 1.2 ms to build, more than it runs.
    """
    marks = ", ".join(["%s"] * len(tiers))
    parts = [
        "SELECT tag, CAST(SUM(memories) AS BIGINT) FROM memories_tagtally "
        f"WHERE load = %s AND tier IN ({marks}) GROUP BY tag"
    ]
    params = [load, *tiers]
    if listed:
        parts.append(
            "SELECT tag, -COUNT(*) FROM memories_tag "
            f"WHERE memory_id IN ({', '.join(['%s'] * len(listed))}) GROUP BY tag"
        )
        params += listed
    parts.append(
        "SELECT tag, -COUNT(*) FROM memories_tag WHERE memory_id IN (SELECT id FROM "
        f"memories_memory WHERE {_expired_sql()} AND tier IN ({marks}) AND load = %s) "
        "GROUP BY tag"
    )
    params += [_db_time(now), *tiers, load]
    counts: Counter[str] = Counter()
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        for tag, n in cursor.fetchall():
            counts[tag] += n
    ranked = sorted((item for item in counts.items() if item[1] > 0), key=lambda t: (-t[1], t[0]))
    return ranked[:limit]


def tier_loads(tier: int | None) -> dict[tuple[int, str], int]:
    """Memories per (tier, load), expired ones counted, of `tier` or (None) of every tier."""
    kept = BandTally.objects.all() if tier is None else BandTally.objects.filter(tier=tier)
    rows = kept.order_by().values_list("tier", "load").annotate(n=_sum("memories"))
    return {(row_tier, load): n for row_tier, load, n in rows}


def tags(tier: int | None) -> list[tuple[str, int]]:
    """(tag as stored, memories carrying it) of `tier` or (None) of every tier, expired ones
    counted."""
    kept = TagTally.objects.all() if tier is None else TagTally.objects.filter(tier=tier)
    return list(kept.order_by().values_list("tag").annotate(n=_sum("memories")))
