"""The way back: restore from the trash, purge, restore a version, undo a change set.

Each is a door like those of memories.writes.doors: one transaction, the tier, name and budget
rules every write keeps, a typed DomainError that lands nothing, and its own revision.
Who may call which (purge: admins only) is decided by the views; the purge door takes that
decision as its `admin` argument.
"""

import datetime as dt
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from memories.models import GLOBAL_TIER, ChangeSet, Memory, Revision, TrashedMemory
from memories.reads import budget
from memories.rules import reach, tiers
from memories.rules.budget import InlineContribution
from memories.rules.errors import (
    ChangeSetNotFound,
    DomainError,
    NotInTrash,
    NotPermitted,
    OutsideGrants,
    RevisionNotFound,
    UndoRefused,
    VersionUnavailable,
)
from memories.writes import doors, history, row_codec, states, vectors, wordings
from projects.models import Project

_PUT_BACK = (
    "project_id",
    *row_codec.CONTENT,
    *row_codec.STAMPS,
    "read_count",
    "last_read_at",
    "superseded_by",
)
PUT_BACK_INSERT_COLUMNS = ("id", "name", *_PUT_BACK)
PUT_BACK_INSERT = row_codec.insert(PUT_BACK_INSERT_COLUMNS)
# Only a put-back assigns created_at on an existing row: it restores a recorded stamp (one
# an import overwrote), never a new one.
PUT_BACK_UPDATE, PUT_BACK_UPDATE_COLUMNS = row_codec.update(_PUT_BACK)


def _time(value: str | None) -> dt.datetime | None:
    return None if value is None else dt.datetime.fromisoformat(value)


def _project_of(state: dict) -> Project | None:
    """The project a snapshot was in: by id (it follows renames), else by name."""
    if state["project_id"] is None:
        return None
    found = Project.objects.filter(id=state["project_id"]).first()
    return found or Project.objects.named(state["project"])


def _put_back(state: dict, current: Memory | None, *, read_count: int) -> Memory:
    """Write a recorded state whole, under its own id: the row re-inserted (current None) or
    overwritten. The name, tier and budget rules hold as on any write; created_at,
    verified_at and the rest come from the state, updated_at is now."""
    now = timezone.now()
    project = _project_of(state)
    target_id = project.id if project else None
    target_project = project.name if project else None
    doors.refuse_name_clash(
        state["name"], target_id=target_id, target_project=target_project, exclude_id=state["id"]
    )
    expires_at = _time(state["expires_at"])
    after = InlineContribution.of(
        memory_id=state["id"],
        name=state["name"],
        project=target_project,
        tier=target_id or GLOBAL_TIER,
        load=state["load"],
        body=state["body"],
        expires_at=expires_at,
        now=now,
    )
    before = [] if current is None else [InlineContribution.of_memory(current, now)]
    budget.refuse_if_past_budget(before, [after], now)
    row = {
        **row_codec.content(state),
        "id": state["id"],
        "name": state["name"],
        "project_id": target_id,
        "created_at": _time(state["created_at"]),
        "updated_at": now,
        "verified_at": _time(state["verified_at"]),
        "expires_at": expires_at,
        "read_count": read_count,
        # The agent's reads are no change the history records: a memory put back keeps its
        # last read, one back from the trash the one its deletion recorded.
        "last_read_at": (
            current.last_read_at if current is not None else _time(state.get("last_read_at"))
        ),
        # Snapshots recorded before supersession existed hold no such key: none superseded.
        "superseded_by": state.get("superseded_by"),
    }
    with connection.cursor() as cursor:
        if current is None:
            cursor.execute(PUT_BACK_INSERT, row_codec.bound(row, PUT_BACK_INSERT_COLUMNS))
        else:
            cursor.execute(PUT_BACK_UPDATE, row_codec.bound(row, PUT_BACK_UPDATE_COLUMNS))
    memory = Memory.objects.select_related("project").get(id=state["id"])
    vectors.keep_written(memory, current)
    wordings.keep_written(memory, current)
    return memory


def _trash_entry(trashed_id) -> TrashedMemory:
    """The trash entry of this id, within the caller's reach; one they may see but not change
    is refused (OutsideGrants)."""
    try:
        entry = TrashedMemory.objects.select_related("revision").get(id=int(trashed_id))
    except (TrashedMemory.DoesNotExist, TypeError, ValueError):
        raise NotInTrash(trashed_id) from None
    deletion = entry.revision
    if not reach.current().sees(deletion.tier):
        raise NotInTrash(trashed_id)
    reach.refuse_change(
        deletion.tier, tiers.phrase(deletion.project_name if deletion.tier else None)
    )
    return entry


def _touched_tiers(revisions) -> set[int]:
    """Every tier the revisions' memories were in, before or after (a move spans two)."""
    found = set()
    for revision in revisions:
        found.add(revision.tier)
        for state in (revision.before, revision.after):
            if state is not None:
                found.add(state.get("project_id") or GLOBAL_TIER)
    return found


