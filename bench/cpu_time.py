"""CPU time per request of every route of bench/run.py, in process (Django's test client on
the same generated store), for a machine too busy for wall-clock figures: the time the
process spends on the CPU moves much less with the load than the time a request takes.

    .venv/bin/python bench/cpu_time.py --memories 100000 --requests 20 --out before.json

Prints, per route, the median CPU time and the median wall time of --requests requests
(after 2 warm-up ones, and at most --seconds of them), with the load average. On PostgreSQL
(--database-url) the CPU time is this process's alone: the server's shows in the wall time.
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402
import run  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument(
        "--database-url", default="", help="a PostgreSQL store (as bench/run.py --engine postgres)"
    )
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--only")
    parser.add_argument("--out", type=Path)
    options = parser.parse_args()
    generate.ensure_store(options.memories, options.data_dir, options.seed, options.database_url)
    from django.test import Client

    facts = run.prepare_store()
    client = Client(HTTP_HOST="127.0.0.1")
    results = {"memories": options.memories, "load_before": os.getloadavg(), "routes": {}}
    for route in run.routes(facts):
        if options.only and options.only not in route.label:
            continue
        headers = {
            f"HTTP_{name.upper().replace('-', '_')}": value
            for name, value in run.request_headers(route, facts).items()
            if name not in ("Host", "Cookie")
        }
        client.cookies["sessionid"] = facts["session"]
        cpu, wall = [], []
        deadline = time.monotonic() + options.seconds
        for number in range(options.requests + 2):
            started_cpu, started = time.process_time(), time.perf_counter()
            response = client.get(route.path, **headers)
            if response.status_code != 200:
                raise SystemExit(f"{route.label}: {response.status_code}")
            if number >= 2:
                cpu.append((time.process_time() - started_cpu) * 1000)
                wall.append((time.perf_counter() - started) * 1000)
                if time.monotonic() > deadline and len(cpu) >= 3:
                    break
        results["routes"][route.label] = {
            "cpu_ms": statistics.median(cpu),
            "wall_ms": statistics.median(wall),
            "requests": len(cpu),
        }
        print(
            f"{route.label:<34} cpu {statistics.median(cpu):8.2f}  wall "
            f"{statistics.median(wall):8.2f}  ({len(cpu)})",
            flush=True,
        )
    results["load_after"] = os.getloadavg()
    print(f"load average {results['load_before']} before, {results['load_after']} after")
    if options.out:
        options.out.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
