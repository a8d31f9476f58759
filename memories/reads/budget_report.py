"""The budget report: every band against the inline budget, the largest inline memories, and
each band's index usage (the budget page and /v1/budget)."""

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone

from memories.models import GLOBAL_TIER
from memories.reads import budget
from memories.reads.agent_view import TierReads, agent_view
from memories.rules.budget import budget_bytes
from projects.models import Project


@dataclass(frozen=True)
class IndexUsage:
    """How much of the index's ceilings a band's index spends, and what it lists nowhere."""

    entries: int
    bytes: int
    left_out: int
    search_only: int
    expired: int
    max_entries: int
    max_bytes: int

    def to_dict(self) -> dict:
        return {
            "entries": self.entries,
            "bytes": self.bytes,
            "max_entries": self.max_entries,
            "max_bytes": self.max_bytes,
            "left_out": self.left_out,
            "search_only": self.search_only,
            "expired": self.expired,
        }


@dataclass(frozen=True)
class BandReport:
    """What a session on `project` (None: on no project) is given of the inline budget."""

    project: str | None
    global_bytes: int
    project_bytes: int
    budget_bytes: int
    inline_shown: int
    inline_not_shown: int
    largest: list[dict]
    index: IndexUsage

    @property
    def inline_bytes(self) -> int:
        return self.global_bytes + self.project_bytes

    @property
    def over_budget(self) -> bool:
        return self.inline_bytes > self.budget_bytes

    def to_dict(self) -> dict:
        return {
            "project": self.project,
            "inline_bytes": self.inline_bytes,
            "global_bytes": self.global_bytes,
            "project_bytes": self.project_bytes,
            "budget_bytes": self.budget_bytes,
            "over_budget": self.over_budget,
            "inline_shown": self.inline_shown,
            "inline_not_shown": self.inline_not_shown,
            "largest": self.largest,
            "index": self.index.to_dict(),
        }


@dataclass(frozen=True)
class BudgetReport:
    budget_bytes: int
    bands: list[BandReport]
    largest: list[dict]

    @property
    def fullest(self) -> BandReport:
        """The band a global write is measured against (the global one when no project has
        inline bodies)."""
        return max(self.bands, key=lambda band: band.inline_bytes)

    def to_dict(self) -> dict:
        return {
            "budget_bytes": self.budget_bytes,
            "global_write_bytes": self.fullest.inline_bytes,
            "bands": [band.to_dict() for band in self.bands],
            "largest": self.largest,
        }


def budget_report(
    now: dt.datetime | None = None, *, largest: int = 10, reads=None, projects=None
) -> BudgetReport:
    """The inline band of the global tier and of each project (with the global tier beside
    it) against the budget, the largest inline memories, and each band's index usage.

    `reads` (agent_view.TierReads) shares what is read of each tier with a view built beside;
    `projects`, in name order, saves reading them when the caller holds them already.
    """
    now = now or timezone.now()
    totals = budget.inline_totals(now)
    limit = budget_bytes()
    bands = []
    reads = reads or TierReads(now)  # the global tier, read once for every band
    if projects is None:
        projects = list(Project.objects.order_by("name"))
    reads.know_projects(projects)
    every_tier = [GLOBAL_TIER, *(project.id for project in projects)]
    reads.read_tallies(every_tier)
    reads.read_tiers(every_tier)
    for project in [None, *projects]:
        tier = GLOBAL_TIER if project is None else project.id
        view = agent_view(project, now, reads=reads)
        bands.append(
            BandReport(
                project=None if project is None else project.name,
                global_bytes=totals.get(GLOBAL_TIER, 0),
                project_bytes=0 if project is None else totals.get(tier, 0),
                budget_bytes=limit,
                inline_shown=len(view.inline_shown),
                inline_not_shown=len(view.inline_unshown.lines) + view.inline_unshown.left_out,
                largest=budget.largest_of(
                    [m for t in {GLOBAL_TIER, tier} for m in reads.inline(t)], 5
                ),
                index=IndexUsage(
                    entries=len(view.index.lines),
                    bytes=view.index.bytes,
                    left_out=view.index.left_out,
                    search_only=view.search_only,
                    expired=view.expired,
                    max_entries=settings.MEMADMIN_INDEX_MAX_ENTRIES,
                    max_bytes=settings.MEMADMIN_INDEX_MAX_BYTES,
                ),
            )
        )
    return BudgetReport(
        budget_bytes=limit,
        bands=bands,
        largest=budget.largest_of(
            [m for band in every_tier for m in reads.inline(band)],
            largest,
        ),
    )
