"""Fixtures of the reliability suite: a store of its own in a temporary directory, served by
gunicorn on 127.0.0.1, and the scale of the run.

`RELIABILITY_LONG=1` makes the longer run (tests/scale.py).
"""

import atexit
import http.client
import json
import os
import secrets
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]


def listening_socket() -> socket.socket:
    """A socket on 127.0.0.1 and a port the system picks free, already listening, for a
    server to inherit (gunicorn's fd:// bind): no other run can take the port meanwhile."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


# The PostgreSQL server under test (scripts/test.sh's second pass); unset: SQLite.
SERVER_URL = os.environ.get("MEMADMIN_DATABASE_URL", "")


def fresh_database(template: str | None = None) -> str:
    """A new database on the PostgreSQL server under test, empty or a copy of the database
    named `template`; its URL."""
    import psycopg
    from psycopg import sql

    name = "store_" + secrets.token_hex(6)
    statement = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
    if template:
        statement += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
    with psycopg.connect(SERVER_URL, autocommit=True) as server:
        server.execute(statement)
    return urlunsplit(urlsplit(SERVER_URL)._replace(path="/" + name))


def store_env(data_dir: Path) -> dict:
    """The environment of every process of the store kept in data_dir: on PostgreSQL, with
    the database of its own named in data_dir/database-url (made on first use)."""
    env = {**os.environ, "MEMADMIN_DATA_DIR": str(data_dir)}
    if SERVER_URL:
        named = data_dir / "database-url"  # empty: the store is SQLite's all the same
        if not named.exists():
            data_dir.mkdir(parents=True, exist_ok=True)
            named.write_text(fresh_database())
        env["MEMADMIN_DATABASE_URL"] = named.read_text()
    return env


_migrated_once: dict[bool, Path] = {}  # by engine (SQLite: True): a store migrated here


def migrate(data_dir: Path) -> None:
    """What `manage.py migrate` makes of the empty store in data_dir (an engine's database
    named in data_dir/database-url, or none yet), as a copy of a store this process migrated
    once: the migrations take 1.5 s of CPU a run, and most stores of the tests start empty."""
    named = data_dir / "database-url"
    on_sqlite = not SERVER_URL or (named.exists() and not named.read_text())
    if on_sqlite not in _migrated_once:
        template = Path(tempfile.mkdtemp(prefix="memadmin-migrated-"))
        atexit.register(shutil.rmtree, template, ignore_errors=True)
        if on_sqlite:
            (template / "database-url").write_text("")
        manage(template, "migrate", "--noinput", "-v0")
        _migrated_once[on_sqlite] = template
    template = _migrated_once[on_sqlite]
    data_dir.mkdir(parents=True, exist_ok=True)
    if on_sqlite:
        shutil.copy2(template / "memadmin.sqlite3", data_dir / "memadmin.sqlite3")
    elif named.exists():
        manage(data_dir, "migrate", "--noinput", "-v0")  # its database exists: migrated in place
    else:
        database = urlsplit(store_env(template)["MEMADMIN_DATABASE_URL"]).path.lstrip("/")
        named.write_text(fresh_database(template=database))


def store_rows(data_dir: Path) -> dict[str, dict]:
    """Every memory row of the store in data_dir, by name, read past the app."""
    url = store_env(data_dir).get("MEMADMIN_DATABASE_URL")
    query = "SELECT * FROM memories_memory"
    if url:
        import psycopg
        from psycopg.rows import dict_row

        with psycopg.connect(url, row_factory=dict_row) as con:
            return {row["name"]: row for row in con.execute(query)}
    con = sqlite3.connect(data_dir / "memadmin.sqlite3")
    con.row_factory = sqlite3.Row
    try:
        return {row["name"]: dict(row) for row in con.execute(query)}
    finally:
        con.close()


def integrity_problems(cursor, vendor: str) -> list:
    """What the database's own check of its files finds: SQLite's integrity_check, or
    PostgreSQL's amcheck over the memories table and every B-tree index of the store."""
    if vendor == "sqlite":
        cursor.execute("PRAGMA integrity_check")
        return [row for row in cursor.fetchall() if row != ("ok",)]
    cursor.execute("CREATE EXTENSION IF NOT EXISTS amcheck")
    cursor.execute("SELECT * FROM verify_heapam('memories_memory')")
    problems = cursor.fetchall()
    cursor.execute(
        "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
        " JOIN pg_am a ON a.oid = c.relam JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE a.amname = 'btree' AND n.nspname = 'public'"
    )
    for (index,) in cursor.fetchall():
        cursor.execute("SELECT bt_index_check(%s::regclass, true)", [index])
    return problems


