"""The inline budget's arithmetic: what a memory spends, which tiers a band adds up, when a
change takes a band past the budget, and the sentence refusing it.

Counted in UTF-8 bytes of body text over inline memories in force (not expired, non-empty
body). A project's band is the global inline bodies plus the project's; a global write is
measured against the global bodies plus the fullest project's, since a global memory is in
every project's band. The sums themselves are read by memories.reads.budget.
"""

from dataclasses import dataclass

from django.conf import settings

from memories.rules.tiers import GLOBAL_TIER


def budget_bytes() -> int:
    return settings.MEMADMIN_INLINE_MAX_BYTES


def kib(size: int) -> str:
    return f"{size / 1024:.1f} KiB"


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

    @classmethod
    def of_memory(cls, memory, now) -> "InlineContribution":
        """What a stored memory spends as it stands. Its tier is read from `project_id`, as
        the generated `tier` column is, so a memory loaded without that column needs no
        query."""
        return cls.of(
            memory_id=memory.id,
            name=memory.name,
            project=memory.project_name,
            tier=memory.project_id or GLOBAL_TIER,
            load=memory.load,
            body=memory.body,
            expires_at=memory.expires_at,
            now=now,
        )


@dataclass(frozen=True)
class Breach:
    """A band a change takes past the budget: the tiers it adds up and their new total."""

    tiers: tuple[int, ...]
    total: int
    was: int  # the band's total before the change


def growth(before: list[InlineContribution], after: list[InlineContribution]) -> dict[int, int]:
    """The inline bytes each tier gains (or loses) when `after` replaces `before`. A change
    that adds bytes to no tier can take no band past the budget, whatever the totals."""
    added: dict[int, int] = {}
    for contribution in before:
        added[contribution.tier] = added.get(contribution.tier, 0) - contribution.bytes
    for contribution in after:
        added[contribution.tier] = added.get(contribution.tier, 0) + contribution.bytes
    return added


def breach(
    totals: dict[int, int],
    before: list[InlineContribution],
    after: list[InlineContribution],
    budget: int,
) -> Breach | None:
    """The first band `before` replaced by `after` takes past the budget and makes larger.

    A change that shrinks a band, or leaves its size alone, is no breach, so a store over
    the budget can be brought back within it one memory at a time.
    """
    changed = dict(totals)
    for tier, bytes_added in growth(before, after).items():
        changed[tier] = changed.get(tier, 0) + bytes_added
    for tier in sorted({c.tier for c in (*before, *after)}):
        grown_to = band_total(changed, tier)
        if grown_to > budget and grown_to > band_total(totals, tier):
            return Breach(band_tiers(changed, tier), grown_to, band_total(totals, tier))
    return None


def band_words(project: str | None) -> str:
    """A band in a sentence: whose session reads it and the tiers it adds up."""
    return "the global band" if project is None else f"the {project} band (global + {project})"


def refusal_sentence(
    total: int, budget: int, largest: list[dict], *, band: str | None, was: int
) -> str:
    """The seed's words, naming the band a change would take past the budget (`band`: the
    project whose session reads it, None for a session on no project): the total, the
    budget, the band's total before the change (`was`) and what it adds, the largest inline
    memories, the remedy.

    The remedy names those of the largest that hold more than the band is over, whose
    shortening alone can bring it back; when none can, it says how far over the band is and
    names them all: shortening a memory of 0.1 KiB is no remedy for a band 2 KiB over.
    """
    over = total - budget
    enough = [row for row in largest if row["bytes"] >= over]
    names = [f"'{row['name']}' ({kib(row['bytes'])})" for row in enough or largest]
    if not names:
        remedy = "shorten one of them, or set `load: index` on one that is not a standing rule"
    elif enough:
        shorten = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
        remedy = f"shorten {shorten}, or set `load: index` on one that is not a standing rule"
    else:
        together = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        remedy = (
            f"it is {kib(over)} over, more than any one of them holds: shorten {together}, or "
            "set `load: index` on those that are not standing rules"
        )
    return (
        f"inline memories would total {kib(total)} against the {kib(budget)} inline budget "
        f"(`MEMADMIN_INLINE_MAX_BYTES`) in {band_words(band)}; {remedy}"
        f" ({_before(total, budget, was)})"
    )


def _before(total: int, budget: int, was: int) -> str:
    """Where the band stood before the change, and what the change adds to it."""
    added = total - was
    grows = f"{added:,} bytes" if added < 1024 else kib(added)
    over = ", already over the budget" if was > budget else ""
    return f"the band held {kib(was)} before this change{over}; this change adds {grows}"
