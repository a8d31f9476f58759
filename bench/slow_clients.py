"""Slow clients, from outside: while many connections from one address trickle their request
headers (a line a second, reconnecting whenever they are closed), how long do other clients
wait for `GET /v1/memories?limit=50`?

    .venv/bin/python bench/slow_clients.py                       # 500 slow connections, 60 s
    .venv/bin/python bench/slow_clients.py --before 1b78ad9      # and the serving of that commit

The server is the command scripts/run.sh ends with, `gunicorn memadmin.wsgi` from the
checkout (gunicorn.conf.py: 2 processes of 32 threads, memadmin.serving), on a migrated
store of --memories memories (run.sh's setup step, which installs the locks, is left out).
The slow connections come from 127.0.0.1, the probes from 127.0.0.2: one probe at a time,
every --interval seconds, each timed until its answer is read (10 s at most). `--before REV`
also runs the same with that commit's memadmin/serving.py as the worker, in the same run.
Prints a Markdown summary with the load average.
"""

import argparse
import contextlib
import os
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUNICORN = str(Path(sys.executable).parent / "gunicorn")
OPENING = b"GET /v1/memories HTTP/1.1\r\nHost: 127.0.0.1\r\n"
PROBE_TIMEOUT = 10.0

sys.path.insert(0, str(ROOT / "bench"))
from live_bench import call, free_port, loadavg, manage, wait_until_serving  # noqa: E402  (the live bench's helpers)


class Store:
    def __init__(self, memories: int):
        self.dir = Path(tempfile.mkdtemp(prefix="slow-clients-"))
        self.env = {**os.environ, "MEMADMIN_DATA_DIR": str(self.dir)}
        self.env.pop("MEMADMIN_DATABASE_URL", None)
        self.manage("migrate", "--noinput", "-v0")
        out = self.manage("apitoken", "create", "bench", "--scope", "write", "--create-user")
        self.token = out.strip().splitlines()[-1]
        self.memories = memories

    def manage(self, *args: str) -> str:
        return manage(self.env, *args)


class Server:
    def __init__(self, store: Store, env: dict, name: str):
        self.port = free_port()
        self.store = store
        self.log = (store.dir / f"{name}.log").open("w")
        self.process = subprocess.Popen(
            [GUNICORN, "memadmin.wsgi"],
            cwd=ROOT,
            env={**store.env, **env, "MEMADMIN_BIND": f"127.0.0.1:{self.port}"},
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        wait_until_serving(self)

    def request(self, method, path, body=None, source="127.0.0.2", timeout=PROBE_TIMEOUT):
        return call(self.port, self.store.token, method, path, body, timeout=timeout, source=source)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Tricklers:
    """`count` connections from 127.0.0.1, each sending OPENING and then a header line a
    second, never the blank line; one closed by the server is opened again at once."""

    def __init__(self, port: int, count: int):
        self.port = port
        self.count = count
        self.opened = self.closed = self.refused = 0
        self.stopping = threading.Event()
        self.selector = selectors.DefaultSelector()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> "Tricklers":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(30)

    def _open(self) -> None:
        sock = socket.socket()
        sock.setblocking(False)
        sock.connect_ex(("127.0.0.1", self.port))
        self.opened += 1
        self.selector.register(sock, selectors.EVENT_WRITE, "connecting")

    def _drop(self, sock: socket.socket, answered: bytes) -> None:
        self.selector.unregister(sock)
        sock.close()
        if answered.startswith(b"HTTP/1.1 429"):
            self.refused += 1
        else:
            self.closed += 1
        if not self.stopping.is_set():
            self._open()

    def _run(self) -> None:
        for _ in range(self.count):
            self._open()
        next_line = time.monotonic() + 1
        while not self.stopping.is_set():
            for key, _ in self.selector.select(0.2):
                sock = key.fileobj
                if key.data == "connecting":
                    if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                        self._drop(sock, b"")
                        continue
                    try:
                        sock.send(OPENING)
                    except OSError:
                        self._drop(sock, b"")
                        continue
                    self.selector.modify(sock, selectors.EVENT_READ, "open")
                    continue
                try:
                    answered = sock.recv(4096)
                except BlockingIOError:
                    continue
                except OSError:
                    answered = b""
                self._drop(sock, answered)
            if time.monotonic() >= next_line:
                next_line += 1
                for key in list(self.selector.get_map().values()):
                    if key.data == "open":
                        with contextlib.suppress(OSError):
                            key.fileobj.send(b"X-Slow: 1\r\n")
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()


def probe(server: Server, seconds: float, interval: float) -> list[float | None]:
    """Each probe's time to its answer; None, unanswered within PROBE_TIMEOUT (or refused)."""
    times: list[float | None] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.perf_counter()
        try:
            status, _ = server.request("GET", "/v1/memories?limit=50")
            times.append(time.perf_counter() - started if status == 200 else None)
        except OSError:
            times.append(None)
        time.sleep(max(0.0, interval - (time.perf_counter() - started)))
    return times


def summary(times: list[float | None]) -> str:
    answered = sorted(t for t in times if t is not None)
    within = sum(t <= 1.0 for t in answered)
    if not answered:
        return f"{len(times)} probes: none answered"
    return (
        f"{len(times)} probes: {within} answered within 1 s, {len(times) - len(answered)} "
        f"unanswered in {PROBE_TIMEOUT:.0f} s; median {statistics.median(answered) * 1000:.1f} "
        f"ms, max {answered[-1] * 1000:.1f} ms"
    )


def run(store: Store, label: str, env: dict, args) -> None:
    server = Server(store, env, label.split()[0])
    try:
        for n in range(store.memories):
            server.request("PUT", f"/v1/memories/m-{n}", {"description": f"memory {n}"})
        quiet = probe(server, 5, args.interval)
        print(f"### {label}\n\nload before: {loadavg()}\n")
        print(f"- no slow client: {summary(quiet)}")
        slow = Tricklers(server.port, args.connections).start()
        time.sleep(2)
        times = probe(server, args.seconds, args.interval)
        slow.stop()
        print(
            f"- {args.connections} slow connections from one address for {args.seconds:.0f} s "
            f"({slow.opened} opened, {slow.refused} answered 429 at once, {slow.closed} "
            f"closed unanswered): {summary(times)}"
        )
        print(f"\nload after: {loadavg()}\n")
    finally:
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--interval", type=float, default=0.5)
    parser.add_argument("--memories", type=int, default=200)
    parser.add_argument("--before", help="also run this commit's memadmin/serving.py")
    args = parser.parse_args()
    store = Store(args.memories)
    print(f"## Slow clients, gunicorn memadmin.wsgi (gunicorn.conf.py), {args.memories} memories\n")
    run(store, "this checkout", {}, args)
    if args.before:
        old = subprocess.run(
            ["git", "show", f"{args.before}:memadmin/serving.py"],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        (store.dir / "serving_before.py").write_text(old)
        env = {
            "PYTHONPATH": str(store.dir),
            "GUNICORN_CMD_ARGS": "--worker-class serving_before.Worker",
        }
        run(store, f"{args.before} (its memadmin/serving.py)", env, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
