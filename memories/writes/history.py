"""Revision history: who changed what, recorded by the doors in each write's own transaction.

Callers say who is acting; the doors record one Revision per memory they change.

    from memories.writes import history

    with history.acting(door=history.PAGE, user=request.user):            # a page view
    with history.acting(door=history.API, user=token.user, token=token):  # /v1's authorize
    with history.acting(door=history.MCP, user=token.user, token=token):  # an MCP request
    with history.acting(door=history.COMMAND, label="manage.py memory import"):  # a command
    with history.acting(reason="the old figure was a typo"):  # adds to the enclosing context

A bulk action or an import wraps its writes in one change set, inspected and undone as a
whole (`memories.writes.undo`):

    with history.change_set("Set priority 3 on 12 memories", door=history.BULK):
        ...one door call per memory...

A write with no context records door "direct" and no user (tests, the shell). The agent's
read door changes only read_count and records nothing: a read is not a change, and a
revision per read would bury the changes people make.
"""

import contextlib
import contextvars
import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass, replace

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from memories import engine
from memories.models import (
    GLOBAL_TIER,
    Action,
    ChangeSet,
    Door,
    Memory,
    ProjectAction,
    ProjectRevision,
)
from memories.rules import secrets
from memories.rules.errors import InvalidField
from memories.rules.fields import rfc3339
from memories.writes import states as memory_states

PAGE, BULK, API, MCP, COMMAND, IMPORT, DIRECT = (
    Door.PAGE.value,
    Door.BULK.value,
    Door.API.value,
    Door.MCP.value,
    Door.COMMAND.value,
    Door.IMPORT.value,
    Door.DIRECT.value,
)
CREATE, UPDATE, MOVE, EDIT, DELETE = (
    Action.CREATE.value,
    Action.UPDATE.value,
    Action.MOVE.value,
    Action.EDIT.value,
    Action.DELETE.value,
)
RESTORE, REVERT, UNDO, IMPORTED, PURGE = (
    Action.RESTORE.value,
    Action.REVERT.value,
    Action.UNDO.value,
    Action.IMPORT.value,
    Action.PURGE.value,
)
REASON_MAX = 1000


@dataclass(frozen=True)
class Actor:
    """Who is changing the store, and through which door."""

    door: str = DIRECT
    label: str = "direct"  # what the log shows; kept when the user is deleted
    username: str = ""
    user_id: int | None = None
    token_id: int | None = None
    reason: str = ""

    def recorded(self) -> dict:
        """The fields of a history row (memories.models.Acted) that say who acted."""
        return {
            "door": self.door,
            "actor": self.label,
            "username": self.username,
            "user_id": self.user_id,
            "token_id": self.token_id,
            "reason": self.reason,
        }


NOBODY = Actor()  # frozen, so one shared default is safe
_actor: contextvars.ContextVar[Actor] = contextvars.ContextVar("memadmin_actor", default=NOBODY)
_change_set: contextvars.ContextVar[ChangeSet | None] = contextvars.ContextVar(
    "memadmin_change_set", default=None
)
_action: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "memadmin_action", default=None
)


def current() -> Actor:
    return _actor.get()


def clean_reason(reason) -> str:
    if not isinstance(reason, str) or "\x00" in reason:
        raise InvalidField("reason", "The reason must be text (with no NUL character).")
    reason = " ".join(reason.split())
    if len(reason) > REASON_MAX:
        raise InvalidField("reason", f"A reason is at most {REASON_MAX} characters.")
    return reason


