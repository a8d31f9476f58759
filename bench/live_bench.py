"""Live updates: how long a write through one app server takes to reach a stream and a page
open on another, what 200 open streams cost the request path, and whether every change
reaches every listener under load. Two gunicorn servers (gunicorn.conf.py, 2 workers each)
over one store: a SQLite file, or a PostgreSQL database (--database-url: a new database is
made on that server).

    .venv/bin/python bench/live_bench.py                      # SQLite
    .venv/bin/python bench/live_bench.py --database-url postgres://memadmin@127.0.0.1:5432/memadmin

Prints a Markdown summary with the load average before and after each measurement.
"""

import argparse
import contextlib
import http.client
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.live.sse import Listener  # noqa: E402  (the tests' SSE reader)

GUNICORN = str(Path(sys.executable).parent / "gunicorn")
PASSWORD = "a long enough password"


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def manage(env: dict, *args: str) -> str:
    """A management command of this checkout on the store `env` names; its output."""
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def call(port: int, token: str, method: str, path: str, body=None, *, timeout=60.0, source=None):
    """One request to the server on `port` with `token`, on a connection of its own (from the
    address `source` of 127/8 when given): its status and body."""
    headers = {"Host": "127.0.0.1", "Authorization": f"Bearer {token}"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    con = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout, source_address=(source, 0) if source else None
    )
    try:
        con.request(method, path, body=data, headers=headers)
        response = con.getresponse()
        return response.status, response.read()
    finally:
        con.close()


def wait_until_serving(server) -> None:
    """Until the server answers its OpenAPI document (a minute at most)."""
    for _ in range(300):
        with contextlib.suppress(OSError):
            if server.request("GET", "/v1/openapi.json")[0] == 200:
                return
        time.sleep(0.2)
    raise RuntimeError("gunicorn did not start")


class Store:
    def __init__(self, database_url: str | None):
        self.dir = Path(tempfile.mkdtemp(prefix="live-bench-"))
        self.env = {**os.environ, "MEMADMIN_DATA_DIR": str(self.dir)}
        self.env.pop("MEMADMIN_DATABASE_URL", None)
        if database_url:
            import psycopg

            name = "live_bench_" + secrets.token_hex(4)
            with psycopg.connect(database_url, autocommit=True) as server:
                server.execute(f"CREATE DATABASE {name}")
            self.env["MEMADMIN_DATABASE_URL"] = urlunsplit(
                urlsplit(database_url)._replace(path="/" + name)
            )
        self.env["MEMADMIN_STREAMS_PER_USER"] = "500"
        self.env["MEMADMIN_SECRET_KEY"] = "one key for every app server " * 3
        self.manage("migrate", "--noinput", "-v0")
        self.manage("collectstatic", "--noinput", "-v0")
        out = self.manage("apitoken", "create", "bench", "--scope", "write", "--create-user")
        self.token = out.strip().splitlines()[-1]
        subprocess.run(
            [sys.executable, "manage.py", "createsuperuser", "--noinput"],
            cwd=ROOT,
            env={
                **self.env,
                "DJANGO_SUPERUSER_USERNAME": "boss",
                "DJANGO_SUPERUSER_PASSWORD": PASSWORD,
                "DJANGO_SUPERUSER_EMAIL": "boss@example.org",
            },
            check=True,
            capture_output=True,
        )

    def manage(self, *args: str) -> str:
        return manage(self.env, *args)


class Server:
    def __init__(self, store: Store, name: str):
        self.store = store
        self.port = free_port()
        self.log = (store.dir / f"{name}.log").open("w")
        self.process = subprocess.Popen(
            [GUNICORN, "memadmin.wsgi", "--bind", f"127.0.0.1:{self.port}", "--workers", "2"],
            cwd=ROOT,
            env=store.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        wait_until_serving(self)

    def request(self, method, path, body=None) -> tuple[int, bytes]:
        return call(self.port, self.store.token, method, path, body)

    def put(self, name: str, **fields) -> None:
        status, body = self.request("PUT", f"/v1/memories/{name}", fields)
        assert status in (200, 201), body

    def listen(self) -> Listener:
        return Listener(self.port, "/v1/events", {"Authorization": f"Bearer {self.store.token}"})

    def cpu_seconds(self) -> float:
        """The CPU time of the master and its worker processes so far."""
        pids = [self.process.pid]
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        pids += [int(pid) for pid in children.read_text().split()]
        ticks = 0
        for pid in pids:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
        return ticks / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def stats(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(len(values) * 0.95))]
    median = statistics.median(values)
    return f"median {median * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms (n={len(values)})"


def stream_latency(a: Server, b: Server, n: int) -> list[float]:
    """A PUT on A, from sending it to its event read from a stream on B."""
    listener = b.listen()
    seen = []
    try:
        for i in range(n):
            started = time.perf_counter()
            a.put("latency-probe", description=f"probe {i}")
            message = listener.next(timeout=10)
            assert message is not None and message.json()["name"] == "latency-probe"
            seen.append(time.perf_counter() - started)
            time.sleep(0.05)
    finally:
        listener.close()
    return seen


