"""The inline budget's reads: the inline bytes in force per tier, the bands, the largest
inline memories, and the refusal of a write that would take a band past the budget (its
arithmetic in memories.rules.budget).
"""

import datetime as dt

from django.db import connection

from memories import engine
from memories.reads.rows import db_time
from memories.rules import reach
from memories.rules.budget import (
    Band,
    InlineContribution,
    breach,
    budget_bytes,
    growth,
    refusal_sentence,
)
from memories.rules.errors import InlineBudgetExceeded
from memories.rules.tiers import GLOBAL_TIER
from projects.models import Project


def inline_totals(now: dt.datetime) -> dict[int, int]:
    """Inline bytes in force per tier key (0 the global tier, else a project's id): the
    tallies (memories.models.BandTally) less the bodies of the expired inline memories, in
    one statement (the write door asks on every write)."""
    statements = engine.of(connection).statements
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tier, CAST(SUM(body_bytes) AS BIGINT) FROM memories_bandtally "
            "WHERE load = 'inline' GROUP BY tier UNION ALL "
            f"SELECT tier, -CAST(SUM({statements.byte_length('body')}) AS BIGINT) "
            "FROM memories_memory WHERE load = 'inline' AND expires_at <= %s GROUP BY tier",
            [db_time(now)],
        )
        totals: dict[int, int] = {}
        for tier, size in cursor.fetchall():
            totals[tier] = totals.get(tier, 0) + size
    return {tier: size for tier, size in totals.items() if size}


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


# What a budget refusal names in place of what lies past the caller's grants.
OUTSIDE_REACH = "a memory outside your reach"
OUTSIDE_PROJECT = "a project outside your reach"


def largest_inline(tiers, now, *, limit=3, replacing=(), adding=()) -> list[dict]:
    """The largest inline memories of the tiers, as they would stand after a change."""
    skip = {c.memory_id for c in replacing if c.memory_id is not None}
    placeholders = ", ".join(["%s"] * len(tiers))
    statements = engine.of(connection).statements
    # Through the band index (load, tier): with every tier in the list the planner would
    # rather read the whole store through the expiry index
    # (bench/results/2026-12-04-figures-from-comments).
    expires_at = statements.unindexed("m.expires_at")
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT m.id, m.name, p.name, {statements.byte_length('m.body')} AS size, m.tier "
            "FROM memories_memory m LEFT JOIN projects_project p ON p.id = m.project_id "
            f"WHERE m.load = 'inline' AND m.tier IN ({placeholders}) AND m.body != '' "
            f"AND ({expires_at} IS NULL OR {expires_at} > %s) "
            "ORDER BY size DESC LIMIT %s",
            [*tiers, db_time(now), limit + len(skip)],
        )
        held = reach.current()
        rows = [
            {"name": name, "project": project, "bytes": size}
            if held.sees(tier)
            else {"name": OUTSIDE_REACH, "project": None, "bytes": size}
            for memory_id, name, project, size, tier in cursor.fetchall()
            if memory_id not in skip
        ]
    rows += [
        {"name": c.name, "project": c.project, "bytes": c.bytes}
        for c in adding
        if c.bytes and c.tier in tiers
    ]
    rows.sort(key=lambda row: -row["bytes"])
    return rows[:limit]


def largest_of(memories, limit: int) -> list[dict]:
    """largest_inline's rows over inline bodies already read (in force, not empty)."""
    ranked = sorted(((m.body_bytes, m.id, m) for m in memories), key=lambda t: (-t[0], t[1]))
    return [
        {"name": m.name, "project": m.project_name, "bytes": size} for size, _, m in ranked[:limit]
    ]


def refuse_if_past_budget(
    before: list[InlineContribution], after: list[InlineContribution], now: dt.datetime
) -> None:
    """Refuse a change that takes any band it touches past the budget and makes it larger
    (rules.budget.breach), naming the largest inline memories as they would stand."""
    if all(bytes_added <= 0 for bytes_added in growth(before, after).values()):
        return  # the bands' totals are not read: most writes spend no inline bytes
    budget = budget_bytes()
    found = breach(inline_totals(now), before, after, budget)
    if found is None:
        return
    largest = largest_inline(found.tiers, now, replacing=before, adding=after)
    band_tier = found.tiers[-1]
    if band_tier == GLOBAL_TIER:
        band = None
    elif reach.current().sees(band_tier):
        band = Project.objects.get(id=band_tier).name
    else:
        # A global write fills the fullest project's band too, which may lie past the
        # writer's grants: its size is told, never its name.
        band = OUTSIDE_PROJECT
    raise InlineBudgetExceeded(
        refusal_sentence(found.total, budget, largest, band=band, was=found.was),
        total_bytes=found.total,
        budget_bytes=budget,
        largest=largest,
        band=band,
    )