@contextlib.contextmanager
def acting(*, door=None, user=None, token=None, label=None, reason=None) -> Iterator[Actor]:
    """Record the writes inside as done by `user` (and `token`) through `door`, for `reason`.

    What is not given is kept from the enclosing context, so a view can add a reason to the
    actor its middleware set. `token` is an API token (its id kept, its label and prefix
    named in the actor's label).
    """
    actor = _actor.get()
    changes: dict = {}
    if door is not None:
        if door not in Door.values:
            raise ValueError(f"unknown door {door!r}")
        changes["door"] = door
    if user is not None and user.is_authenticated:
        changes.update(username=user.get_username(), user_id=user.pk)
    if token is not None:
        changes["token_id"] = token.pk
    if reason is not None:
        changes["reason"] = clean_reason(reason)
    if label is not None:
        changes["label"] = label[:200]
    elif user is not None or token is not None:
        who = changes.get("username") or actor.username
        if token is not None:
            label = getattr(token, "label", "")
            named = f"“{label}” " if label else ""
            who = f"{who} (token {named}{getattr(token, 'prefix', token.pk)}…)".strip()
        changes["label"] = who[:200]
    actor = replace(actor, **changes)
    reset = _actor.set(actor)
    try:
        yield actor
    finally:
        _actor.reset(reset)


@contextlib.contextmanager
def change_set(summary: str, *, door: str | None = None, reason=None) -> Iterator[ChangeSet]:
    """Group the revisions recorded inside into one change set (one transaction).

    A change set inside another joins it. One that recorded nothing is not kept.
    """
    open_set = _change_set.get()
    if open_set is not None:
        yield open_set
        return
    with acting(door=door, reason=reason) as actor, transaction.atomic():
        group = ChangeSet.objects.create(
            at=timezone.now(), summary=" ".join(summary.split())[:200], **actor.recorded()
        )
        reset = _change_set.set(group)
        try:
            yield group
        finally:
            _change_set.reset(reset)
        if not group.revisions.exists():
            group.delete()


@contextlib.contextmanager
def recorded_as(action: str) -> Iterator[None]:
    """Record the writes inside as `action` (an edit is a write, a revert is a write...).

    The outermost wins: an undo that calls a door that calls write records "undo".
    """
    if _action.get() is not None:
        yield
        return
    reset = _action.set(action)
    try:
        yield
    finally:
        _action.reset(reset)


def snapshot(memory: Memory) -> dict:
    """Every field of the row as it stands (the project must be loaded with it), a credential
    an admin let in masked: the history keeps what changed, never the secret itself, so a
    version put back holds the mask where the credential was."""
    return {
        "id": memory.id,
        "name": memory.name,
        "project": memory.project_name,
        "project_id": memory.project_id,
        "description": secrets.mask(memory.description),
        "body": secrets.mask(memory.body),
        "tags": list(memory.tags),
        "references": [secrets.mask(reference) for reference in memory.references],
        "priority": memory.priority,
        "load": memory.load,
        "source": secrets.mask(memory.source),
        "created_at": rfc3339(memory.created_at),
        "updated_at": rfc3339(memory.updated_at),
        "verified_at": rfc3339(memory.verified_at),
        "expires_at": rfc3339(memory.expires_at),
        "read_count": memory.read_count,
        "last_read_at": rfc3339(memory.last_read_at),
        "superseded_by": memory.superseded_by,
    }


def _state(value) -> dict | None:
    if value is None or isinstance(value, dict):
        return value
    return snapshot(value)


# Plain SQL rather than Model.objects.create(): this runs inside every write, and the
# ORM's per-instance machinery cost more than the insert itself (bench/history_bench.py).
INSERT_REVISION = """
INSERT INTO memories_revision (
    at, memory_id, name, tier, previous_tier, project_name, action, door, actor, username,
    user_id, token_id, reason, change_set_id, before, after, purged
) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, FALSE)
"""
# The change feed's entry (memories.models.Change), written beside each history row.
INSERT_CHANGE = """
INSERT INTO memories_change (
    at, kind, tier, previous_tier, project_name, name, previous_name, memory_id, revision_id,
    door, actor, tags
) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
"""
INSERT_TRASHED = "INSERT INTO memories_trashedmemory (revision_id, memory_id) VALUES (%s, %s)"


def _json(state: dict | None) -> str | None:
    return None if state is None else json.dumps(state, ensure_ascii=False)


