"""The states of each memory over time (memories.models.MemoryState), kept by the history in
the transaction of each revision: a revision ends the state it found (its `before`) and begins
the one it leaves (its `after`). memories.reads.past_view reads them."""

import datetime as dt
import json
from collections.abc import Iterable, Iterator

from django.db import connection, transaction
from django.db.models import F

from memories.models import GLOBAL_TIER, Action, Memory, MemoryState, Revision

STATES = MemoryState._meta.db_table
REVISIONS = Revision._meta.db_table
MEMORIES = Memory._meta.db_table
# Changes after which the memory is out of the store: they begin no state.
_GONE = {Action.DELETE, Action.PURGE}
COLUMNS = ("tier", "load", "priority", "created_at", "expires_at", "has_body", "tags")


def _moment(value: str | None):
    if value is None:
        return None
    return connection.ops.adapt_datetimefield_value(dt.datetime.fromisoformat(value))


def keys(state: dict) -> list:
    """The COLUMNS of a state, from a revision's snapshot of it."""
    return [
        state["project_id"] or GLOBAL_TIER,
        state["load"],
        state["priority"],
        _moment(state["created_at"]),
        _moment(state["expires_at"]),
        state["body"] != "",
        json.dumps(state["tags"], ensure_ascii=False),
    ]


def _place(state: dict | None) -> tuple | None:
    """Where a state counts in the tallies: its tier, load and tags."""
    if state is None:
        return None
    return (state["project_id"] or GLOBAL_TIER, state["load"], sorted(state["tags"]))


_SET = ", ".join(f"{column} = %s" for column in COLUMNS)
_MARKS = ", ".join(["%s"] * len(COLUMNS))
# A memory written before its history was kept (or past the doors) has no state standing: the
# one its `before` holds stood since before the history.
BEGIN_UNKNOWN = (
    f"INSERT INTO {STATES} (memory_id, {', '.join(COLUMNS)}, since, until, ended_by, joins, "
    f"leaves, purged) VALUES (%s, {_MARKS}, NULL, NULL, NULL, TRUE, FALSE, FALSE) "
    "ON CONFLICT (memory_id) WHERE until IS NULL DO NOTHING"
)
END = (
    f"UPDATE {STATES} SET {_SET}, until = %s, ended_by = %s, leaves = %s "
    "WHERE memory_id = %s AND until IS NULL"
)
BEGIN = (
    f"INSERT INTO {STATES} (memory_id, {', '.join(COLUMNS)}, since, until, ended_by, joins, "
    f"leaves, purged) VALUES (%s, {_MARKS}, %s, NULL, NULL, %s, FALSE, FALSE)"
)


def record(cursor, changes: Iterable[tuple[int, int, str, dict | None, dict | None]]) -> None:
    """Keep the states of these changes, each (memory id, revision id, its moment as the
    database takes it, before, after: snapshots), in the caller's transaction."""
    began, ended, ending = [], [], []
    for memory_id, revision_id, at, before, after in changes:
        moved = _place(before) != _place(after)
        if before is not None:
            was = keys(before)
            ended.append([memory_id, *was])
            ending.append([*was, at, revision_id, moved, memory_id])
        if after is not None:
            began.append([memory_id, *keys(after), at, moved])
    if ended:
        cursor.executemany(BEGIN_UNKNOWN, ended)
        cursor.executemany(END, ending)
    if began:
        cursor.executemany(BEGIN, began)


def erase(memory_id: int) -> None:
    """A purged memory's states: when and in which tier it stood stay (a view then counts it
    as purged), the rest goes with its text, as rebuild() finds it in the erased revisions;
    and it no longer moves the tallies of the past (its deletion's snapshot, which said what
    it took away, is erased too)."""
    MemoryState.objects.filter(memory_id=memory_id).update(
        purged=True,
        load="",
        priority=0,
        created_at=F("until"),
        expires_at=None,
        has_body=False,
        tags=[],
        joins=False,
        leaves=False,
    )


PRUNE_BATCH = 5000


