"""`manage.py backup DEST`: a consistent copy of the store taken while writers run, restored
and checked by `memory verify` and the integrity check."""

import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.reliability.conftest import manage

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


def _restored(backup: Path, tmp_path: Path, name: str) -> Path:
    data_dir = tmp_path / name
    data_dir.mkdir()
    shutil.copy(backup, data_dir / "memadmin.sqlite3")
    return data_dir


def test_backups_taken_while_writers_run_restore_whole(tmp_path):
    live = tmp_path / "live"
    manage(live, "migrate", "--noinput", "-v0")
    env = {
        **os.environ,
        "MEMADMIN_DATA_DIR": str(live),
        "DJANGO_SETTINGS_MODULE": "memadmin.settings",
    }
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
            backups.append(tmp_path / f"backup-{number}.sqlite3")
            output = manage(live, "backup", str(backups[-1]))
            assert "integrity check passed" in output
            time.sleep(0.3)
        assert all(writer.poll() is None for writer in writers), "a writer stopped"
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
        with sqlite3.connect(restored / "memadmin.sqlite3") as con:
            assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            memories = con.execute("SELECT count(*) FROM memories_memory").fetchone()[0]
            revisions = con.execute("SELECT count(*) FROM memories_revision").fetchone()[0]
            names = {row[0] for row in con.execute("SELECT name FROM memories_memory")}
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