def refuse_outside_reach(revisions, missing: DomainError) -> None:
    """Refuse a change through these revisions (an undo, a version put back) unless the
    caller may change every tier they touch: `missing` when one is past their sight (the
    reads do not show it either), OutsideGrants when they may see but not change one;
    refused whole."""
    touched = _touched_tiers(revisions)
    held = reach.current()
    if not all(held.sees(tier) for tier in touched):
        raise missing
    if not all(held.changes(tier) for tier in touched):
        raise OutsideGrants(
            "This touches memories outside your grants, so nothing of it was done: ask an "
            "admin for a grant on every tier it changes."
        )


def restore(trashed_id) -> Memory:
    """Bring a memory back from the trash as it was deleted, under its old id.

    created_at, verified_at and read_count are kept. Refused (with the reason) when its
    name was taken meanwhile, in its tier or across the global/project line, when its
    project is gone, or when it would take its band past the inline budget.
    """
    with transaction.atomic():
        entry = _trash_entry(trashed_id)
        state = entry.revision.before
        try:
            memory = _put_back(state, None, read_count=state["read_count"])
        except DomainError as error:
            error.message = f"'{state['name']}' cannot come back from the trash: {error.message}"
            error.args = (error.message,)
            raise
        entry.delete()
        history.record(history.RESTORE, after=memory)
    return memory


def purge(trashed_id, *, admin: bool) -> str:
    """Remove a trashed memory for good: its row is gone already, and every snapshot its
    history holds is erased. The revisions stay (who did what, when), without content.
    Only an admin may: `admin` is the caller's decision. Returns the memory's name."""
    if not admin:
        raise NotPermitted("Only an admin can purge a memory from the trash.")
    with transaction.atomic():
        entry = _trash_entry(trashed_id)
        deletion = entry.revision
        subject = {
            "id": deletion.memory_id,
            "name": deletion.name,
            "project": deletion.project_name,
            "project_id": deletion.tier or None,
        }
        entry.delete()
        Revision.objects.filter(memory_id=deletion.memory_id).update(
            before=None, after=None, purged=True
        )
        states.erase(deletion.memory_id)
        history.record(history.PURGE, subject=subject)
    return deletion.name


def _revision(revision_id) -> Revision:
    try:
        revision = Revision.objects.get(id=int(revision_id))
    except (Revision.DoesNotExist, TypeError, ValueError):
        raise RevisionNotFound(revision_id) from None
    refuse_outside_reach([revision], RevisionNotFound(revision_id))
    return revision


def restore_version(revision_id, *, if_match: str | None = None) -> doors.WriteResult:
    """Make the memory again what revision `revision_id` left it: a new revision through the
    write door, so the budget and tier rules hold, and created_at, verified_at and
    read_count stay as they are now. `if_match`: the memory's ETag as the caller read it
    (a memory changed since is refused, as the write door refuses it)."""
    with transaction.atomic():
        revision = _revision(revision_id)
        if revision.purged:
            raise VersionUnavailable(
                f"The history of '{revision.name}' was purged; revision {revision.id} holds "
                "nothing to restore.",
                revision=revision.id,
            )
        state = revision.after
        if state is None:
            raise VersionUnavailable(
                f"Revision {revision.id} removed '{revision.name}'; there is no version of it "
                "to restore (restore the memory from the trash instead).",
                revision=revision.id,
            )
        current = Memory.objects.select_related("project").filter(id=revision.memory_id).first()
        if current is None:
            in_trash = TrashedMemory.objects.filter(memory_id=revision.memory_id).exists()
            raise VersionUnavailable(
                f"'{revision.name}' is in the trash: restore it from there first, then this "
                "version."
                if in_trash
                else f"'{revision.name}' is no longer in the store.",
                revision=revision.id,
            )
        project = _project_of(state)
        project_id = project.id if project else None
        move_to = doors.UNSET if project_id == current.project_id else (project and project.name)
        reason = history.current().reason or f"the version of revision {revision.id}"
        with history.recorded_as(history.REVERT), history.acting(reason=reason):
            return doors.write(
                current.name,
                project=current.project_name,
                move_to=move_to,
                description=state["description"],
                body=state["body"],
                tags=state["tags"],
                references=state["references"],
                priority=state["priority"],
                load=state["load"],
                source=state["source"],
                expires=_time(state["expires_at"]) or "",
                if_match=if_match,
                restoring=True,
            )


@dataclass
class _Step:
    """What undoing one memory's part of a change set does."""

    target: dict | None  # the state before the change set (None: it did not exist)
    reached: dict | None  # the state the change set left (None: removed)
    last: Revision

    @property
    def order(self) -> tuple[int, int]:
        # Removals first and re-insertions last, so names and budget are freed before they
        # are taken again; within each kind, the latest change first.
        kind = 0 if self.target is None else (2 if self.reached is None else 1)
        return (kind, -self.last.id)


UNCOMPARED = ("updated_at",)  # a write that changes nothing still moves it
# What a memory may have gained since without its change set's work being changed: reads.
UNCHANGED_BY = ("updated_at", "read_count")


def _same(before: dict | None, after: dict | None, uncompared=UNCOMPARED) -> bool:
    """Whether the change set left the memory as it found it: nothing to undo then."""
    if before is None or after is None:
        return before is after
    return all(before[key] == after[key] for key in before if key not in uncompared)