def prune(cutoff_db) -> int:
    """Remove the states that ended before the cutoff: no moment the history answers for
    (memories.reads.past_view.answers_from) is before it."""
    removed = 0
    with connection.cursor() as cursor:
        while True:
            with transaction.atomic():
                cursor.execute(
                    f"DELETE FROM {STATES} WHERE id IN (SELECT id FROM {STATES} "
                    "WHERE until < %s LIMIT %s)",
                    [cutoff_db, PRUNE_BATCH],
                )
                count = cursor.rowcount
            removed += count
            if count < PRUNE_BATCH:
                return removed


# Revisions after which a memory that was there before them: a purged memory's, whose
# snapshots are erased, say no more than that.
_FOUND_IT = {Action.UPDATE, Action.MOVE, Action.EDIT, Action.DELETE, Action.REVERT}
_ALL = ("memory_id", *COLUMNS, "since", "until", "ended_by", "joins", "leaves", "purged")
INSERT = f"INSERT INTO {STATES} ({', '.join(_ALL)}) VALUES ({', '.join(['%s'] * len(_ALL))})"


def _json(value):
    return json.loads(value) if isinstance(value, str) else value


def _standing(cursor) -> dict[int, tuple[list, tuple]]:
    """Each memory's row as it stands: its COLUMNS and its place."""
    cursor.execute(
        "SELECT id, tier, load, priority, created_at, expires_at, "
        f"CASE WHEN body = '' THEN FALSE ELSE TRUE END, tags FROM {MEMORIES}"
    )
    found = {}
    for memory_id, tier, load, priority, created, expires, has_body, tags in cursor.fetchall():
        tags = _json(tags)
        columns = [
            tier,
            load,
            priority,
            created,
            expires,
            bool(has_body),
            json.dumps(tags, ensure_ascii=False),
        ]
        found[memory_id] = (columns, (tier, load, sorted(tags)))
    return found


def _by_memory(cursor) -> Iterator[tuple[int, list[tuple]]]:
    """Each memory's revisions in order: (id, at, action, purged, tier before, before)."""
    cursor.execute(
        "SELECT memory_id, id, at, action, purged, COALESCE(previous_tier, tier), before "
        f"FROM {REVISIONS} ORDER BY memory_id, id"
    )
    memory_id, revisions = None, []
    while rows := cursor.fetchmany(2000):
        for row in rows:
            if row[0] != memory_id:
                if revisions:
                    yield memory_id, revisions
                memory_id, revisions = row[0], []
            revisions.append((*row[1:6], _json(row[6])))
    if revisions:
        yield memory_id, revisions


def _states_of(memory_id: int, revisions: list[tuple], row) -> Iterator[list]:
    """The states of one memory (INSERT's values) from its revisions and its row (None: not in
    the store), as record() would have kept them."""
    since, joins = None, True
    for number, (revision_id, at, action, purged, tier, before) in enumerate(revisions):
        if action in _GONE:
            after = None
        elif number + 1 < len(revisions):
            following = revisions[number + 1][5]
            after = _place(following) if following is not None else None
        else:
            after = row[1] if row is not None else None
        moved = _place(before) != after
        if purged and action in _FOUND_IT:
            erased = [tier, "", 0, at, None, False, "[]"]  # as erase() leaves it
            yield [memory_id, *erased, since, at, revision_id, False, False, True]
        elif before is not None:
            yield [memory_id, *keys(before), since, at, revision_id, joins, moved, False]
        since, joins = at, moved
    if row is not None:
        yield [memory_id, *row[0], since, None, None, joins, False, False]


def rebuild() -> int:
    """Every state again, from the revisions and the rows as they stand: those record() keeps,
    for a store whose history was kept before the states were. Returns how many."""
    written, batch = 0, []
    # The revisions read in chunks (on PostgreSQL a cursor of the server's), not held whole.
    with (
        transaction.atomic(),
        connection.cursor() as cursor,
        connection.chunked_cursor() as reading,
    ):
        cursor.execute(f"DELETE FROM {STATES}")
        standing = _standing(cursor)
        for memory_id, revisions in _by_memory(reading):
            batch.extend(_states_of(memory_id, revisions, standing.pop(memory_id, None)))
            if len(batch) >= 2000:
                cursor.executemany(INSERT, batch)
                written, batch = written + len(batch), []
        # Memories with no revision kept (written before the history, or pruned since).
        for memory_id, row in standing.items():
            batch.extend(_states_of(memory_id, [], row))
        cursor.executemany(INSERT, batch)
    return written + len(batch)
