"""The README's benchmark table, drawn from committed results: the SQLite runs at each size
(`bench/run.py --memories 10000 100000 1000000` writes one JSON a size) and, when given, a
PostgreSQL run at 100,000, each route beside its growth and the goals of the cost issue.

    .venv/bin/python bench/readme_table.py bench/results/X/*-10000.json \\
        bench/results/X/*-100000.json bench/results/X/*-1000000.json \\
        --postgres bench/results/X/postgresql-100000.json

Prints the Markdown table; the README's section says which run it is.
"""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import growth  # noqa: E402

# The cost issue's goals, by the medians at 100,000 and at 1,000,000 memories (ms).
PAGE_GOAL = (25.0, 50.0)
SEARCH_GOAL = (25.0, 100.0)
THROUGHPUT_GOAL = 1500  # /v1/memories requests a second under 8 clients
FLOOR_GOAL = 2.0  # a memory's page within this multiple of its plain-Django floor


def _goal(label: str, medians: dict[int, float]) -> str:
    at_100k, at_1m = SEARCH_GOAL if "search" in label else PAGE_GOAL
    if 100_000 not in medians or 1_000_000 not in medians:
        return ""
    met = medians[100_000] < at_100k and medians[1_000_000] < at_1m
    return "met" if met else "missed"


def _floor(detail: dict) -> str:
    return (
        f"{detail['page_median_ms']:.2f} / {detail['median_ms']:.2f} ms: {detail['ratio']:.2f}x"
        f" (CPU {detail['cpu_ratio']:.2f}x)"
    )


def table(runs: list[dict], postgres: dict | None) -> str:
    runs = sorted(runs, key=lambda run: run["memories"])
    sizes = [run["memories"] for run in runs]
    by_label = [{r["label"]: r for r in run["routes"]} for run in runs]
    pg = {r["label"]: r for r in postgres["routes"]} if postgres else {}
    heading = " | ".join(f"SQLite {size:,}" for size in sizes)
    pg_heading = f" PostgreSQL {postgres['memories']:,} (bare SQL) |" if postgres else ""
    lines = [
        f"| route | {heading} | growth | goal (<25 ms at 100,000; <50, search <100, at"
        f" 1,000,000) |{pg_heading}",
        "|---|" + "---:|" * len(sizes) + "---|---|" + ("---:|" if postgres else ""),
    ]
    for label in [r["label"] for r in runs[0]["routes"]]:
        medians = [routes[label]["median_ms"] for routes in by_label]
        cells = " | ".join(f"{m:.1f}" for m in medians)
        goal = _goal(label, dict(zip(sizes, medians, strict=True)))
        row = f"| {label} | {cells} | {growth(sizes, medians)} | {goal} |"
        if postgres:
            r = pg[label]
            row += f" {r['median_ms']:.1f} ({r['bare_median_ms']:.1f}) |"
        lines.append(row)
    clients = runs[0]["throughput"]["clients"]
    rps = " | ".join(f"{run['throughput']['rps']:.0f}" for run in runs)
    pg_rps = f" {postgres['throughput']['rps']:.0f} |" if postgres else ""
    lines.append(
        f"| `/v1/memories` req/s, {clients} clients | {rps} | | goal {THROUGHPUT_GOAL:,} |{pg_rps}"
    )
    floor = " | ".join(f"{run['floor_throughput']['rps']:.0f}" for run in runs)
    pg_floor = f" {postgres['floor_throughput']['rps']:.0f} |" if postgres else ""
    lines.append(
        f"| the Django floor (bench/floor.py) req/s, {clients} clients | {floor} | | |{pg_floor}"
    )
    details = " | ".join(_floor(run["detail_floor"]) for run in runs)
    pg_detail = f" {_floor(postgres['detail_floor'])} |" if postgres else ""
    lines.append(
        "| memory detail against its floor (page / floor, asked in turn) |"
        f" {details} | | goal: within {FLOOR_GOAL:g}x |{pg_detail}"
    )
    loads = "; ".join(
        f"{run['memories']:,}: {run['load_before']} to {run['load_after']}" for run in runs
    )
    if postgres:
        loads += f"; PostgreSQL: {postgres['load_before']} to {postgres['load_after']}"
    return "\n".join(lines) + f"\n\nLoad average (1, 5, 15 min) before and after: {loads}.\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", type=Path, nargs="+", help="one SQLite run's JSON a size")
    parser.add_argument("--postgres", type=Path, help="a PostgreSQL run's JSON")
    options = parser.parse_args()
    runs = [json.loads(path.read_text()) for path in options.runs]
    postgres = json.loads(options.postgres.read_text()) if options.postgres else None
    print(table(runs, postgres), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
