"""What changed in an agent view between two moments: its text line by line, and the memories
that entered it, left it or changed in it, each with the revisions that did it (who, how,
when) or, where none did, why it moved all the same (an expiry passing, the inline budget or
the index's ceilings making or taking room)."""

import datetime as dt
from dataclasses import dataclass

from memories.models import Action, ProjectAction, ProjectRevision, Revision
from memories.reads.agent_view import AgentView, Entry
from memories.reads.past_view import memories_at
from memories.rules.diffs import DiffLine, line_diff
from memories.rules.fields import rfc3339

INLINE, PAST_BUDGET, INDEX = "inline", "past the budget", "index"
GONE = (Action.DELETE, Action.PURGE)
PLACES = {
    INLINE: "given whole in the inline band",
    PAST_BUDGET: "listed past the inline budget",
    INDEX: "listed in the index",
}


def shown(view: AgentView) -> dict[int, tuple[str, Entry]]:
    """Each memory the view's text shows, by id, with where it shows it."""
    places = {entry.id: (INLINE, entry) for entry in view.inline_shown}
    places.update((entry.id, (PAST_BUDGET, entry)) for entry, _ in view.inline_unshown.lines)
    places.update((entry.id, (INDEX, entry)) for entry, _ in view.index.lines)
    return places


def _said(place: str, entry: Entry) -> tuple:
    """What the text says of a memory where it shows it: its age aside, and its project by id
    (a rename is listed apart)."""
    said = (place, entry.name, entry.project_id, entry.priority, entry.description)
    return (*said, entry.body) if place == INLINE else said


@dataclass
class MemoryChange:
    """A memory that entered the view, left it or changed in it."""

    entry: Entry  # as the later view shows it, or the earlier one for a memory that left
    was: str | None  # where the earlier view showed it (PLACES), None: not at all
    now: str | None  # where the later one does
    revisions: list[Revision]
    why: str  # when no revision moved it, what did

    @property
    def gone(self) -> bool:
        """Deleted (or purged) by the last change between: no page of its own to show."""
        return bool(self.revisions) and self.revisions[-1].action in GONE

    @property
    def places(self) -> str:
        """Where the two views show it, in words."""
        if self.was is None:
            return f"now {PLACES[self.now]}"
        if self.now is None:
            return f"was {PLACES[self.was]}"
        if self.was == self.now:
            return f"still {PLACES[self.now]}"
        return f"was {PLACES[self.was]}, now {PLACES[self.now]}"

    def to_dict(self) -> dict:
        return {
            "memory_id": self.entry.id,
            "name": self.entry.name,
            "project": self.entry.project_name,
            "was": self.was,
            "now": self.now,
            "revisions": [
                {
                    "id": r.id,
                    "at": rfc3339(r.at),
                    "action": r.action,
                    "actor": r.actor,
                    "user": r.username or None,
                    "door": r.door,
                }
                for r in self.revisions
            ],
            "why": self.why,
        }


@dataclass
class ViewDiff:
    since: dt.datetime
    at: dt.datetime
    lines: list[DiffLine]
    entered: list[MemoryChange]
    left: list[MemoryChange]
    changed: list[MemoryChange]
    renamed: list[ProjectRevision]  # the session's project renamed between

    @property
    def unchanged(self) -> bool:
        return not self.lines

    @property
    def groups(self) -> list[tuple[str, list[MemoryChange]]]:
        return [("Entered", self.entered), ("Left", self.left), ("Changed", self.changed)]

    def to_dict(self) -> dict:
        return {
            "lines": [line.unified for line in self.lines],
            "entered": [change.to_dict() for change in self.entered],
            "left": [change.to_dict() for change in self.left],
            "changed": [change.to_dict() for change in self.changed],
            "renamed": [
                {
                    "at": rfc3339(r.at),
                    "from": r.previous_name,
                    "to": r.name,
                    "actor": r.actor,
                }
                for r in self.renamed
            ],
        }


def _why(was: str | None, now: str | None, state, at: dt.datetime) -> str:
    if now is None and state is not None and state.is_expired(at):
        return f"its expiry passed at {rfc3339(state.expires_at)}"
    if now is None:
        return "no change of its own: others took the room the budget or the index allows"
    if was is None:
        return "no change of its own: room was made by others leaving or shrinking"
    return "no change of its own: the budget or the index's ceilings moved it"


def view_diff(
    before: AgentView, after: AgentView, since: dt.datetime, at: dt.datetime, project_id=None
) -> ViewDiff:
    """`after` (the view at `at`) against `before` (at `since`); `project_id`, the session's
    project, whose renames between are listed."""
    then, now = shown(before), shown(after)
    moved = [
        memory_id
        for memory_id in then.keys() | now.keys()
        if memory_id not in then
        or memory_id not in now
        or _said(*then[memory_id]) != _said(*now[memory_id])
    ]
    revisions: dict[int, list[Revision]] = {memory_id: [] for memory_id in moved}
    for revision in (
        Revision.objects.filter(memory_id__in=moved, at__gt=since, at__lte=at)
        .defer("before", "after")
        .order_by("id")
    ):
        revisions[revision.memory_id].append(revision)
    unexplained = [m for m in moved if not revisions[m] and m not in now]
    states = memories_at(unexplained, at) if unexplained else {}
    entered, left, changed = [], [], []
    for memory_id in moved:
        was = then[memory_id][0] if memory_id in then else None
        place = now[memory_id][0] if memory_id in now else None
        entry = (now.get(memory_id) or then[memory_id])[1]
        why = "" if revisions[memory_id] else _why(was, place, states.get(memory_id), at)
        change = MemoryChange(entry, was, place, revisions[memory_id], why)
        (entered if was is None else left if place is None else changed).append(change)
    for group in (entered, left, changed):
        group.sort(key=lambda change: change.entry.order)
    renamed = []
    if project_id is not None:
        renamed = list(
            ProjectRevision.objects.filter(
                project_id=project_id,
                action=ProjectAction.RENAME,
                at__gt=since,
                at__lte=at,
            ).order_by("id")
        )
    return ViewDiff(
        since=since,
        at=at,
        lines=line_diff(before.text(), after.text()),
        entered=entered,
        left=left,
        changed=changed,
        renamed=renamed,
    )
