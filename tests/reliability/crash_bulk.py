"""Bulk actions and imports of many rows killed with SIGKILL part way, round after round.

Run as `python crash_bulk.py DB_NAME ROUNDS SEED`. The store holds the memories `bulk-*`
(tests/reliability/test_crash_bulk.py makes them). Each round forks a child that connects,
tells the parent, and runs one bulk action (even rounds: every `bulk-*` memory to the
round's priority) or one import (odd rounds: ROWS new memories `imp-<round>-*`); the parent
kills it with SIGKILL a random while into it, then looks at the store: the action's rows are
all changed or none, and its change set whole or absent. It prints one line a round,
`round N bulk|import whole|absent`, `bad ...` for anything else, and `rounds N` at the end.
"""

import datetime as dt
import os
import random
import select
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")

ROWS = 200


def priority_of(round_number: int) -> int:
    """Each bulk round's own priority (the memories start at 100), so what a round left is
    told apart from what any other did."""
    return round_number // 2


def child(round_number: int, ready_fd: int) -> None:
    from django.db import connection

    from memories.models import Memory
    from memories.writes import bulk, imports

    connection.ensure_connection()
    if round_number % 2 == 0:
        ids = list(Memory.objects.filter(name__startswith="bulk-").values_list("id", flat=True))
        os.write(ready_fd, b"r")
        bulk.set_priority(ids, priority_of(round_number))
    else:
        created = dt.datetime(2024, 1, 2, tzinfo=dt.UTC)
        entries = [
            imports.ImportEntry(
                name=f"imp-{round_number}-{i}",
                project=None,
                description=f"imported {i} of round {round_number}",
                created_at=created,
                body=f"imported body {i}",
                references=[f"bulk-{i}"],
            )
            for i in range(ROWS)
        ]
        os.write(ready_fd, b"r")
        imports.import_memories(entries)
    os.write(ready_fd, b"c")


def look(round_number: int) -> str:
    """What the killed round left: 'whole', 'absent' or 'bad ...'."""
    from django.db import connection

    from memories.models import ChangeSet, Memory

    try:
        if round_number % 2 == 0:
            priorities = set(
                Memory.objects.filter(name__startswith="bulk-").values_list("priority", flat=True)
            )
            if len(priorities) != 1:
                return f"bad: the bulk rows hold priorities {sorted(priorities)}"
            summary = f"Set priority {priority_of(round_number)} on {ROWS} memories"
            landed = priorities == {priority_of(round_number)}
        else:
            count = Memory.objects.filter(name__startswith=f"imp-{round_number}-").count()
            if count not in (0, ROWS):
                return f"bad: {count} of the import's {ROWS} memories are there"
            summary = f"Import of {ROWS} memories"
            landed = count == ROWS
        sets = ChangeSet.objects.filter(summary=summary, at__gte=started[round_number])
        revisions = [group.revisions.count() for group in sets]
        if revisions != ([ROWS] if landed else []):
            return f"bad: landed={landed}, change sets of {revisions} revisions"
        return "whole" if landed else "absent"
    finally:
        connection.close()  # the next child is forked with no connection of ours


started: dict[int, dt.datetime] = {}


def warm_up() -> None:
    """What every child would otherwise load before its action (the doors' modules, the
    embedding model an import needs: half a second), loaded once here and inherited by the
    fork, so the kills land in the actions rather than in the child's start-up."""
    from memories import embedding
    from memories.writes import bulk, imports  # noqa: F401

    embedding.model()


def main() -> None:
    db_name, rounds, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    from django.conf import settings

    settings.DATABASES["default"]["NAME"] = db_name
    import django

    django.setup()
    warm_up()
    from django.utils import timezone

    rng = random.Random(seed)
    # How long a whole action of each kind (bulk: 0, import: 1) takes here, learnt from the
    # rounds 0 and 1: an import is quicker than a bulk action, so each kind's kills land
    # within its own run.
    spreads: dict[int, float] = {}
    for round_number in range(rounds):
        ready_read, ready_write = os.pipe()
        started[round_number] = timezone.now()
        pid = os.fork()
        if pid == 0:
            os.close(ready_read)
            child(round_number, ready_write)
            os._exit(0)
        os.close(ready_write)
        os.read(ready_read, 1)
        begun = time.monotonic()
        kind_number = round_number % 2
        if kind_number not in spreads:
            # The first rounds run whole: their time sets where the kills of the rest land.
            os.read(ready_read, 1)
            spreads[kind_number] = time.monotonic() - begun
        else:
            # A child that has committed and said so is killed then: waiting on would land
            # the kill after the commit all the same.
            select.select([ready_read], [], [], rng.uniform(0, spreads[kind_number] * 1.2))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(ready_read)
        kind = "bulk" if round_number % 2 == 0 else "import"
        os.write(1, f"round {round_number} {kind} {look(round_number)}\n".encode())
    os.write(1, f"rounds {rounds}\n".encode())


if __name__ == "__main__":
    main()
