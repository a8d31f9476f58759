"""`manage.py backup DEST`: a consistent copy of the store taken while writers run, restored
and checked by `memory verify` and the integrity check."""

import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.reliability.conftest import (
    SERVER_URL,
    fresh_database,
    manage,
    migrate,
    store_env,
    store_integrity_problems,
    store_rows,
)

ROOT = Path(__file__).resolve().parents[2]

# Each acknowledged write is a memory and its revision, in one transaction.
WRITER = """
import sys, django
django.setup()
from memories.writes import doors, history
number = 0
while True:
    with history.acting(door=history.COMMAND, label="writer"):
        doors.write(f"w-{number}", project=None, description=f"write {number}", body="x" * 2000)
    print(number, flush=True)
    number += 1
"""


SUFFIX = ".dump" if SERVER_URL else ".sqlite3"


def _restored(backup: Path, tmp_path: Path, name: str) -> Path:
    """A store made from the backup as its engine's restore says: SQLite's file put in place,
    or PostgreSQL's archive restored by pg_restore into an empty database."""
    data_dir = tmp_path / name
    data_dir.mkdir()
    if not SERVER_URL:
        shutil.copy(backup, data_dir / "memadmin.sqlite3")
        return data_dir
    url = fresh_database()
    (data_dir / "database-url").write_text(url)
    subprocess.run(
        ["pg_restore", "--no-owner", "--exit-on-error", "-d", url, str(backup)], check=True
    )
    return data_dir


def _revisions(data_dir: Path) -> int:
    if SERVER_URL:
        import psycopg

        with psycopg.connect((data_dir / "database-url").read_text()) as con:
            return con.execute("SELECT count(*) FROM memories_revision").fetchone()[0]
    with sqlite3.connect(data_dir / "memadmin.sqlite3") as con:
        return con.execute("SELECT count(*) FROM memories_revision").fetchone()[0]


def test_backups_taken_while_writers_run_restore_whole(tmp_path):
    live = tmp_path / "live"
    migrate(live)
    env = {**store_env(live), "DJANGO_SETTINGS_MODULE": "memadmin.settings"}
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER.replace('f"w-', f'f"w{n}-')],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    try:
        for writer in writers:
            writer.stdout.readline()  # writing has begun
        backups = []
        for number in range(3):
            backups.append(tmp_path / f"backup-{number}{SUFFIX}")
            output = manage(live, "backup", str(backups[-1]))
            assert "integrity check passed" in output
            time.sleep(0.3)
        stopped = [writer for writer in writers if writer.poll() is not None]
        # What a stopped writer said, so that a failure here names its cause.
        assert not stopped, "a writer stopped: " + "".join(w.stderr.read()[-2000:] for w in stopped)
    finally:
        for writer in writers:
            writer.kill()
            writer.wait()
    held = []
    for number, backup in enumerate(backups):
        assert backup.stat().st_mode & 0o777 == 0o600
        restored = _restored(backup, tmp_path, f"restored-{number}")
        output = manage(restored, "memory", "verify")
        assert "The search index is sound" in output
        assert store_integrity_problems(restored) == []
        names = set(store_rows(restored))
        memories, revisions = len(names), _revisions(restored)
        assert memories == revisions  # no write caught halfway
        for writer in range(2):
            mine = sorted(int(n.split("-")[1]) for n in names if n.startswith(f"w{writer}-"))
            assert mine == list(range(len(mine)))  # every write up to the instant, none after
        held.append(memories)
    assert held == sorted(held) and held[0] > 0


def test_a_backup_never_replaces_a_file(db, tmp_path):
    existing = tmp_path / "kept.sqlite3"
    existing.write_text("not a store")
    with pytest.raises(CommandError, match="exists; name a new file or a directory"):
        call_command("backup", str(existing))
    assert existing.read_text() == "not a store"
    with pytest.raises(CommandError, match="is not a directory"):
        call_command("backup", str(tmp_path / "missing" / "x.sqlite3"))


def test_a_copy_that_fails_its_check_is_not_kept(transactional_db, tmp_path, monkeypatch):
    # A copy damaged on its way to the disk cannot be made on purpose: its check says so.
    from django.db import connection

    from memories import engine
    from memories.engine import BackupReport

    module = engine.of(connection).backup
    monkeypatch.setattr(module, "check", lambda path: BackupReport(path, 0, 0, ["damaged"]))
    destination = tmp_path / ("copy" + module.SUFFIX)
    with pytest.raises(CommandError, match="failed its integrity check and was not kept"):
        call_command("backup", str(destination))
    assert list(tmp_path.iterdir()) == []
