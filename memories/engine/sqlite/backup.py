"""A consistent copy of the whole store while writers run, by SQLite's online backup API.

The copy is taken in one step, inside one read transaction on the live store: in WAL mode
that reader never blocks the writers, and the copy is the store as it stood at one instant
(a stepped backup would restart each time another connection wrote).
"""

import os
import sqlite3
from pathlib import Path

from django.db import connection

from memories.engine import BackupReport
from memories.engine.tables import MEMORY_TABLE

# What the seam (memories.engine.PROVIDES) takes from this module, and nothing else.
__all__ = ["backup", "check", "SUFFIX", "RESTORE"]

SUFFIX = ".sqlite3"
RESTORE = (
    "To restore it, stop the server, put it in place of the store and run "
    "`manage.py memory verify`."
)


def backup(destination: Path) -> BackupReport:
    """Copy the store to `destination` (a new file, made 0600) and check the copy."""
    partial = destination.with_name(destination.name + ".partial")
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    try:
        connection.ensure_connection()
        copy = sqlite3.connect(partial)
        try:
            connection.connection.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        finally:
            copy.close()
        report = check(partial)
        if report.ok:
            os.link(partial, destination)  # refuses, rather than replaces, a file made meanwhile
    finally:
        partial.unlink()
    report.path = destination
    return report


def check(path: Path) -> BackupReport:
    """SQLite's integrity check of a backup, and what it holds."""
    copy = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        problems = [row[0] for row in copy.execute("PRAGMA integrity_check")]
        memories = copy.execute(f"SELECT count(*) FROM {MEMORY_TABLE}").fetchone()[0]
    finally:
        copy.close()
    return BackupReport(
        path=path,
        bytes=path.stat().st_size,
        memories=memories,
        problems=[] if problems == ["ok"] else problems,
    )
