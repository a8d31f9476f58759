"""Each memory's wording key (memories.Wording), worked out by the doors in the write's own
transaction: the triggers give a new memory its row and empty the key as its description
changes, and the door then writes the key of the description it stored.

`keep_written(memory, before)` is what the single-memory doors call after the row is written
(write, edit, move, restore, undo), `keep(memories)` what an import calls; a delete takes the
row with the memory. `check` and `mend` are `memory verify [--rebuild]`.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import transaction

from memories.models import Memory, Wording
from memories.rules import similarity

BATCH = 5000  # keys written per statement, and memories read per chunk of a check


def _store(keys: dict[int, str]) -> None:
    """These memories' keys (by id) in place of what their rows hold, a row made if none is."""
    Wording.objects.bulk_create(
        (Wording(memory_id=memory_id, wording=key) for memory_id, key in keys.items()),
        batch_size=BATCH,
        update_conflicts=True,
        unique_fields=["memory"],
        update_fields=["wording"],
    )


def keep_written(memory: Memory, before: Memory | None) -> None:
    """The key of a memory one door wrote: written only when its description changed (a new
    memory, a new description), so a write of other fields costs no query."""
    if before is not None and before.description == memory.description:
        return
    _store({memory.id: similarity.wording(memory.description)})


def keep(memories: Iterable[Memory]) -> None:
    """The keys of these memories as they now are (they need their id and description)."""
    _store({memory.id: similarity.wording(memory.description) for memory in memories})


@dataclass
class WordingReport:
    """What `check()` found: memories whose key is not worked out (NULL, or no row) and those
    whose key is not their description's."""

    memories: int = 0
    unknown: list[int] = field(default_factory=list)
    wrong: dict[int, str] = field(default_factory=dict)  # memory id -> the right key
    keys: dict[int, str] = field(default_factory=dict)  # the unknown ones' keys

    @property
    def ok(self) -> bool:
        return not (self.unknown or self.wrong)

    @property
    def problems(self) -> list[str]:
        found = []
        if self.unknown:
            found.append(f"{len(self.unknown)} of {self.memories} memories without a wording key")
        if self.wrong:
            found.append(
                f"{len(self.wrong)} of {self.memories} memories with the wording key of a "
                "description they no longer hold"
            )
        return found


def check() -> WordingReport:
    """Every memory's key held against the key of its description."""
    stored = dict(Wording.objects.values_list("memory_id", "wording").iterator(chunk_size=BATCH))
    report = WordingReport()
    for memory_id, description in (
        Memory.objects.order_by("id").values_list("id", "description").iterator(chunk_size=BATCH)
    ):
        report.memories += 1
        key = similarity.wording(description)
        held = stored.get(memory_id)
        if held is None:
            report.unknown.append(memory_id)
            report.keys[memory_id] = key
        elif held != key:
            report.wrong[memory_id] = key
    return report


def mend(report: WordingReport) -> None:
    """What `check()` found put right: each key worked out again."""
    with transaction.atomic():
        _store(report.keys | report.wrong)
