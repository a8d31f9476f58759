"""A command on a store it cannot use (busy past the wait, a server down or refusing the
user, a file that is no store, a store never migrated, a data dir that cannot be one) ends
with one sentence on stderr and a non-zero exit: real processes, real faults."""

import contextlib
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.reliability.conftest import (
    ROOT,
    SERVER_URL,
    fresh_database,
    migrate,
    store_env,
)

# Every memadmin command, each with arguments that would touch the store.
COMMANDS = [
    ("memory", "list"),
    ("memory", "add", "note", "--description", "a note"),
    ("memory", "verify"),
    ("project", "add", "webdev"),
    ("apitoken", "list"),
    ("history", "prune", "--days", "30"),
    ("first_login",),
    ("seed_demo",),
]


def command(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def one_sentence(result: subprocess.CompletedProcess) -> str:
    """The stderr of a command that failed as it should: one line, no traceback."""
    assert result.returncode != 0, result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    return lines[0]


def bare_env(data_dir: Path, **settings: str) -> dict:
    """The environment of a command on data_dir, of no store of the suite's."""
    env = {**os.environ, "MEMADMIN_DATA_DIR": str(data_dir)}
    env.pop("MEMADMIN_DATABASE_URL", None)
    return {**env, **settings}


def closed_port() -> int:
    """A port of 127.0.0.1 nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A migrated store of the engine under test."""
    data_dir = tmp_path_factory.mktemp("built")
    migrate(data_dir)
    return data_dir


@contextlib.contextmanager
def write_lock_held(data_dir: Path):
    """Another process's transaction holding the store's write lock (the memories table
    on a server)."""
    url = store_env(data_dir).get("MEMADMIN_DATABASE_URL")
    if url:
        import psycopg

        with psycopg.connect(url) as con:
            con.execute("LOCK TABLE memories_memory IN EXCLUSIVE MODE")
            yield
            con.rollback()
        return
    con = sqlite3.connect(data_dir / "memadmin.sqlite3", isolation_level=None)
    try:
        con.execute("BEGIN IMMEDIATE")
        yield
        con.execute("ROLLBACK")
    finally:
        con.close()


def test_a_write_meeting_a_held_lock_past_the_wait_is_one_sentence(built):
    env = {**store_env(built), "MEMADMIN_BUSY_TIMEOUT_MS": "200"}
    with write_lock_held(built):
        result = command(env, "memory", "add", "note", "--description", "a note")
    line = one_sentence(result)
    assert line.startswith("CommandError: The store")
    assert "is busy: another process held it past the wait, so nothing was changed" in line
    assert "locked" not in line and "lock timeout" not in line
    assert '"note"' not in command(env, "memory", "list", "--format", "json").stdout


@pytest.mark.parametrize("args", COMMANDS, ids=lambda args: " ".join(args[:2]))
def test_every_command_on_a_stopped_server_is_one_sentence(tmp_path, args):
    port = closed_port()
    env = bare_env(
        tmp_path, MEMADMIN_DATABASE_URL=f"postgres://memadmin:secret@127.0.0.1:{port}/memadmin"
    )
    line = one_sentence(command(env, *args))
    assert line.startswith(
        f"CommandError: The store's database 'memadmin' on 127.0.0.1:{port} could not be opened"
    )
    assert "Connection refused" in line and line.endswith("nothing was changed.")


@pytest.mark.engine("postgresql")
def test_a_user_the_server_refuses_is_one_sentence(tmp_path):
    parts = urlsplit(SERVER_URL)
    wrong = parts._replace(netloc=f"nobody-here:wrong@{parts.hostname}:{parts.port}")
    env = bare_env(tmp_path, MEMADMIN_DATABASE_URL=urlunsplit(wrong))
    line = one_sentence(command(env, "memory", "list"))
    assert "could not be opened" in line and 'role "nobody-here" does not exist' in line


def test_a_store_never_migrated_says_to_migrate(tmp_path):
    env = bare_env(tmp_path)
    if SERVER_URL:
        env["MEMADMIN_DATABASE_URL"] = fresh_database()
    line = one_sentence(command(env, "memory", "list"))
    assert line.startswith("CommandError: The store")
    assert line.endswith("has no tables yet: run `manage.py migrate` first.")


@pytest.mark.engine("sqlite")
def test_a_file_that_is_no_store_is_one_sentence(tmp_path):
    (tmp_path / "memadmin.sqlite3").write_bytes(b"not a database, " * 512)
    line = one_sentence(command(bare_env(tmp_path), "project", "list"))
    assert line == (
        f"CommandError: The store {tmp_path}/memadmin.sqlite3 could not be used (file is not "
        "a database); nothing was changed."
    )


@pytest.mark.engine("sqlite")
@pytest.mark.parametrize("blocked", ["data dir", "store file"])
def test_a_data_dir_that_cannot_be_one_is_one_sentence(tmp_path, blocked):
    if blocked == "data dir":
        data_dir = tmp_path / "a-file"
        data_dir.write_text("")
        cause = f"File exists ({data_dir})"
    else:
        data_dir = tmp_path
        (tmp_path / "memadmin.sqlite3").mkdir()
        cause = f"Is a directory ({tmp_path}/memadmin.sqlite3)"
    line = one_sentence(command(bare_env(data_dir), "memory", "list"))
    assert line == f"Error: MEMADMIN_DATA_DIR {data_dir} cannot be used as the data dir: {cause}."
