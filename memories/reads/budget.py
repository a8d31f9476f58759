"""The inline budget: what the inline band of each tier spends, and the refusal of a write
that would take a band past it.

Counted in UTF-8 bytes of body text over inline memories in force (not expired, non-empty
body). A project's band is the global inline bodies plus the project's; a global write is
measured against the global bodies plus the fullest project's, since a global memory is in
every project's band.
"""

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.db import connection

from memories import engine
from memories.models import GLOBAL_TIER
from memories.rules.errors import InlineBudgetExceeded
from projects.models import Project


def _in_force_inline(statements, load: str = "load") -> str:
    """The condition on a memory whose body is inline and in force (`load`: its column).

    Declared likely: most memories are in force. Left to guess, the planner reads the whole
    store through the expiry index as two ranges (114 ms at 100,000 memories, against 0.5 ms).
    """
    in_force = statements.likelihood("(expires_at IS NULL OR expires_at > %s)", 0.9)
    return f"{load} = 'inline' AND body != '' AND {in_force}"


def budget_bytes() -> int:
    return settings.MEMADMIN_INLINE_MAX_BYTES


def kib(size: int) -> str:
    return f"{size / 1024:.1f} KiB"


def _db_time(moment: dt.datetime) -> str:
    return connection.ops.adapt_datetimefield_value(moment)


def inline_totals(now: dt.datetime) -> dict[int, int]:
    """Inline bytes in force per tier key (0 the global tier, else a project's id)."""
    statements = engine.of(connection).statements
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT tier, SUM({statements.byte_length('body')}) FROM memories_memory "
            f"WHERE {_in_force_inline(statements)} GROUP BY tier",
            [_db_time(now)],
        )
        return dict(cursor.fetchall())


def band_tiers(totals: dict[int, int], tier: int) -> tuple[int, ...]:
    """The tiers whose inline bodies a write to `tier` is measured against."""
    if tier != GLOBAL_TIER:
        return (GLOBAL_TIER, tier)
    projects = {t: size for t, size in totals.items() if t != GLOBAL_TIER}
    if not projects:
        return (GLOBAL_TIER,)
    fullest = max(projects, key=lambda t: (projects[t], -t))
    return (GLOBAL_TIER, fullest)


def band_total(totals: dict[int, int], tier: int) -> int:
    return sum(totals.get(t, 0) for t in band_tiers(totals, tier))


@dataclass(frozen=True)
class Band:
    """The inline bodies one session reads: the global tier's, plus its project's if any."""

    project: str | None  # None: a session on no project
    tier: int
    bytes: int
    budget: int

    @property
    def over(self) -> bool:
        return self.bytes > self.budget

    @property
    def percent(self) -> float:
        return 100 * self.bytes / self.budget


def bands(now: dt.datetime, projects: list[Project] | None = None) -> list[Band]:
    """Every band's inline bytes in force: the global tier alone, then each project's.

    `projects`, in name order, saves a query when the caller holds them already.
    """
    totals = inline_totals(now)
    limit = budget_bytes()
    global_bytes = totals.get(GLOBAL_TIER, 0)
    if projects is None:
        projects = Project.objects.order_by("name")
    found = [Band(None, GLOBAL_TIER, global_bytes, limit)]
    for project in projects:
        found.append(
            Band(project.name, project.id, global_bytes + totals.get(project.id, 0), limit)
        )
    return found


@dataclass(frozen=True)
class InlineContribution:
    """What one memory spends of its tier's inline band (0 when not inline or not in force)."""

    memory_id: int | None
    name: str
    project: str | None
    tier: int
    bytes: int

    @classmethod
    def of(cls, *, memory_id, name, project, tier, load, body, expires_at, now):
        in_force = load == "inline" and body != "" and (expires_at is None or expires_at > now)
        size = len(body.encode("utf-8")) if in_force else 0
        return cls(memory_id, name, project, tier, size)


def largest_inline(tiers, now, *, limit=3, replacing=(), adding=()) -> list[dict]:
    """The largest inline memories of the tiers, as they would stand after a change."""
    skip = {c.memory_id for c in replacing if c.memory_id is not None}
    placeholders = ", ".join(["%s"] * len(tiers))
    statements = engine.of(connection).statements
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT m.id, m.name, p.name, {statements.byte_length('m.body')} AS size "
            "FROM memories_memory m LEFT JOIN projects_project p ON p.id = m.project_id "
            f"WHERE m.tier IN ({placeholders}) AND {_in_force_inline(statements, 'm.load')} "
            "ORDER BY size DESC LIMIT %s",
            [*tiers, _db_time(now), limit + len(skip)],
        )
        rows = [
            {"name": name, "project": project, "bytes": size}
            for memory_id, name, project, size in cursor.fetchall()
            if memory_id not in skip
        ]
    rows += [
        {"name": c.name, "project": c.project, "bytes": c.bytes}
        for c in adding
        if c.bytes and c.tier in tiers
    ]
    rows.sort(key=lambda row: -row["bytes"])
    return rows[:limit]


def refusal_sentence(total: int, budget: int, largest: list[dict]) -> str:
    """The seed's words: the total, the budget, the largest inline memories, the remedy."""
    names = [f"'{row['name']}' ({kib(row['bytes'])})" for row in largest]
    if len(names) > 1:
        shorten = ", ".join(names[:-1]) + " or " + names[-1]
    else:
        shorten = names[0] if names else "one of them"
    return (
        f"inline memories would total {kib(total)} against the {kib(budget)} inline budget "
        f"(`MEMADMIN_INLINE_MAX_BYTES`); shorten {shorten}, or set `load: index` on one "
        "that is not a standing rule"
    )


def refuse_if_past_budget(
    before: list[InlineContribution], after: list[InlineContribution], now: dt.datetime
) -> None:
    """Refuse a change that takes any band it touches past the budget and makes it larger.

    A change that shrinks a band, or leaves its size alone, always goes through, so a store
    over the budget can be brought back within it one memory at a time.
    """
    budget = budget_bytes()
    totals = inline_totals(now)
    changed = dict(totals)
    for contribution in before:
        changed[contribution.tier] = changed.get(contribution.tier, 0) - contribution.bytes
    for contribution in after:
        changed[contribution.tier] = changed.get(contribution.tier, 0) + contribution.bytes
    touched = sorted({c.tier for c in (*before, *after)})
    for tier in touched:
        grown_to = band_total(changed, tier)
        if grown_to > budget and grown_to > band_total(totals, tier):
            largest = largest_inline(band_tiers(changed, tier), now, replacing=before, adding=after)
            raise InlineBudgetExceeded(
                refusal_sentence(grown_to, budget, largest),
                total_bytes=grown_to,
                budget_bytes=budget,
                largest=largest,
            )
