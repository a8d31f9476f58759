"""A consistent copy of the whole store while writers run, by pg_dump.

pg_dump reads the database inside one repeatable-read snapshot and takes no lock that
blocks a writer, so the archive is the store as it stood at one instant. The custom format
is what `pg_restore` reads; its check lists the archive and counts the memories it holds.
"""

import os
import shutil
import subprocess
from pathlib import Path

from django.db import connection

from memories.engine import BackupReport
from memories.engine.tables import MEMORY_TABLE

# What the seam (memories.engine.PROVIDES) takes from this module, and nothing else.
__all__ = ["backup", "check", "SUFFIX", "RESTORE"]

SUFFIX = ".dump"
RESTORE = (
    "To restore it into an empty database, run `pg_restore --no-owner -d NAME` on it, point "
    "MEMADMIN_DATABASE_URL there and run `manage.py memory verify`."
)


def _program(name: str) -> str:
    found = shutil.which(name)
    if not found:
        raise FileNotFoundError(f"{name} (Debian's postgresql-client) is not installed")
    return found


def _environment() -> dict:
    settings = connection.settings_dict
    env = {**os.environ, "PGPASSWORD": settings["PASSWORD"] or ""}
    for key, variable in (("HOST", "PGHOST"), ("PORT", "PGPORT"), ("USER", "PGUSER")):
        if settings[key]:
            env[variable] = str(settings[key])
    return env


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, env=_environment(), capture_output=True, check=False)


def backup(destination: Path) -> BackupReport:
    """Dump the store to `destination` (a new file, made 0600) and check the archive."""
    partial = destination.with_name(destination.name + ".partial")
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    try:
        dumped = _run(
            _program("pg_dump"),
            "--format=custom",
            "--no-owner",
            f"--file={partial}",
            connection.settings_dict["NAME"],
        )
        if dumped.returncode != 0:
            return BackupReport(
                path=destination, bytes=0, memories=0, problems=[_last_line(dumped)]
            )
        report = check(partial)
        if report.ok:
            os.link(partial, destination)  # refuses, rather than replaces, a file made meanwhile
    finally:
        partial.unlink()
    report.path = destination
    return report


def check(path: Path) -> BackupReport:
    """The archive's table of contents read back by pg_restore, and the memories it holds."""
    listed = _run(_program("pg_restore"), "--list", str(path))
    if listed.returncode != 0:
        return BackupReport(path=path, bytes=0, memories=0, problems=[_last_line(listed)])
    rows = _run(
        _program("pg_restore"), "--data-only", f"--table={MEMORY_TABLE}", "--file=-", str(path)
    )
    if rows.returncode != 0:
        return BackupReport(path=path, bytes=0, memories=0, problems=[_last_line(rows)])
    return BackupReport(path=path, bytes=path.stat().st_size, memories=_copied_rows(rows.stdout))


def _copied_rows(script: bytes) -> int:
    """The rows of the COPY block of a data-only restore script (up to its `\\.` line)."""
    lines = script.splitlines()
    starts = [n for n, line in enumerate(lines) if line.startswith(b"COPY ")]
    if not starts:
        return 0
    end = lines.index(b"\\.", starts[0])
    return end - starts[0] - 1


def _last_line(finished: subprocess.CompletedProcess) -> str:
    text = finished.stderr.decode(errors="replace").strip()
    return text.splitlines()[-1] if text else f"exit status {finished.returncode}"
