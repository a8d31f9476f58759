"""Priority drift: how priorities spread in each tier, and the memories whose read count argues
with their priority.

The seed: everything feels important at write time, so priorities drift downward over a
long-lived store; how often the agent actually reads a memory is the counterweight. A memory
marked important that the agent never opens, or one marked unimportant that it opens again
and again, is a rebalancing suggestion. Inline memories are in front of the agent every turn
and never need a read, so their read count says nothing and they are left out.
"""

import datetime as dt
from dataclasses import dataclass, field

from django.db import connection
from django.utils import timezone

from memories.models import GLOBAL_TIER, Memory
from memories.reads import rows, tallies
from memories.rules import tiers
from memories.rules.fields import DEFAULT_PRIORITY
from projects.models import Project

IMPORTANT_MAX = 2  # priority 0-2: standing rules and key facts
UNIMPORTANT_MIN = 10
OFTEN_READ = 10  # reads
UNREAD_AFTER = dt.timedelta(days=30)  # a memory younger than this has had no chance yet
SUGGESTED_PRIORITY = DEFAULT_PRIORITY
SECTION_LIMIT = 50
COUNT_BOUND = 1000  # a section's count past this reads "1,000+"
MISMATCH_FIELDS = ("id", "name", "project_id", "priority", "created_at", "read_count")


@dataclass
class Histogram:
    """How many memories of one tier hold each priority."""

    project: str | None
    counts: dict[int, int] = field(default_factory=dict)

    @property
    def tier(self) -> str:
        return tiers.label(self.project)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def important_share(self) -> float:
        """The share of the tier at priority 0-2 (the drift the seed warns of shows here)."""
        if not self.total:
            return 0.0
        return sum(n for p, n in self.counts.items() if p <= IMPORTANT_MAX) / self.total

    def to_dict(self) -> dict:
        return {
            "project": self.project,
            "tier": self.tier,
            "total": self.total,
            "counts": {str(priority): n for priority, n in sorted(self.counts.items())},
            "important_share": round(self.important_share, 4),
        }


def priority_histograms(projects=None) -> list[Histogram]:
    """One histogram per tier, the global tier first, then every project by name (two queries;
    one when the caller holds the projects already, in name order)."""
    histograms = {GLOBAL_TIER: Histogram(None)}
    if projects is None:
        projects = Project.objects.order_by("name")
    for project_id, name in ((project.id, project.name) for project in projects):
        histograms[project_id] = Histogram(name)
    for tier, priority, count in tallies.priorities():
        if tier in histograms:  # a tier past the caller's reach is not among the projects
            histograms[tier].counts[priority] = count
    return list(histograms.values())


@dataclass
class Mismatch:
    memory: Memory
    reason: str
    suggested_priority: int


@dataclass
class Mismatches:
    items: list[Mismatch]
    count: int  # at most COUNT_BOUND; `more` says whether there are more
    limit: int
    more: bool = False

    @property
    def count_label(self) -> str:
        return f"{self.count:,}+" if self.more else f"{self.count:,}"


def _mismatches(where: str, params: list, order, describe, limit: int, now) -> Mismatches:
    """The first `limit` memories in force and not inline that match `where` (a condition on
    the memory table's columns), in `order` (memory_read_order's), and their count bounded at
    COUNT_BOUND: the matches grow with the store (a tenth of it never read, at priority 0-2),
    and counting them all grew with the store (bench/results/2026-12-01-pages).

    Plain statements: compiling the two sections' querysets cost the budget page several
    times what running them took (bench/results/2026-12-04-figures-from-comments)."""
    where = (
        f'({rows.M}."expires_at" IS NULL OR {rows.M}."expires_at" > %s) '
        f"AND {rows.M}.\"load\" != 'inline' AND {where}"
    )
    params = [rows.db_time(now), *params]
    page = rows.select(where, params, attnames=MISMATCH_FIELDS, order=order, limit=limit)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT COUNT(*) FROM (SELECT 1 FROM {rows.M} WHERE {where} "
            f"LIMIT {COUNT_BOUND + 1}) AS bounded",
            params,
        )
        (counted,) = cursor.fetchone()
    return Mismatches(
        [Mismatch(memory, describe(memory), SUGGESTED_PRIORITY) for memory in page],
        min(counted, COUNT_BOUND),
        limit,
        more=counted > COUNT_BOUND,
    )


def important_unread(*, limit=SECTION_LIMIT, now=None) -> Mismatches:
    """Memories at priority 0-2, a month old or more, that the agent has never read."""
    now = now or timezone.now()
    return _mismatches(
        f'{rows.M}."read_count" = 0 AND {rows.M}."priority" <= %s AND {rows.M}."created_at" < %s',
        [IMPORTANT_MAX, rows.db_time(now - UNREAD_AFTER)],
        ("priority", "created_at", "id"),
        lambda memory: (
            f"priority {memory.priority} but never read in {(now - memory.created_at).days} days"
        ),
        limit,
        now,
    )


def unimportant_read_often(*, limit=SECTION_LIMIT, now=None) -> Mismatches:
    """Memories at priority 10 or more that the agent has read 10 times or more."""
    now = now or timezone.now()
    return _mismatches(
        f'{rows.M}."priority" >= %s AND {rows.M}."read_count" >= %s',
        [UNIMPORTANT_MIN, OFTEN_READ],
        ("-read_count", "priority", "id"),
        lambda memory: f"priority {memory.priority} but read {memory.read_count} times",
        limit,
        now,
    )
