"""A writer that is killed with SIGKILL in the middle of its write transactions, many times.

Run as `python crash_writer.py DB_PATH ROUNDS SEED`. This process loads Django without
opening a connection, then for each round forks a child that writes pairs of memories in
one transaction each and prints `ack <n>` after each commit; the parent kills the child with
SIGKILL after a random few milliseconds, so kills land before, inside and after commits.
"""

import os
import random
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")


def child(start: int, ready_fd: int) -> None:
    """Writes pairs until killed; tells the parent it is connected, then each commit."""
    from django.db import connection, transaction

    from memories.writes import doors

    # Connect before telling the parent to start its clock, so that on a loaded machine
    # the kills still land among the writes rather than during start-up.
    connection.ensure_connection()
    os.write(ready_fd, b"r")
    number = start
    while True:
        with transaction.atomic():
            # Two memories and their references in one transaction: after any crash both
            # are there or neither is.
            doors.write(
                f"a-{number}",
                description=f"pair {number} first",
                body=f"alpha {number}",
                references=[f"b-{number}"],
                tags=["crash"],
            )
            doors.write(
                f"b-{number}",
                description=f"pair {number} second",
                body=f"beta {number}",
                references=[f"a-{number}"],
            )
        os.write(1, f"ack {number}\n".encode())
        os.write(ready_fd, b"c")
        number += 1


def warm_up() -> None:
    """What every child would otherwise load before its first write (the doors' modules, the
    embedding model: half a second), loaded once here and inherited by the fork, so the kills
    land among the writes and their commits rather than in the child's start-up."""
    from memories import embedding
    from memories.writes import doors  # noqa: F401

    embedding.model()


def main() -> None:
    db_path, rounds, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    from django.conf import settings

    settings.DATABASES["default"]["NAME"] = db_path
    import django

    django.setup()
    warm_up()
    rng = random.Random(seed)
    for round_number in range(rounds):
        ready_read, ready_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(ready_read)
            child(round_number * 1_000_000, ready_write)
            os._exit(0)
        os.close(ready_write)
        os.read(ready_read, 1)
        if round_number % 10 == 0:
            # Every tenth round waits for one commit first, so that however loaded the
            # machine, the run has acknowledged writes to look for afterwards.
            os.read(ready_read, 1)
        time.sleep(rng.uniform(0.001, 0.060))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(ready_read)
    os.write(1, f"rounds {rounds}\n".encode())


if __name__ == "__main__":
    main()
