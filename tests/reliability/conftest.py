"""Fixtures of the reliability suite: a store of its own in a temporary directory, served by
gunicorn on 127.0.0.1, and the scale of the run.

`RELIABILITY_LONG=1` makes the longer run (tests/scale.py).
"""

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

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


def manage(data_dir: Path, *args: str) -> str:
    """Run manage.py on the store in data_dir; its output."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**os.environ, "MEMADMIN_DATA_DIR": str(data_dir)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


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
            env={**os.environ, "MEMADMIN_DATA_DIR": str(data_dir), **env},
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
    """A store in data_dir served by gunicorn; `request` speaks to it with a write token."""

    def __init__(self, data_dir: Path, workers: int):
        self.data_dir = data_dir
        self.db = data_dir / "memadmin.sqlite3"
        self.log = data_dir / "gunicorn.log"
        manage(data_dir, "migrate", "--noinput", "-v0")
        output = manage(
            data_dir, "apitoken", "create", "writer", "--scope", "write", "--create-user"
        )
        self.token = output.strip().splitlines()[-1]
        self.process, self.port = start_gunicorn(
            data_dir, self.log, "--workers", str(workers), "--timeout", "120"
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
