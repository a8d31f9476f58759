"""The production server as the design's Running section starts it: `migrate`, then
`gunicorn memadmin.wsgi` from the checkout (gunicorn.conf.py, memadmin.serving), on a free
port of 127.0.0.1."""

import http.client
import json
import re
import socket
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import PASSWORD
from tests.reliability.conftest import (
    create_boss,
    manage,
    migrate,
    start_gunicorn,
    stop_gunicorn,
    wait_until_answering,
)

ROOT = Path(__file__).resolve().parent.parent


class Gunicorn:
    def __init__(self, data_dir: Path, **env: str):
        self.log = data_dir / "gunicorn.log"
        self.process, self.port = start_gunicorn(data_dir, self.log, **env)
        wait_until_answering(self.process, self.log, lambda: self.get("/sign-in/")[0] == 200)

    def request(self, method, path, body=None, headers=None, timeout=30, source="127.0.0.1"):
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=timeout, source_address=(source, 0)
        )
        try:
            connection.request(
                method, path, body=body, headers={"Host": "127.0.0.1", **(headers or {})}
            )
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def get(self, path, headers=None, timeout=30, source="127.0.0.1"):
        return self.request("GET", path, headers=headers, timeout=timeout, source=source)

    def stop(self):
        stop_gunicorn(self.process)


@pytest.fixture
def store(tmp_path):
    migrate(tmp_path)
    return tmp_path


def _sign_in(server: Gunicorn) -> str:
    """The session cookie of the createsuperuser account."""
    status, headers, body = server.get("/sign-in/")
    csrf = re.search(r"csrftoken=([^;]+)", headers["Set-Cookie"]).group(1)
    form = f"username=boss&password={PASSWORD.replace(' ', '+')}&csrfmiddlewaretoken={csrf}"
    status, headers, _ = server.request(
        "POST",
        "/sign-in/",
        body=form,
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={csrf}",
        },
    )
    assert status == 302, status
    return re.search(r"sessionid=([^;]+)", headers["Set-Cookie"]).group(1)


def test_pages_and_their_static_files_are_served_before_collectstatic(store):
    """migrate, createsuperuser, gunicorn: no collectstatic, yet every page answers and the
    files it links are served (they were a 500 on the missing manifest entry)."""
    create_boss(store, PASSWORD)
    assert not (store / "staticfiles" / "staticfiles.json").exists()
    server = Gunicorn(store)
    try:
        session = _sign_in(server)
        for path in ("/", "/memories/", "/projects/", "/budget/"):
            status, _, body = server.get(path, headers={"Cookie": f"sessionid={session}"})
            assert status == 200, (path, body[:300])
        linked = re.findall(rb'(?:href|src)="(/static/[^"]+)"', body)
        assert b"/static/css/memadmin.css" in linked
        for url in linked:
            status, headers, content = server.get(url.decode())
            assert status == 200 and content, url
    finally:
        server.stop()


def test_after_collectstatic_the_hashed_copies_are_linked(store):
    manage(store, "collectstatic", "--noinput", "-v0")
    server = Gunicorn(store)
    try:
        _, _, body = server.get("/sign-in/")
        stylesheet = re.search(rb'href="(/static/css/memadmin\.[0-9a-f]{12}\.css)"', body)
        assert stylesheet, body[:500]
        status, headers, _ = server.get(stylesheet.group(1).decode())
        assert status == 200
        assert "immutable" in headers["Cache-Control"]
    finally:
        server.stop()


def _trickle(port: int, opening: bytes, stop: threading.Event, cut: list, source="127.0.0.1"):
    """A client sending its request a few bytes at a time, one piece a second, forever."""
    sock = socket.create_connection(("127.0.0.1", port), source_address=(source, 0))
    sock.settimeout(1)
    try:
        sock.sendall(opening)
        while not stop.is_set():
            try:
                if sock.recv(1) == b"":
                    cut.append(time.monotonic())
                    return
            except TimeoutError:
                pass
            except OSError:
                cut.append(time.monotonic())
                return
            try:
                sock.sendall(b"X-Slow: 1\r\n" if b"Content-Length" not in opening else b"a")
            except OSError:
                cut.append(time.monotonic())
                return
    finally:
        sock.close()


SLOW_HEADERS = b"GET /v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
SLOW_BODY = (
    b"POST /v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Content-Length: 100000\r\n\r\n"
)


