"""Every route of bench/run.py on two versions of memadmin at once, their requests taken in
turns (A, B, A, B, ...), for a machine too busy to run one version after the other: what
slows the machine slows both alike, and the ratio of their medians holds.

    .venv/bin/python bench/ab_routes.py --before-tree /work/wt-before \\
        --before-data /work/stores/run-before --after-data /work/stores/run-after

Each version is served by gunicorn from its own tree (2 sync workers, 127.0.0.1) on its own
copy of the generated store (bench/generate.py, the same seed: the same memories, so the
same routes). The table gives each route's median and p95 on both, and after / before;
routes more than 10% slower are marked. Results go to --out (.json and .md).
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402
import run  # noqa: E402

SLOWER = 1.10
# What a tree's own bench/run.py gives: its store made (or reused), a signed-in session and a
# token on it, and the names the routes use.
FACTS = (
    "import json, sys; sys.path.insert(0, 'bench'); import generate, run; "
    "from pathlib import Path; "
    "generate.ensure_store({memories}, Path({data!r}), 1, ''); "
    "print(json.dumps(run.prepare_store()))"
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def facts_of(tree: Path, data: Path, memories: int) -> dict:
    output = subprocess.run(
        [sys.executable, "-c", FACTS.format(memories=memories, data=str(data))],
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def in_turns(servers, headers, path: str, *, requests: int, seconds: float, warmup: int):
    """The latencies (ms) of `requests` requests to each server, taken in turns."""
    for server, sent in zip(servers, headers, strict=True):
        for _ in range(warmup):
            status = server.get(path, sent)[0]
            if status != 200:
                raise SystemExit(f"{path} answered {status} on port {server.port}")
    taken = [[] for _ in servers]
    deadline = time.monotonic() + seconds
    while len(taken[0]) < requests and (len(taken[0]) < 5 or time.monotonic() < deadline):
        for server, sent, samples in zip(servers, headers, taken, strict=True):
            status, _, elapsed = server.get(path, sent)
            if status != 200:
                raise SystemExit(f"{path} answered {status} on port {server.port}")
            samples.append(elapsed * 1000)
    return taken


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before-tree", type=Path, required=True)
    parser.add_argument("--before-data", type=Path, required=True)
    parser.add_argument("--after-tree", type=Path, default=generate.ROOT)
    parser.add_argument("--after-data", type=Path, required=True)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--warmup", type=int, default=4)
    parser.add_argument("--only", help="the routes whose label holds this text")
    parser.add_argument("--out", type=Path, help="the results' path without suffix")
    options = parser.parse_args()
    trees = (options.before_tree, options.after_tree)
    datas = (options.before_data, options.after_data)
    facts = [facts_of(t, d, options.memories) for t, d in zip(trees, datas, strict=True)]
    routes = run.routes(facts[1])
    if [r.path for r in run.routes(facts[0])] != [r.path for r in routes]:
        raise SystemExit("The two stores differ: their routes name other memories.")
    servers = [
        run.Server(free_port(), d, options.workers, tree=t)
        for t, d in zip(trees, datas, strict=True)
    ]
    load = [os.getloadavg()]
    rows = []
    try:
        for route in routes:
            if options.only and options.only not in route.label:
                continue
            headers = [run.request_headers(route, f) for f in facts]
            before, after = in_turns(
                servers,
                headers,
                route.path,
                requests=options.requests,
                seconds=options.seconds,
                warmup=options.warmup,
            )
            row = {
                "label": route.label,
                "path": route.path,
                "requests": len(before),
                "before_ms": statistics.median(before),
                "after_ms": statistics.median(after),
                "before_p95_ms": run.percentile_95(before),
                "after_p95_ms": run.percentile_95(after),
            }
            row["ratio"] = row["after_ms"] / row["before_ms"]
            rows.append(row)
            mark = " slower" if row["ratio"] > SLOWER else ""
            print(
                f"{route.label:<36} {row['before_ms']:8.2f} {row['after_ms']:8.2f} "
                f"{row['ratio']:5.2f}{mark}",
                flush=True,
            )
    finally:
        for server in servers:
            server.stop()
    load.append(os.getloadavg())
    report = markdown(options, rows, load)
    print(report)
    if options.out:
        options.out.with_suffix(".json").write_text(json.dumps({"load": load, "routes": rows}))
        options.out.with_suffix(".md").write_text(report)
    return 0


def markdown(options, rows: list[dict], load: list) -> str:
    lines = [
        f"# Routes in turns: {options.before_tree} (before) and {options.after_tree} (after), "
        f"{options.memories:,} memories",
        "",
        f"Load average (1, 5, 15 min): {load[0]} at the start, {load[1]} at the end.",
        "",
        "| route | before median ms | after median ms | after / before | before p95 | after p95 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        mark = f" **>{SLOWER:.2f}**" if row["ratio"] > SLOWER else ""
        lines.append(
            f"| {row['label']} | {row['before_ms']:.2f} | {row['after_ms']:.2f} | "
            f"{row['ratio']:.2f}{mark} | {row['before_p95_ms']:.2f} | {row['after_p95_ms']:.2f} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
