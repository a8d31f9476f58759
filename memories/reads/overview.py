"""The overview: memories per tier and what needs attention, each a link to the list."""

from dataclasses import dataclass

from django.utils import timezone

from memories.reads import budget, tallies
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
    """The figures of the dashboard's front page, each one a filter of the list.

    One statement over the tallies and the expiry index: what it costs follows the tiers and
    the expired memories, not the memories, their references or the targets they leave
    dangling (it counted each reference, then each dangling target:
    bench/results/2026-12-04-figures-from-comments; bench/results/2026-12-02-dangling-10).
    """
    now = now or timezone.now()
    cutoff = now - fields.period(unverified)
    batch = tallies.Batch()
    bands = tallies.add_bands(batch, None)
    expired = tallies.add_expired(batch, None, now)
    verified_since = tallies.add_verified_since(batch, [cutoff], None)
    dangling, most_cited = tallies.add_dangling(batch, top)
    found = batch.run()
    per_tier, _ = tallies.by_tier_and_load(found.get(bands, []))
    total = sum(per_tier.values())
    tiers = [TierCount(None, per_tier.get(None, 0))]
    tiers += [
        TierCount(name, per_tier.get(project_id, 0))
        for project_id, name in Project.objects.order_by("name").values_list("id", "name")
    ]
    (_, _, targets, references), *_ = found[dangling]
    return Overview(
        total=total,
        tiers=tiers,
        expired=tallies.single(found, expired),
        unverified=total - verified_since(found)[cutoff],
        unverified_period=unverified,
        dangling_references=references,
        dangling_targets=[(target, n) for _, _, target, n in found.get(most_cited, [])],
        dangling_target_count=int(targets),
        bands=budget.bands(now),
    )
