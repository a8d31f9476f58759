"""The store's SQLite connections: how they are opened, and how a busy store refuses.

Read by the settings, so it imports nothing of Django's database layer.
"""

import contextlib
from collections.abc import Iterator
from pathlib import Path

BUSY_TIMEOUT_MS = 30_000


def database(*, data_dir: Path) -> dict:
    """The DATABASES entry of the store kept in data_dir.

    Several gunicorn workers and management commands share one file: WAL lets readers run
    beside a writer, IMMEDIATE takes the write lock at BEGIN so a transaction never has to
    upgrade a read lock (the source of "database is locked" under busy_timeout), and the
    timeout makes a second writer wait for the first instead of failing. Searches and
    listings read rows scattered over the file: memory-mapped reads spare a system call per
    page that SQLite's default 2 MiB page cache would otherwise make.
    """
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": data_dir / "memadmin.sqlite3",
        "CONN_MAX_AGE": None,
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": {
            "timeout": BUSY_TIMEOUT_MS / 1000,
            "transaction_mode": "IMMEDIATE",
            "init_command": (
                "PRAGMA journal_mode=WAL;"
                "PRAGMA synchronous=NORMAL;"
                f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS};"
                "PRAGMA foreign_keys=ON;"
                "PRAGMA mmap_size=268435456;"
            ),
        },
        # A file, not :memory:, so tests see WAL and the browser suite's server shares it.
        "TEST": {"NAME": str(data_dir / "test-memadmin.sqlite3")},
    }


def is_busy(problem) -> bool:
    """Whether an OperationalError is a writer that waited out busy_timeout."""
    return "locked" in str(problem) or "busy" in str(problem)


@contextlib.contextmanager
def without_waiting(connection) -> Iterator[None]:
    """Statements inside fail at once (is_busy) when another writer holds the store, rather
    than waiting out the busy timeout."""
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA busy_timeout=0")
        try:
            yield
        finally:
            cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
