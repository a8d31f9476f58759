"""The overview: memories per tier and what needs attention, each a link to the list."""

from dataclasses import dataclass

from django.db.models import Count
from django.utils import timezone

from memories.models import GLOBAL_TIER, Memory
from memories.reads import budget
from memories.reads.backlinks import dangling_references
from memories.rules import fields
from memories.rules.budget import Band
from projects.models import Project


@dataclass
class TierCount:
    project: str | None  # None: the global tier
    count: int


@dataclass
class Overview:
    total: int
    tiers: list[TierCount]
    expired: int
    unverified: int
    unverified_period: str
    dangling_references: int
    dangling_targets: list[tuple[str, int]]  # the most cited dangling targets, with counts
    dangling_target_count: int
    bands: list[Band]

    @property
    def bands_over(self) -> list[Band]:
        return [band for band in self.bands if band.over]


def overview(now=None, *, unverified: str = "90d", top: int = 10) -> Overview:
    """The figures of the dashboard's front page, each one a filter of the list."""
    now = now or timezone.now()
    cutoff = now - fields.period(unverified)
    # One count each, so that each reads an index rather than every row and its body.
    memories = Memory.objects.all()
    total = memories.count()
    tiers = [TierCount(None, memories.filter(tier=GLOBAL_TIER).count())]
    tiers += [
        TierCount(name, count)
        for name, count in Project.objects.annotate(n=Count("memories"))
        .order_by("name")
        .values_list("name", "n")
    ]
    cited = list(dangling_references().order_by().values_list("target").annotate(n=Count("id")))
    cited.sort(key=lambda row: (-row[1], row[0]))
    return Overview(
        total=total,
        tiers=tiers,
        expired=memories.filter(expires_at__lte=now).count(),
        unverified=memories.filter(verified_at__lt=cutoff).count(),
        unverified_period=unverified,
        dangling_references=sum(n for _, n in cited),
        dangling_targets=cited[:top],
        dangling_target_count=len(cited),
        bands=budget.bands(now),
    )