def test_ten_slow_clients_leave_the_server_answering_and_are_cut_off(store):
    """Ten clients trickling their headers and ten trickling a body (the outside test held all
    4 sync workers with ten): every other request is still answered, and each slow client is
    cut off once its request has taken MEMADMIN_REQUEST_READ_SECONDS (their address may
    hold them all here: the limit on it is tested below)."""
    server = Gunicorn(
        store, MEMADMIN_REQUEST_READ_SECONDS="12", MEMADMIN_CONNECTIONS_PER_ADDRESS="40"
    )
    stop = threading.Event()
    cut: list[float] = []
    clients = [
        threading.Thread(target=_trickle, args=(server.port, opening, stop, cut), daemon=True)
        for opening in [SLOW_HEADERS] * 10 + [SLOW_BODY] * 10
    ]
    try:
        for client in clients:
            client.start()
        time.sleep(2)  # every slow client is connected and has sent its first bytes
        answered = []
        for _ in range(10):
            answered.append(server.get("/v1/openapi.json", timeout=20)[0])
            if len(answered) == 1:
                first_answer = time.monotonic()
        assert answered == [200] * 10
        for client in clients:
            client.join(timeout=60)
        assert len(cut) == len(clients)
        assert first_answer < min(cut), "the slow clients were cut before the others were answered"
        assert "Traceback" not in server.log.read_text()
    finally:
        stop.set()
        server.stop()


def _open_head(port: int, source: str) -> socket.socket:
    """A connection from `source` that has sent the start of a request's headers."""
    sock = socket.create_connection(("127.0.0.1", port), source_address=(source, 0), timeout=30)
    sock.sendall(SLOW_HEADERS)
    return sock


def test_an_address_past_its_connection_limit_is_refused_and_no_other(store):
    """One worker process, 4 connections an address: a 5th from that address is answered 429
    (the API's JSON for /v1) and closed; another address is served meanwhile; once one of the
    4 closes, the address is served again."""
    server = Gunicorn(store, MEMADMIN_WORKERS="1", MEMADMIN_CONNECTIONS_PER_ADDRESS="4")
    held = [_open_head(server.port, "127.0.0.2") for _ in range(4)]
    try:
        time.sleep(0.5)  # accepted by the worker
        status, headers, body = server.get("/v1/memories", source="127.0.0.2")
        assert status == 429
        assert headers["Content-Type"] == "application/json"
        assert "as many as one address may" in json.loads(body)["error"]
        status, headers, _ = server.get("/sign-in/", source="127.0.0.2")
        assert status == 429 and headers["Content-Type"].startswith("text/plain")
        assert server.get("/v1/openapi.json", source="127.0.0.3")[0] == 200
        held.pop().close()
        time.sleep(0.5)
        assert server.get("/v1/openapi.json", source="127.0.0.2")[0] == 200
        assert "Traceback" not in server.log.read_text()
    finally:
        for sock in held:
            sock.close()
        server.stop()


def test_heads_trickled_in_hold_no_thread_and_are_closed_at_their_deadline(store):
    """One worker process of one thread: eight clients trickling their headers from as many
    addresses leave it answering the others at once (a thread reading their headers would
    wait on each for the whole request deadline), and each is closed once its headers have
    taken MEMADMIN_HEADER_SECONDS."""
    server = Gunicorn(
        store, MEMADMIN_WORKERS="1", MEMADMIN_THREADS="1", MEMADMIN_HEADER_SECONDS="6"
    )
    stop = threading.Event()
    cut: list[float] = []
    clients = [
        threading.Thread(
            target=_trickle,
            args=(server.port, SLOW_HEADERS, stop, cut, f"127.0.1.{n}"),
            daemon=True,
        )
        for n in range(1, 9)
    ]
    try:
        for client in clients:
            client.start()
        time.sleep(1)
        answered = [server.get("/v1/openapi.json", timeout=20)[0] for _ in range(5)]
        first_cut_after_answers = time.monotonic()
        assert answered == [200] * 5
        for client in clients:
            client.join(timeout=30)
        assert len(cut) == len(clients), "a client trickling its headers was never closed"
        assert first_cut_after_answers < min(cut)
    finally:
        stop.set()
        server.stop()


def test_a_bad_host_and_a_body_over_the_limit_are_one_log_line_each(store):
    server = Gunicorn(store, MEMADMIN_MAX_REQUEST_BYTES="2048")
    try:
        assert server.get("/v1/memories", headers={"Host": "evil.example"})[0] == 400
        status, _, body = server.request(
            "PUT",
            "/v1/memories/big",
            body=b"x" * 4096,
            headers={"Content-Type": "application/json", "Authorization": "Bearer x"},
        )
        assert status == 413, body
    finally:
        server.stop()
    log = server.log.read_text()
    assert "Traceback" not in log
    refusals = [line for line in log.splitlines() if "evil.example" in line and "HTTP_HOST" in line]
    assert len(refusals) == 1, log
    assert len([line for line in log.splitlines() if "larger than" in line]) == 1, log