@dataclass
class Undone:
    """An undo: the change set it recorded, and the memories it left as they are now."""

    change_set: ChangeSet
    skipped: list[dict]  # each {name, project, reason, revision}: why it was left


def _who(revision: Revision) -> str:
    return f"revision {revision.id} ({revision.get_action_display()} by {revision.actor})"


def undo(change_set_id, *, reason=None) -> Undone:
    """Undo a change set: one compensating revision per memory it touched, in one change
    set of their own, in one transaction.

    A memory changed since to another state (a later revision), or whose history was purged,
    is left as it is, its reason and the revision named (`Undone.skipped`); one changed since
    and changed back is put back like the rest. Refused as a whole, every reason named, when
    nothing is left to undo, the set was undone already, or the rules of a write refuse an
    old state (a name taken, a project gone, the budget). A memory the set created goes to
    the trash; one it deleted comes back from there. read_count keeps the reads made since.
    """
    with transaction.atomic():
        try:
            group = ChangeSet.objects.get(id=int(change_set_id))
        except (ChangeSet.DoesNotExist, TypeError, ValueError):
            raise ChangeSetNotFound(change_set_id) from None
        revisions = list(group.revisions.order_by("id"))
        if revisions:
            refuse_outside_reach(revisions, ChangeSetNotFound(change_set_id))
        undone_by = ChangeSet.objects.filter(undoes=group).first()
        if undone_by is not None:
            raise UndoRefused(
                f"Change set {group.id} was undone already, by change set {undone_by.id}.",
                change_set=group.id,
                refused=[],
            )
        by_memory: dict[int, list[Revision]] = {}
        for revision in revisions:
            by_memory.setdefault(revision.memory_id, []).append(revision)
        latest = dict(
            Revision.objects.filter(memory_id__in=list(by_memory))
            .values("memory_id")
            .annotate(last=Max("id"))
            .values_list("memory_id", "last")
        )
        later = Revision.objects.in_bulk(
            [latest[key] for key, revisions in by_memory.items() if latest[key] != revisions[-1].id]
        )
        refused: list[dict] = []
        skipped: list[dict] = []
        steps: list[_Step] = []

        def row(revision: Revision, why: str, since: Revision | None = None) -> dict:
            return {
                "name": revision.name,
                "project": revision.project_name if revision.tier else None,
                "reason": why,
                "revision": since.id if since else None,
            }

        def refuse(revision: Revision, why: str) -> None:
            refused.append(row(revision, why))

        for memory_id, revisions in by_memory.items():
            first, last = revisions[0], revisions[-1]
            now = later.get(latest[memory_id], last)
            if any(r.purged for r in revisions):
                skipped.append(row(last, "it was purged from the trash"))
            elif now is not last and not _same(last.after, now.after, UNCHANGED_BY):
                skipped.append(row(last, f"it changed since, in {_who(now)}", now))
            elif not _same(first.before, now.after):
                steps.append(_Step(first.before, now.after, now))
        if not steps:
            if skipped:
                raise _refusal(group, skipped)
            raise UndoRefused(
                f"Change set {group.id} left nothing to undo.", change_set=group.id, refused=[]
            )
        with (
            history.change_set(
                f"Undo of change set {group.id}: {group.summary}", reason=reason
            ) as undo_set,
            history.recorded_as(history.UNDO),
        ):
            undo_set.undoes = group
            undo_set.save(update_fields=["undoes"])
            for step in sorted(steps, key=lambda s: s.order):
                try:
                    with transaction.atomic():
                        _compensate(step)
                except DomainError as error:
                    refuse(step.last, error.message)
            if refused:
                # Leaving the change set's atomic block by an exception rolls back
                # every compensation made before the refused ones.
                raise _refusal(group, refused)
        return Undone(undo_set, skipped)


def _refusal(group: ChangeSet, refused: list[dict]) -> UndoRefused:
    listed = "; ".join(
        f"{tiers.memory_label(r['name'], r['project'])}: {r['reason'].rstrip('.')}"
        for r in refused[:5]
    )
    more = f"; and {len(refused) - 5} more" if len(refused) > 5 else ""
    return UndoRefused(
        f"Change set {group.id} cannot be undone, and nothing of it was: {listed}{more}.",
        change_set=group.id,
        refused=refused,
    )


def _compensate(step: _Step) -> None:
    memory_id = step.last.memory_id
    if step.target is None:
        current = Memory.objects.select_related("project").get(id=memory_id)
        doors.delete(current.name, project=current.project_name)
    elif step.reached is None:
        entry = TrashedMemory.objects.get(memory_id=memory_id)
        memory = _put_back(step.target, None, read_count=step.target["read_count"])
        entry.delete()
        history.record(history.UNDO, after=memory)
    else:
        current = Memory.objects.select_related("project").get(id=memory_id)
        reads_since = current.read_count - step.reached["read_count"]
        read_count = max(step.target["read_count"] + reads_since, 0)
        memory = _put_back(step.target, current, read_count=read_count)
        history.record(history.UNDO, before=current, after=memory)