def store_integrity_problems(data_dir: Path) -> list:
    url = store_env(data_dir).get("MEMADMIN_DATABASE_URL")
    if url:
        import psycopg

        with psycopg.connect(url, autocommit=True) as con:
            return integrity_problems(con.cursor(), "postgresql")
    con = sqlite3.connect(data_dir / "memadmin.sqlite3")
    try:
        return integrity_problems(con.cursor(), "sqlite")
    finally:
        con.close()


def manage(data_dir: Path, *args: str) -> str:
    """Run manage.py on the store in data_dir; its output."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=store_env(data_dir),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def create_boss(data_dir: Path, password: str) -> None:
    """The store's superuser `boss`, made by manage.py createsuperuser as an operator would."""
    subprocess.run(
        [sys.executable, "manage.py", "createsuperuser", "--noinput"],
        cwd=ROOT,
        env={
            **store_env(data_dir),
            "DJANGO_SUPERUSER_USERNAME": "boss",
            "DJANGO_SUPERUSER_PASSWORD": password,
            "DJANGO_SUPERUSER_EMAIL": "boss@example.org",
        },
        check=True,
        capture_output=True,
    )


@dataclass
class Answer:
    status: int
    headers: dict
    body: bytes

    def json(self):
        return json.loads(self.body)


def start_gunicorn(data_dir: Path, log: Path, *args: str, **env: str) -> tuple:
    """`gunicorn memadmin.wsgi` from the checkout (its gunicorn.conf.py) on the store in
    data_dir and a free port of 127.0.0.1, its output in log: (process, port)."""
    listening = listening_socket()
    with log.open("w") as output:
        process = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "gunicorn"),
                "memadmin.wsgi",
                "--bind",
                f"fd://{listening.fileno()}",
                *args,
            ],
            cwd=ROOT,
            env={**store_env(data_dir), **env},
            stdout=output,
            stderr=subprocess.STDOUT,
            pass_fds=[listening.fileno()],
        )
    port = listening.getsockname()[1]
    listening.close()  # gunicorn holds its own copy
    return process, port


def wait_until_answering(process, log: Path, answers) -> None:
    """Until `answers()` is true; a server that exits or takes a minute is stopped and fails."""
    deadline = time.monotonic() + 60
    while True:
        try:
            if answers():
                return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            stop_gunicorn(process)
            raise AssertionError(f"gunicorn did not start: {log.read_text()[-3000:]}")
        time.sleep(0.2)


def stop_gunicorn(process) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class Served:
    """A store in data_dir served by gunicorn; `request` speaks to it with a write token.

    `shares`: another server whose database this one serves too (a second app server over
    one PostgreSQL, with a data dir of its own; on SQLite, over the same file), with that
    server's token. `pages`: collect
    the static files the pages link to first. `env`: settings of its own.
    """

    def __init__(
        self,
        data_dir: Path,
        workers: int,
        shares: "Served | None" = None,
        pages: bool = False,
        env: dict | None = None,
    ):
        self.data_dir = data_dir
        self.log = data_dir / "gunicorn.log"
        if shares is not None and not SERVER_URL:
            # SQLite: the second server opens the first one's file, with a log of its own.
            data_dir = self.data_dir = shares.data_dir
            self.log = data_dir / f"gunicorn-{id(self)}.log"
            self.token = shares.token
        elif shares is None:
            migrate(data_dir)
            output = manage(
                data_dir, "apitoken", "create", "writer", "--scope", "write", "--create-user"
            )
            self.token = output.strip().splitlines()[-1]
        else:
            data_dir.mkdir(parents=True, exist_ok=True)
            (data_dir / "database-url").write_text(
                store_env(shares.data_dir)["MEMADMIN_DATABASE_URL"]
            )
            self.token = shares.token
        if pages:
            manage(data_dir, "collectstatic", "--noinput", "-v0")
        self.process, self.port = start_gunicorn(
            data_dir,
            self.log,
            "--workers",
            str(workers),
            "--timeout",
            "120",
            **{**store_env(data_dir), **(env or {})},
        )
        wait_until_answering(
            self.process, self.log, lambda: self.request("GET", "/v1/openapi.json").status == 200
        )

    def request(self, method: str, path: str, body=None, headers=None) -> Answer:
        sent = {"Host": "127.0.0.1", "Authorization": f"Bearer {self.token}", **(headers or {})}
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            connection.request(method, path, body=data, headers=sent)
            response = connection.getresponse()
            return Answer(response.status, dict(response.getheaders()), response.read())
        finally:
            connection.close()

    def stop(self) -> str:
        """Stop the server; its log."""
        stop_gunicorn(self.process)
        return self.log.read_text()


@pytest.fixture
def served(tmp_path):
    """A fresh store served by 4 gunicorn workers on a free port."""
    server = Served(tmp_path, workers=4)
    yield server
    server.stop()