def _row(action: str, before: dict | None, after: dict | None, subject: dict | None) -> list:
    """The INSERT_REVISION parameters of one change, with the acting context's who and why."""
    actor = _actor.get()
    shown = after or before or subject
    tier = shown["project_id"] or GLOBAL_TIER
    previous = None
    if before is not None and after is not None:
        was = before["project_id"] or GLOBAL_TIER
        previous = was if was != tier else None
    group = _change_set.get()
    return [
        connection.ops.adapt_datetimefield_value(timezone.now()),
        shown["id"],
        shown["name"],
        tier,
        previous,
        shown["project"],
        _action.get() or action,
        actor.door,
        actor.label,
        actor.username,
        actor.user_id,
        actor.token_id,
        actor.reason,
        group.id if group is not None else None,
        _json(before),
        _json(after),
    ]


def _change(row: list, revision_id: int, before: dict | None, after: dict | None) -> list:
    """The INSERT_CHANGE parameters of a memory's change, from its INSERT_REVISION row."""
    tags = list(dict.fromkeys([*(before or {}).get("tags", ()), *(after or {}).get("tags", ())]))
    return [
        row[0],  # at
        row[6],  # the action, as recorded
        row[3],  # tier
        row[4],  # previous tier
        row[5],  # project name
        row[2],  # name
        "",
        row[1],  # memory id
        revision_id,
        row[7],  # door
        row[8],  # actor
        json.dumps(tags, ensure_ascii=False),
    ]


def _announce(cursor, changes: list[list]) -> None:
    """Put the changes in the feed, in the caller's transaction; every app server's readers
    learn of them when it commits."""
    cursor.executemany(INSERT_CHANGE, changes)
    engine.of(connection).changes.announce(connection)


def record(action: str, *, before=None, after=None, subject: dict | None = None) -> int:
    """Record one change of one memory, in the caller's transaction; return the revision id.

    `before` and `after` are Memory rows (their project loaded) or snapshots; None for a
    memory that did not exist before or does not after. A change that leaves a memory out
    of the store (after None) puts it in the trash, unless it is a purge. `subject` names
    the memory (id, name, project, project_id) when neither snapshot is kept (a purge).
    """
    before, after = _state(before), _state(after)
    row = _row(action, before, after, subject)
    with connection.cursor() as cursor:
        cursor.execute(INSERT_REVISION + "RETURNING id", row)
        revision_id = cursor.fetchone()[0]
        memory_states.record(cursor, [(row[1], revision_id, row[0], before, after)])
        if after is None and row[6] != PURGE:
            cursor.execute(INSERT_TRASHED, [revision_id, row[1]])
        _announce(cursor, [_change(row, revision_id, before, after)])
    return revision_id


PROJECT_ADD, PROJECT_RENAME, PROJECT_REMOVE = (
    ProjectAction.ADD.value,
    ProjectAction.RENAME.value,
    ProjectAction.REMOVE.value,
)


def record_project(action: str, project, *, previous_name: str = "") -> ProjectRevision:
    """Record one change to a project (the row as it is after it; a removal's as it was),
    by the acting context, in the caller's transaction."""
    revision = ProjectRevision.objects.create(
        at=timezone.now(),
        project_id=project.id,
        name=project.name,
        previous_name=previous_name,
        action=action,
        **_actor.get().recorded(),
    )
    change = [
        connection.ops.adapt_datetimefield_value(revision.at),
        f"project-{action}",
        project.id,
        None,
        project.name,
        project.name,
        previous_name,
        None,
        None,
        revision.door,
        revision.actor,
        "[]",
    ]
    with connection.cursor() as cursor:
        _announce(cursor, [change])
    return revision


CHUNK = 500  # ids or names per query, well under SQLite's limit of bound variables


def states(ids: list[int]) -> dict[int, dict]:
    """The snapshots of these memories as they stand, by id."""
    found = {}
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        for memory in Memory.objects.select_related("project").filter(id__in=chunk):
            found[memory.id] = snapshot(memory)
    return found


