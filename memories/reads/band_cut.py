"""The budget report's view of one band: where the inline cut line falls and why, which
memories fall off the index's end, in order, and what the index footer says about them.

Built on agent_view, which decides what the agent is given; this module only explains it.
"""

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone

from memories.reads.agent_view import (
    FIRST_READ,
    AgentView,
    Entry,
    TierReads,
    agent_view,
    band_tiers,
)
from memories.rules import budget, tiers

FALL_OFF_SHOWN = 50
CUT_SHOWN = 100  # rows of the cut table; past them, the rest in one sentence
LARGEST_SHOWN = 10


def size(n: int) -> str:
    """Bytes in words: small sizes exactly, the rest in KiB as the budget sentences give them."""
    return f"{n:,} bytes" if n < 1024 else budget.kib(n)


@dataclass
class CutEntry:
    """One inline body in force, in index order, and whether the agent gets it in full."""

    memory: Entry
    bytes: int
    spent_before: int
    shown: bool
    budget_bytes: int

    @property
    def reason(self) -> str:
        if self.shown:
            return (
                f"given in full: {size(self.spent_before + self.bytes)} of the "
                f"{size(self.budget_bytes)} budget spent with it"
            )
        left = max(self.budget_bytes - self.spent_before, 0)
        return (
            f"named, not given: it needs {size(self.bytes)} and {size(left)} of the budget "
            "was left when its turn came in index order"
        )


@dataclass
class BandDetail:
    project: str | None
    view: AgentView
    cut: list[CutEntry]
    fall_off: list[Entry]  # the first FALL_OFF_SHOWN the index leaves out, in index order
    fall_off_reason: str
    largest: list[CutEntry]  # the largest inline bodies in force, largest first

    @property
    def tier(self) -> str:
        return tiers.label(self.project)

    @property
    def cut_at(self) -> int | None:
        """Where the cut line falls: the position of the first body not given in full."""
        return next((n for n, entry in enumerate(self.cut) if not entry.shown), None)

    @property
    def cut_shown(self) -> list[CutEntry]:
        """The first CUT_SHOWN bodies of the cut, in index order: a band far past the budget
        (one written around the doors) would otherwise be a table of every inline body."""
        return self.cut[:CUT_SHOWN]

    @property
    def cut_beyond(self) -> str:
        """What the cut holds past the rows shown, in words ("" when nothing)."""
        rest = self.cut[CUT_SHOWN:]
        if not rest:
            return ""
        given = sum(entry.shown for entry in rest)
        noun = "body" if len(rest) == 1 else "bodies"
        return (
            f"{len(rest):,} more inline {noun} in force after these, {given:,} of them given "
            f"in full ({size(sum(entry.bytes for entry in rest))})."
        )

    @property
    def not_given(self) -> list[CutEntry]:
        return [entry for entry in self.cut if not entry.shown]

    @property
    def footer_tags(self) -> list[tuple[str, int]]:
        return self.view.index.left_out_tags

    def to_dict(self) -> dict:
        index = self.view.index
        return {
            "project": self.project,
            "budget_bytes": self.view.budget_bytes,
            "inline_bytes": self.view.inline_total,
            "inline_shown_bytes": self.view.inline_shown_bytes,
            "cut": [
                {
                    "name": entry.memory.name,
                    "project": entry.memory.project_name,
                    "bytes": entry.bytes,
                    "spent_before": entry.spent_before,
                    "shown": entry.shown,
                    "reason": entry.reason,
                }
                for entry in self.cut
            ],
            "index": {
                "entries": len(index.lines),
                "bytes": index.bytes,
                "max_entries": settings.MEMADMIN_INDEX_MAX_ENTRIES,
                "max_bytes": settings.MEMADMIN_INDEX_MAX_BYTES,
                "left_out": index.left_out,
                "left_out_reason": self.fall_off_reason,
                "falls_off": [
                    {"name": m.name, "project": m.project_name, "priority": m.priority}
                    for m in self.fall_off
                ],
                "footer": index.footer(),
                "footer_tags": [{"tag": tag, "count": n} for tag, n in self.footer_tags],
            },
            "largest": [
                {"name": e.memory.name, "project": e.memory.project_name, "bytes": e.bytes}
                for e in self.largest
            ],
        }


def band_detail(project=None, now: dt.datetime | None = None, *, shown=FALL_OFF_SHOWN, reads=None):
    """The detail of the band a session on `project` (a Project or None) is given; `reads`
    (a TierReads) shares what is read of each tier with the views built beside it."""
    now = now or timezone.now()
    reads = reads or TierReads(now)
    # Enough of the band's index candidates for the index and what falls off it, at once.
    reads.read_tiers(band_tiers(project), FIRST_READ + shown)
    view = agent_view(project, now, reads=reads)
    cut = [
        CutEntry(memory, memory.body_bytes, spent, fits, view.budget_bytes)
        for memory, spent, fits in view.inline_walk
    ]
    listed = len(view.index.lines)
    fall_off = []
    reason = ""
    if view.index.left_out:
        fall_off = reads.band_index_candidates(project, listed + shown)[listed:]
        if listed >= settings.MEMADMIN_INDEX_MAX_ENTRIES:
            reason = f"the index holds {settings.MEMADMIN_INDEX_MAX_ENTRIES} entries at most"
        else:
            reason = (
                f"the next entry would take the index past "
                f"{size(settings.MEMADMIN_INDEX_MAX_BYTES)} ({size(view.index.bytes)} spent by "
                f"{listed} entries)"
            )
    largest = sorted(cut, key=lambda entry: (-entry.bytes, entry.memory.id))[:LARGEST_SHOWN]
    return BandDetail(
        project=None if project is None else project.name,
        view=view,
        cut=cut,
        fall_off=fall_off,
        fall_off_reason=reason,
        largest=largest,
    )