def page_latency(a: Server, b: Server, n: int) -> list[float]:
    """A PUT on A, from sending it to its row redrawn on B's list in Chromium."""
    from playwright.sync_api import sync_playwright

    a.put("page-probe", description="page probe start", priority=0)  # first on the list
    seen = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"]
        )
        page = browser.new_page()
        base = f"http://127.0.0.1:{b.port}"
        page.goto(base + "/sign-in/")
        page.fill("#id_username", "boss")
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(base + "/")
        page.goto(base + "/memories/")
        page.wait_for_selector('#live[data-state="live"]', timeout=20000)
        for i in range(n):
            started = time.perf_counter()
            a.put("page-probe", description=f"page probe {i}")
            page.wait_for_selector(f"text=page probe {i}", timeout=20000, state="attached")
            seen.append(time.perf_counter() - started)
        browser.close()
    return seen


def list_times(server: Server, n: int) -> tuple[list[float], float]:
    """`n` list requests' times, and the server's CPU time per request over them (its
    processes', read from /proc: the load of the machine moves it much less)."""
    seen = []
    cpu_before = server.cpu_seconds()
    for _ in range(n):
        started = time.perf_counter()
        status, _ = server.request("GET", "/v1/memories?limit=50")
        assert status == 200
        seen.append(time.perf_counter() - started)
    return seen, (server.cpu_seconds() - cpu_before) / n


def delivery(a: Server, b: Server, writers: int, listeners: int, seconds: float, per_minute: int):
    """`writers` writing `per_minute` changes a minute in all (half through each server, each
    writer on its own schedule, at once when behind it) for `seconds`, to 7 memories each, and
    `listeners` streams (half on each): every change to every listener once, each memory's in
    the order written."""
    streams = [(a if i % 2 else b).listen() for i in range(listeners)]
    interval = 60 / (per_minute / writers)
    written: Counter[str] = Counter()  # memory name: acknowledged writes
    lock = threading.Lock()
    started = time.monotonic()

    def write(w: int) -> None:
        server = a if w % 2 else b
        n = 0
        while (due := started + n * interval) < started + seconds:
            time.sleep(max(0.0, due - time.monotonic()))
            name = f"load-{w}-{n % 7}"
            server.put(name, description=f"writer {w} write {n}")
            n += 1
            with lock:
                written[name] += 1

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    took = time.monotonic() - started
    total = sum(written.values())
    lost = repeated = disordered = 0
    for stream in streams:
        try:
            messages = stream.collect(total, timeout=120)
        except AssertionError:
            lost += 1
            continue
        repeated += stream.next(timeout=1) is not None or len({m.id for m in messages}) < total
        revisions = defaultdict(list)
        for message in messages:
            change = message.json()
            revisions[change["name"]].append(change["revision"])
        lost += {name: len(seen) for name, seen in revisions.items()} != dict(written)
        disordered += any(seen != sorted(seen) for seen in revisions.values())
        stream.close()
    return total, took, lost, repeated, disordered


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url")
    parser.add_argument("--probes", type=int, default=40)
    parser.add_argument("--page-probes", type=int, default=15)
    parser.add_argument("--list-requests", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--memories", type=int, default=300)
    parser.add_argument("--delivery-seconds", type=float, default=30)
    args = parser.parse_args()
    engine = "PostgreSQL" if args.database_url else "SQLite"
    store = Store(args.database_url)
    a, b = Server(store, "a"), Server(store, "b")
    try:
        for n in range(args.memories):
            a.put(f"seed-{n}", description=f"seed memory {n} about topic {n % 17}", priority=n % 10)
        print(f"## {engine}, two servers (2 workers each), {args.memories} memories\n")
        print(f"load before: {loadavg()}\n")
        streamed = stats(stream_latency(a, b, args.probes))
        print(f"- write on A to event on B's stream: {streamed}")
        paged = stats(page_latency(a, b, args.page_probes))
        print(f"- write on A to row on B's list page: {paged}")
        print(f"  (load {loadavg()})")
        # In turns, so that the machine's load falls on both alike.
        without, within, cpu_without, cpu_within = [], [], [], []
        opened = []
        for _ in range(args.rounds):
            times, cpu = list_times(b, args.list_requests)
            without += times
            cpu_without.append(cpu)
            streams = [b.listen() for _ in range(args.streams)]
            opened.append(sum(s.status == 200 for s in streams))
            time.sleep(1)
            times, cpu = list_times(b, args.list_requests)
            within += times
            cpu_within.append(cpu)
            for stream in streams:
                stream.close()
            time.sleep(1)
        ms = ", ".join
        print(
            f"- /v1/memories?limit=50 on B, {args.rounds} turns of {args.list_requests}, no "
            f"stream open: {stats(without)}; server CPU a request "
            f"{ms(f'{c * 1000:.2f}' for c in cpu_without)} ms"
        )
        print(
            f"- the same with {min(opened)} streams open on B: {stats(within)}; server CPU a "
            f"request {ms(f'{c * 1000:.2f}' for c in cpu_within)} ms"
        )
        print(f"  (load {loadavg()})")
        total, took, lost, repeated, disordered = delivery(
            a, b, writers=8, listeners=20, seconds=args.delivery_seconds, per_minute=1000
        )
        print(
            f"- delivery, 8 writers aiming at 1,000 writes a minute for "
            f"{args.delivery_seconds:.0f} s, 20 listeners: {total} changes in {took:.1f} s "
            f"({total / took * 60:.0f} a minute); listeners missing or differing {lost}, with "
            f"a repeat {repeated}, with a memory's changes out of order {disordered}"
        )
        print(f"\nload after: {loadavg()}")
    finally:
        a.stop()
        b.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
