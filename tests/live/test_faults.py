"""Streams meeting faults, served by gunicorn: a client that never reads what it is sent, and
the database restarting under open streams (PostgreSQL: this test's own cluster, restarted;
SQLite has no server to restart, and a failed read of its feed takes the same path)."""

import glob
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.live.sse import Listener
from tests.reliability.conftest import ROOT, Served

LONG = "n" * 100  # a longer name: fewer writes fill a stream's buffer


def _never_reading(port: int, token: str) -> socket.socket:
    """A stream's client that sends its request and reads nothing, ever."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.sendall(
        b"GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
        + token.encode()
        + b"\r\n\r\n"
    )
    return sock


def _drained(sock: socket.socket) -> bytes:
    """All the client was sent, read to the server's close."""
    sock.settimeout(30)
    received = b""
    while piece := sock.recv(65536):
        received += piece
    return received


def test_a_client_that_never_reads_is_cut_off_and_the_others_get_everything(tmp_path):
    server = Served(tmp_path, workers=1, env={"MEMADMIN_STREAM_BUFFER_BYTES": "8192"})
    headers = {"Authorization": f"Bearer {server.token}"}
    stalled = _never_reading(server.port, server.token)
    reading = Listener(server.port, "/v1/events", headers)
    written = 0
    try:
        assert reading.status == 200
        while "stopped reading" not in server.log.read_text():
            assert written < 1000, "the stalled stream was never cut off"
            for _ in range(20):
                put = server.request("PUT", f"/v1/memories/{LONG}-{written}", {"description": "x"})
                assert put.status == 201
                written += 1
            time.sleep(0.2)  # the hub's turn
        got = reading.collect(written, timeout=60)
        assert [m.json()["name"] for m in got] == [f"{LONG}-{n}" for n in range(written)]
        sent_to_stalled = _drained(stalled)
    finally:
        stalled.close()
        reading.close()
        log = server.stop()
    assert sent_to_stalled.startswith(b"HTTP/1.1 200")
    assert not sent_to_stalled.endswith(b"0\r\n\r\n"), "cut off, not ended"
    assert sent_to_stalled.count(b"event: change") < written
    assert log.count("stopped reading") == 1 and "Traceback" not in log


def _cluster(action: str, directory, *options: str) -> str:
    return subprocess.run(
        [str(ROOT / "scripts" / "pg-cluster.sh"), action, str(directory), *options],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout.strip()


def _restart(directory) -> None:
    """pg_ctl restart as the cluster's owner, the way scripts/pg-cluster.sh runs it."""
    pg_ctl = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))[-1]
    command = [
        pg_ctl,
        "-D",
        str(directory / "data"),
        "-l",
        str(directory / "log"),
        "-m",
        "fast",
        "-w",
    ]
    subprocess.run(
        ["runuser", "-u", "postgres", "--", *command, "restart"],
        check=True,
        capture_output=True,
        timeout=120,
    )


@pytest.mark.engine("postgresql")
def test_a_database_restart_ends_the_streams_and_they_resume_from_their_last_id(tmp_path):
    """Two streams open when PostgreSQL restarts: each ends cleanly (the chunked answer's
    end, which an EventSource answers by reconnecting), and reopened with its last event id
    it gets the write made while it was away and the ones after, none twice."""
    cluster = Path(tempfile.mkdtemp(prefix="memadmin-restarted-"))  # the postgres user's
    url = _cluster("start", cluster)
    try:
        store = tmp_path / "store"
        store.mkdir()
        (store / "database-url").write_text(url)
        server = Served(store, workers=2)
        headers = {"Authorization": f"Bearer {server.token}"}
        try:
            listeners = [Listener(server.port, "/v1/events", headers) for _ in range(2)]
            server.request("PUT", "/v1/memories/before", {"description": "x"})
            last = [listener.collect(1)[0] for listener in listeners]
            assert {m.json()["name"] for m in last} == {"before"}
            _restart(cluster)
            for listener in listeners:
                with pytest.raises(EOFError):
                    while listener.next(timeout=30) is not None:
                        pass
                assert listener.response.isclosed()  # its last chunk read: a complete answer
                listener.close()
            while (
                put := server.request("PUT", "/v1/memories/away", {"description": "x"})
            ).status != 201:
                assert put.status == 503, put.body
                time.sleep(0.5)
            resumed = [
                Listener(server.port, "/v1/events", {**headers, "Last-Event-ID": str(m.id)})
                for m in last
            ]
            server.request("PUT", "/v1/memories/after", {"description": "x"})
            for listener in resumed:
                got = listener.collect(2, timeout=30)
                assert [m.json()["name"] for m in got] == ["away", "after"]
                assert listener.next(timeout=1) is None
                listener.close()
        finally:
            log = server.stop()
        assert "Traceback" not in log
        assert "lost the database; its streams end" in log
    finally:
        _cluster("stop", cluster)
