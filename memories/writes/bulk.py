"""The bulk doors: one single-memory door applied to many memories in one transaction."""

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import transaction

from memories.models import Memory
from memories.reads.lookup import memories_by_id
from memories.rules import fields as f
from memories.rules import tiers
from memories.rules.errors import BulkRefused, DomainError, InlineBudgetExceeded, InvalidField
from memories.writes import doors, history
from projects.models import Project

BULK_LIMIT = f.BULK_LIMIT
REFUSALS_NAMED = 5  # rows a refusal's sentence names; its `refused` lists every one


@dataclass
class BulkRefusal:
    memory: Memory
    error: DomainError


@dataclass
class BulkResult:
    """What a bulk action did: every memory changed, or (when any was refused) none.

    `targets` are the memories the action changes; `unchanged` those it was asked to change
    that hold what it would set already, which it leaves alone (no write, no revision).
    """

    targets: list[Memory]
    outcomes: list = field(default_factory=list)  # each door's result, in index order
    refused: list[BulkRefusal] = field(default_factory=list)
    missing: int = 0  # ids asked for that no longer name a memory
    unchanged: list[Memory] = field(default_factory=list)
    change_set_id: int | None = None  # the change set recorded, to be undone whole

    @property
    def applied(self) -> bool:
        return not self.refused

    def refusal(self) -> BulkRefused:
        """The refusal of a batch some of whose rows were refused: every row named (the memory
        refused, whatever its refusal's details name) with its reason and details, at the
        status of the gravest (the inline budget's 409 above a bad field's 400)."""
        rows = [
            {
                **r.error.details,
                "name": r.memory.name,
                "project": r.memory.project_name,
                "error": r.error.message,
                "status": r.error.status,
            }
            for r in self.refused
        ]
        # The rows one band's budget refuses share one sentence, the first's (in index order).
        by_band: dict[str | None, list[BulkRefusal]] = {}
        others = []
        for r in self.refused:
            if isinstance(r.error, InlineBudgetExceeded):
                by_band.setdefault(r.error.band, []).append(r)
            else:
                others.append(r)

        def said(r: BulkRefusal, more: int = 0) -> str:
            after = f" and {more} more after it" if more else ""
            label = tiers.memory_label(r.memory.name, r.memory.project_name)
            return f"{label}{after}: {r.error.message.rstrip('.')}"

        parts = [said(first, len(rest)) for first, *rest in by_band.values()]
        parts += [said(r) for r in others[:REFUSALS_NAMED]]
        more = len(others) - REFUSALS_NAMED
        return BulkRefused(
            f"Nothing was changed: {len(self.refused)} of {len(self.targets)} memories would be "
            f"refused. {'; '.join(parts)}{f'; and {more} more' if more > 0 else ''}.",
            status=max(r.error.status for r in self.refused),
            refused=rows,
        )


def _apply_to_each(
    ids, change, summary: str, *, changes: Callable[[Memory], bool] = lambda memory: True
) -> BulkResult:
    """Apply one single-memory door to each memory `changes` says it would change, in index
    order, in ONE transaction.

    All or nothing. Every memory is tried, each in its own savepoint, so each refusal is known
    with its row, and a later row is measured as if the earlier ones had landed (the budget
    of a band fills up in index order, as the agent reads it). If any row is refused, the
    whole batch is rolled back and every refusal reported; nothing of it lands. What lands is
    one change set of the history, `summary` naming it, to be inspected and undone whole. A
    memory that already holds what the action sets is no change: not written, not recorded,
    not counted, so nothing of it is undone.
    """
    ids = f.record_ids(ids)
    if not ids:
        raise InvalidField("id", "Select at least one memory.")
    if len(ids) > BULK_LIMIT:
        raise InvalidField(
            "id",
            f"{len(ids):,} memories were selected; a bulk action takes at most "
            f"{BULK_LIMIT:,} at a time: narrow the filters.",
        )
    with transaction.atomic():
        found = memories_by_id(ids)
        result = BulkResult(targets=[], missing=len(ids) - len(found))
        for memory in found:
            (result.targets if changes(memory) else result.unchanged).append(memory)
        targets = result.targets
        noun = "memory" if len(targets) == 1 else "memories"
        with history.change_set(f"{summary} on {len(targets)} {noun}", door=history.BULK) as group:
            for memory in targets:
                try:
                    with transaction.atomic():
                        result.outcomes.append(change(memory))
                except DomainError as error:
                    result.refused.append(BulkRefusal(memory, error))
        if result.refused:
            transaction.set_rollback(True)
            result.outcomes = []
        elif targets:
            result.change_set_id = group.id
    return result


def _tier_of(memory: Memory) -> str | None:
    return memory.project_name


def set_priority(ids, priority) -> BulkResult:
    priority = f.priority(priority)
    if priority is None:
        raise InvalidField("priority", "Give the priority to set.")
    return _apply_to_each(
        ids,
        lambda m: doors.write(m.name, project=_tier_of(m), priority=priority),
        f"Set priority {priority}",
        changes=lambda m: m.priority != priority,
    )