def record_import(keys: list[tuple[str, int | None]], before: dict[int, dict]) -> list[Memory]:
    """One revision per memory an import wrote, each named by (name, project id), with the
    state it overwrote from `before` (by id); in the caller's transaction and change set.
    Returns the memories written."""
    names = sorted({name for name, _ in keys})
    written: dict[tuple[str, int | None], Memory] = {}
    for start in range(0, len(names), CHUNK):
        queryset = Memory.objects.select_related("project").filter(
            name__in=names[start : start + CHUNK]
        )
        written.update({(memory.name, memory.project_id): memory for memory in queryset})
    rows, states = [], []
    for key in keys:
        memory = written[key]
        states.append((before.get(memory.id), snapshot(memory)))
        rows.append(_row(IMPORTED, *states[-1], None))
    with connection.cursor() as cursor:
        # The store's write lock is held: the rows inserted next take the ids past this one,
        # in the order they are inserted.
        cursor.execute("SELECT coalesce(max(id), 0) FROM memories_revision")
        last = cursor.fetchone()[0]
        for start in range(0, len(rows), CHUNK):
            cursor.executemany(INSERT_REVISION, rows[start : start + CHUNK])
        cursor.execute("SELECT id FROM memories_revision WHERE id > %s ORDER BY id", [last])
        ids = [revision_id for (revision_id,) in cursor.fetchall()]
        changes = [
            _change(row, revision_id, *state)
            for row, revision_id, state in zip(rows, ids, states, strict=True)
        ]
        memory_states.record(
            cursor,
            [
                (row[1], revision_id, row[0], *state)
                for row, revision_id, state in zip(rows, ids, states, strict=True)
            ],
        )
        for start in range(0, len(changes), CHUNK):
            _announce(cursor, changes[start : start + CHUNK])
    return [written[key] for key in keys]


def retention_days() -> int:
    """0 keeps every revision."""
    return settings.MEMADMIN_HISTORY_RETENTION_DAYS


@dataclass
class Pruned:
    revisions: int
    change_sets: int
    cutoff: dt.datetime


PRUNE_BATCH = 5000


def prune(*, days: int | None = None, now: dt.datetime | None = None) -> Pruned | None:
    """Remove revisions older than the retention period, change sets left empty, and the
    change feed's entries as old.

    The deletion of a memory still in the trash is kept (it holds what a restore brings
    back). None when retention keeps everything.
    """
    days = retention_days() if days is None else days
    if days <= 0:
        return None
    cutoff = (now or timezone.now()) - dt.timedelta(days=days)
    cutoff_db = connection.ops.adapt_datetimefield_value(cutoff)
    removed_revisions = 0
    with connection.cursor() as cursor:
        while True:
            with transaction.atomic():
                cursor.execute(
                    "DELETE FROM memories_revision WHERE id IN ("
                    "SELECT r.id FROM memories_revision r WHERE r.at < %s AND NOT EXISTS "
                    "(SELECT 1 FROM memories_trashedmemory t WHERE t.revision_id = r.id) "
                    "LIMIT %s)",
                    [cutoff_db, PRUNE_BATCH],
                )
                count = cursor.rowcount
            removed_revisions += count
            if count < PRUNE_BATCH:
                break
        with transaction.atomic():
            empty = (
                "SELECT c.id FROM memories_changeset c WHERE c.at < %s AND NOT EXISTS "
                "(SELECT 1 FROM memories_revision r WHERE r.change_set_id = c.id)"
            )
            cursor.execute(
                f"UPDATE memories_changeset SET undoes_id = NULL WHERE undoes_id IN ({empty})",
                [cutoff_db],
            )
            cursor.execute(f"DELETE FROM memories_changeset WHERE id IN ({empty})", [cutoff_db])
            removed_sets = cursor.rowcount
            # The feed past the retention period: a stream resuming from before it is told to
            # read the store afresh (memories.reads.changes.Backlog).
            cursor.execute("DELETE FROM memories_change WHERE at < %s", [cutoff_db])
    memory_states.prune(cutoff_db)
    return Pruned(revisions=removed_revisions, change_sets=removed_sets, cutoff=cutoff)
