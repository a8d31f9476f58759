"""Writers on PostgreSQL take turns, as SQLite's BEGIN IMMEDIATE makes them: a second
transaction waits for the first to commit and then reads what it wrote (the reliability
suite's servers test the same through If-Match PUTs and the edit door)."""

import threading

import pytest
from django.db import connection, connections, transaction

from memories.models import Memory
from memories.writes import doors

pytestmark = pytest.mark.engine("postgresql")


def _waiting_writers() -> int:
    with connection.cursor() as cursor:
        # pg_locks spans the cluster: the other test workers' databases hold writers too.
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        )
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_a_second_writer_waits_for_the_first_and_reads_what_it_wrote():
    doors.write("counter", description="a counter", body="0")
    first_read, release = threading.Event(), threading.Event()
    failures = []

    def increment(hold: bool) -> None:
        try:
            with transaction.atomic():
                current = int(Memory.objects.get(name="counter").body)
                if hold:
                    first_read.set()
                    release.wait(30)
                doors.write("counter", body=str(current + 1))
        except Exception as error:  # reported by the main thread
            failures.append(error)
        finally:
            connections.close_all()

    first = threading.Thread(target=increment, args=(True,))
    first.start()
    assert first_read.wait(30)
    second = threading.Thread(target=increment, args=(False,))
    second.start()
    for _ in range(3000):  # until the second writer is queued behind the first's lock
        if _waiting_writers():
            break
        second.join(0.01)
    assert _waiting_writers() == 1
    release.set()
    first.join(30)
    second.join(30)
    assert failures == []
    assert Memory.objects.get(name="counter").body == "2"
