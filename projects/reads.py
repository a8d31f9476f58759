from dataclasses import dataclass

from django.db.models import Count, QuerySet

from memories.models import GLOBAL_TIER, Memory
from memories.reads import budget
from memories.rules import reach
from projects.models import Project


def projects() -> QuerySet:
    """Every project the caller's reach sees, with its memory_count, by name."""
    return Project.objects.annotate(memory_count=Count("memories")).order_by("name")


@dataclass
class TierUsage:
    project: Project | None  # None: the global tier
    memory_count: int
    inline_bytes: int  # the tier's own inline bodies in force
    band_bytes: int  # what a session on it reads inline: the global tier's and its own


def tier_usage(now) -> list[TierUsage]:
    """Every tier the caller's reach sees, global first, with its memory count and inline
    bytes (three queries)."""
    totals = budget.inline_totals(now)
    global_bytes = totals.get(GLOBAL_TIER, 0)
    rows = []
    if reach.current().sees(GLOBAL_TIER):
        count = Memory.objects.filter(tier=GLOBAL_TIER).count()
        rows.append(TierUsage(None, count, global_bytes, global_bytes))
    for project in projects():
        own = totals.get(project.id, 0)
        rows.append(TierUsage(project, project.memory_count, own, global_bytes + own))
    return rows
