"""The connection to PostgreSQL lost mid-request (a restart, a failover, a terminated
backend): the request is answered 503 with Retry-After and one sentence, never a 500, what it
was writing is not there, and the next request reconnects. Likewise an import whose
connection is lost mid-transaction leaves nothing of itself."""

import subprocess
import sys
import threading
import time

import psycopg
import pytest

from memadmin.web.responses import LOST_CONNECTION
from memories.engine.postgresql.backend.base import WRITE_LOCK

from .conftest import ROOT, Served, manage, migrate, store_env

pytestmark = pytest.mark.engine("postgresql")


def _backend_waiting_for(store_url: str, holder: psycopg.Connection, answers=()) -> int:
    """The pid of the app's backend queued behind the write lock `holder` holds."""
    for _ in range(6000):
        assert not answers, answers
        holder.execute("SELECT pg_stat_clear_snapshot()")  # else read once a transaction
        row = holder.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        ).fetchone()
        if row:
            return row[0]
        time.sleep(0.01)
    raise AssertionError("no request came to wait for the write lock")


@pytest.fixture
def served(tmp_path):
    server = Served(tmp_path, workers=1)
    yield server
    assert "Traceback" not in server.stop()


def test_a_connection_lost_mid_request_is_a_503_and_the_next_request_reconnects(served):
    assert served.request("PUT", "/v1/memories/kept", {"description": "before"}).status == 201
    url = store_env(served.data_dir)["MEMADMIN_DATABASE_URL"]
    answers = []
    with psycopg.connect(url) as holder:
        holder.execute("SELECT pg_advisory_xact_lock(%s)", [WRITE_LOCK])
        writer = threading.Thread(
            target=lambda: answers.append(
                served.request("PUT", "/v1/memories/kept", {"description": "lost"})
            )
        )
        writer.start()
        pid = _backend_waiting_for(url, holder)
        holder.execute("SELECT pg_terminate_backend(%s)", [pid])
        writer.join(60)
        holder.rollback()
    (lost,) = answers
    assert lost.status == 503, lost.body
    assert lost.headers["Retry-After"] == "2"
    assert lost.json() == {"error": LOST_CONNECTION, "retry_after": 2}
    again = served.request("GET", "/v1/memories/kept")
    assert again.status == 200 and again.json()["description"] == "before"
    assert served.request("PUT", "/v1/memories/kept", {"description": "after"}).status == 200


def test_an_import_whose_connection_is_lost_leaves_nothing_of_itself(tmp_path):
    """The import is stopped at its last row: a project whose row another transaction holds
    (its memories' foreign key waits for it), after 300 memories of the global tier."""
    source, target = tmp_path / "source", tmp_path / "target"
    for store in (source, target):
        migrate(store)
        manage(store, "project", "add", "later")
    manage(
        source,
        "shell",
        "-c",
        "from memories.writes import doors\n"
        "for n in range(300): doors.write(f'm{n}', description=f'memory {n}', body='x' * 50)\n"
        "doors.write('last', project='later', description='the last one')",
    )
    manage(source, "memory", "export", "--directory", str(tmp_path / "snapshot"))
    url = store_env(target)["MEMADMIN_DATABASE_URL"]
    answers = []
    with psycopg.connect(url) as holder:
        holder.execute("SELECT 1 FROM projects_project WHERE name = 'later' FOR UPDATE")
        importing = threading.Thread(
            target=lambda: answers.append(_import(target, tmp_path / "snapshot"))
        )
        importing.start()
        pid = _backend_waiting_for(url, holder, answers)
        # It has written memories by now (an insert's lock on the table), and waits.
        assert holder.execute(
            "SELECT count(*) FROM pg_locks WHERE pid = %s AND granted"
            " AND relation = 'memories_memory'::regclass AND mode = 'RowExclusiveLock'",
            [pid],
        ).fetchone() == (1,)
        holder.execute("SELECT pg_terminate_backend(%s)", [pid])
        importing.join(120)
        holder.rollback()
        assert holder.execute("SELECT count(*) FROM memories_memory").fetchone() == (0,)
        assert holder.execute("SELECT count(*) FROM memories_revision").fetchone() == (0,)
        assert holder.execute("SELECT count(*) FROM memories_reference").fetchone() == (0,)
    (failed,) = answers
    assert failed.returncode != 0
    assert "terminating connection" in failed.stderr


def _import(data_dir, snapshot):
    return subprocess.run(
        [sys.executable, "manage.py", "memory", "import", str(snapshot)],
        cwd=ROOT,
        env=store_env(data_dir),
        capture_output=True,
        text=True,
        timeout=120,
    )
