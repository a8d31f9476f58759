"""The store's SQLite connections: how they are opened, and how a busy store refuses.

Read by the settings, so it imports nothing of Django's database layer.
"""

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

# What the seam (memories.engine.PROVIDES) takes from this module, and nothing else.
__all__ = ["database", "is_busy", "is_lost", "without_waiting", "change_counter"]

STORE = "memadmin.sqlite3"


def _owner_only(store: Path) -> None:
    """Create the store file readable by its owner alone before SQLite first opens it:
    SQLite gives its -wal and -shm files the mode of the store file. A store made before
    is narrowed to that mode, with its -wal and -shm."""
    os.close(os.open(store, os.O_WRONLY | os.O_CREAT, 0o600))
    for path in (store, Path(f"{store}-wal"), Path(f"{store}-shm")):
        if path.exists() and path.stat().st_mode & 0o077:
            path.chmod(0o600)


def database(*, data_dir: Path, busy_timeout_ms: int) -> dict:
    """The DATABASES entry of the store kept in data_dir.

    Several gunicorn workers and management commands share one file: WAL lets readers run
    beside a writer, IMMEDIATE takes the write lock at BEGIN so a transaction never has to
    upgrade a read lock (the source of "database is locked" under busy_timeout), and the
    timeout makes a second writer wait for the first instead of failing. Searches and
    listings read rows scattered over the file: memory-mapped reads spare a system call per
    page that SQLite's default 2 MiB page cache would otherwise make.
    """
    _owner_only(data_dir / STORE)
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": data_dir / STORE,
        "CONN_MAX_AGE": None,
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": {
            "timeout": busy_timeout_ms / 1000,
            "transaction_mode": "IMMEDIATE",
            "init_command": (
                "PRAGMA journal_mode=WAL;"
                "PRAGMA synchronous=NORMAL;"
                f"PRAGMA busy_timeout={busy_timeout_ms};"
                "PRAGMA foreign_keys=ON;"
                "PRAGMA mmap_size=268435456;"
            ),
        },
        # A file, not :memory:, so tests see WAL and the browser suite's server shares it.
        "TEST": {"NAME": str(data_dir / "test-memadmin.sqlite3")},
    }


def is_lost(problem) -> bool:
    """A file opened in this process is never disconnected."""
    return False


def is_busy(problem) -> bool:
    """Whether an OperationalError is a writer that waited out busy_timeout."""
    return "locked" in str(problem) or "busy" in str(problem)


@contextlib.contextmanager
def without_waiting(connection) -> Iterator[None]:
    """Statements inside fail at once (is_busy) when another writer holds the store, rather
    than waiting out the busy timeout."""
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA busy_timeout")
        waits = cursor.fetchone()[0]
        cursor.execute("PRAGMA busy_timeout=0")
        try:
            yield
        finally:
            cursor.execute(f"PRAGMA busy_timeout={int(waits)}")


def change_counter(connection):
    """A value that differs whenever a change was committed to the store since it was read:
    another connection's (data_version) or this one's (total_changes). One statement, no
    table read: what a cache kept per connection checks before each use."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT data_version, total_changes() FROM pragma_data_version()")
        return cursor.fetchone()
