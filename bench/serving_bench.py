"""The production server before and after gunicorn.conf.py, alternating in one run:
`/v1/memories` requests per second under 8 clients, then what other requests get while ten
clients trickle their headers and ten trickle a body.

    python bench/serving_bench.py                  # 10,000 memories, 2 rounds
    python bench/serving_bench.py --memories 100000 --rounds 3

"before" is the command scripts/run.sh ran until then (2 sync workers, no config file);
"after" is `gunicorn memadmin.wsgi` reading gunicorn.conf.py. Prints a Markdown table with
the load average before and after each measurement.
"""

import argparse
import http.client
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402  (its throughput loop)

ROOT = run.ROOT
GUNICORN = str(Path(sys.executable).parent / "gunicorn")


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def manage(data_dir: Path, *args: str) -> str:
    env = {**os.environ, "MEMADMIN_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get(port: int, path: str, headers: dict, timeout: float) -> tuple[int, float]:
    started = time.perf_counter()
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        con.request("GET", path, headers={"Host": "127.0.0.1", **headers})
        response = con.getresponse()
        response.read()
        return response.status, time.perf_counter() - started
    finally:
        con.close()


class Server:
    def __init__(self, variant: str, data_dir: Path, empty_conf: Path):
        self.port = free_port()
        command = [GUNICORN, "memadmin.wsgi", "--bind", f"127.0.0.1:{self.port}"]
        if variant == "before":
            command += ["--config", str(empty_conf), "--workers", "2", "--worker-class", "sync"]
        env = {**os.environ, "MEMADMIN_DATA_DIR": str(data_dir)}
        self.log = (data_dir / f"gunicorn-{variant}.log").open("w")
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if get(self.port, "/v1/openapi.json", {}, 5)[0] == 200:
                    return
            except OSError:
                time.sleep(0.2)
        raise SystemExit(f"gunicorn ({variant}) did not start")

    def get(self, path: str, headers: dict) -> tuple[int, bytes, float]:
        status, elapsed = get(self.port, path, headers, 60)
        return status, b"", elapsed

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()


def trickle(port: int, opening: bytes, stop: threading.Event) -> None:
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=1)
        sock.sendall(opening)
        while not stop.is_set():
            time.sleep(1)
            sock.sendall(b"a" if b"Content-Length" in opening else b"X-Slow: 1\r\n")
    except OSError:
        return  # cut off by the server


def under_slow_clients(port, *, probes, timeout) -> dict:
    stop = threading.Event()
    slow = [b"GET /v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"] * 10 + [
        b"POST /v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100000\r\n\r\n"
    ] * 10
    threads = [threading.Thread(target=trickle, args=(port, o, stop), daemon=True) for o in slow]
    for thread in threads:
        thread.start()
    time.sleep(2)
    answered, waits = 0, []
    for _ in range(probes):
        try:
            status, elapsed = get(port, "/v1/openapi.json", {}, timeout)
            answered += status == 200
            waits.append(elapsed)
        except OSError:
            waits.append(timeout)
    stop.set()
    return {"answered": answered, "probes": probes, "median_s": statistics.median(waits)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--probes", type=int, default=8)
    parser.add_argument("--probe-timeout", type=float, default=10.0)
    args = parser.parse_args()
    data_dir = ROOT / "var" / "bench" / f"serving-{args.memories}"
    subprocess.run(
        [sys.executable, "bench/generate.py", str(args.memories), "--data-dir", str(data_dir)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    manage(data_dir, "collectstatic", "--noinput", "-v0")
    token = (
        manage(data_dir, "apitoken", "create", "bench-serving", "--scope", "read", "--create-user")
        .strip()
        .splitlines()[-1]
    )
    headers = {"Authorization": f"Bearer {token}"}
    empty_conf = Path(tempfile.mkdtemp()) / "none.conf.py"
    empty_conf.write_text("")
    rows = []
    for round_number in range(1, args.rounds + 1):
        for variant in ("before", "after"):
            server = Server(variant, data_dir, empty_conf)
            try:
                get(server.port, "/v1/memories", headers, 60)
                load_before = loadavg()
                rps = run.throughput(
                    server, "/v1/memories", headers, clients=8, seconds=args.seconds, cap=10**9
                )
                slow = under_slow_clients(
                    server.port, probes=args.probes, timeout=args.probe_timeout
                )
                rows.append((round_number, variant, rps, slow, load_before, loadavg()))
            finally:
                server.stop()
    print(
        f"# Serving, {args.memories:,} memories, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n"
    )
    print(
        "`/v1/memories` (50 rows) under 8 clients for "
        f"{args.seconds:.0f} s; then {args.probes} requests, each given "
        f"{args.probe_timeout:.0f} s, while 10 clients trickle headers and 10 a body.\n"
    )
    print(
        "| round | server | req/s | median ms | statuses | answered beside slow clients "
        "| median wait s | load before | load after |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for round_number, variant, rps, slow, load_before, load_after in rows:
        print(
            f"| {round_number} | {variant} | {rps['rps']:.0f} | {rps['median_ms']:.1f} | "
            f"{rps['statuses']} | {slow['answered']}/{slow['probes']} | "
            f"{slow['median_s']:.2f} | {load_before} | {load_after} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