def shifted(memory: Memory, by: int) -> int:
    """The priority shifted by `by`, held within 0 (most important) and 100."""
    return min(max(memory.priority + by, f.PRIORITY_MIN), f.PRIORITY_MAX)


def shift_priority(ids, by) -> BulkResult:
    """Add `by` to each priority, held within 0 (most important) and 100."""
    by = f.whole(by)
    if by is None or not -f.PRIORITY_MAX <= by <= f.PRIORITY_MAX:
        raise InvalidField(
            "shift",
            f"Shift the priority by a whole number from {-f.PRIORITY_MAX} to {f.PRIORITY_MAX}.",
        )
    return _apply_to_each(
        ids,
        lambda m: doors.write(m.name, project=_tier_of(m), priority=shifted(m, by)),
        f"Shift priority by {by:+d}",
        changes=lambda m: shifted(m, by) != m.priority,
    )


def set_load(ids, load) -> BulkResult:
    load = f.load(load)
    if load is None:
        raise InvalidField("load", "Give the load to set: inline, index or search.")
    return _apply_to_each(
        ids,
        lambda m: doors.write(m.name, project=_tier_of(m), load=load),
        f"Set load {load}",
        changes=lambda m: m.load != load,
    )


def _one_tag(tag) -> str:
    tags = f.tags([tag]) if isinstance(tag, str) and tag.strip() else None
    if not tags:
        raise InvalidField("tag", "Give the tag to add or remove.")
    return tags[0]


def _without(tags: list[str], tag: str) -> list[str]:
    """The tags but `tag`, in any case: tags are told apart regardless of case, as the tag
    filter finds them."""
    return [kept for kept in tags if kept.casefold() != tag.casefold()]


def add_tag(ids, tag) -> BulkResult:
    """Add `tag` after each memory's tags; one that has it (in any case) is unchanged."""
    tag = _one_tag(tag)
    return _apply_to_each(
        ids,
        lambda m: doors.write(m.name, project=_tier_of(m), tags=[*m.tags, tag]),
        f"Add tag {tag}",
        changes=lambda m: _without(m.tags, tag) == m.tags,
    )


def remove_tag(ids, tag) -> BulkResult:
    """Remove `tag` (in any case) from each memory's tags; one without it is unchanged."""
    tag = _one_tag(tag)
    return _apply_to_each(
        ids,
        lambda m: doors.write(m.name, project=_tier_of(m), tags=_without(m.tags, tag)),
        f"Remove tag {tag}",
        changes=lambda m: _without(m.tags, tag) != m.tags,
    )


def verify(ids) -> BulkResult:
    return _apply_to_each(
        ids, lambda m: doors.write(m.name, project=_tier_of(m), verified=True), "Verify"
    )


def move(ids, to) -> BulkResult:
    """Re-file each memory in the tier `to` (None: the global tier)."""
    if to is not None:
        Project.objects.named(f.project_name(to))
    return _apply_to_each(
        ids,
        lambda m: doors.move(m.name, project=_tier_of(m), to=to),
        f"Move to {tiers.noun(to)}",
        changes=lambda m: m.project_name != to,
    )


def delete(ids) -> BulkResult:
    """Delete each memory; the outcomes name who still references each one."""
    return _apply_to_each(ids, lambda m: doors.delete(m.name, project=_tier_of(m)), "Delete")


# Each bulk action by name, with the value it takes from the request (a page's form, a /v1
# body): what the list page's bulk bar and POST /v1/bulk offer alike.
ACTIONS: dict[str, Callable[[list, dict], BulkResult]] = {
    "set_priority": lambda ids, values: set_priority(ids, values.get("priority")),
    "shift_priority": lambda ids, values: shift_priority(ids, values.get("shift")),
    "set_load": lambda ids, values: set_load(ids, values.get("load")),
    "add_tag": lambda ids, values: add_tag(ids, values.get("tag")),
    "remove_tag": lambda ids, values: remove_tag(ids, values.get("tag")),
    "verify": lambda ids, values: verify(ids),
    "move": lambda ids, values: move(ids, _destination(values)),
    "delete": lambda ids, values: delete(ids),
}


def _destination(values: dict) -> str | None:
    """The tier a move goes to: `to` a project's name, or None (or "") the global tier;
    left out, refused rather than read as the global tier."""
    if "to" not in values:
        raise InvalidField("to", "Move to which tier? Give to: a project's name, or null.")
    to = values["to"]
    if to is None:
        return None
    if not isinstance(to, str):
        raise InvalidField("to", "to is a project's name, or null for the global tier.")
    return f.project_name(to, field="to") if to else None


def action(name) -> Callable[[list, dict], BulkResult]:
    """The bulk action of this name (ACTIONS): called with the ids and the values."""
    door = ACTIONS.get(name) if isinstance(name, str) else None
    if door is None:
        raise InvalidField("action", f"The action is one of {', '.join(ACTIONS)}.")
    return door
