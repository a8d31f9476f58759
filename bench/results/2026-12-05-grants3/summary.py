"""The tables of README.md from the runs here: per route and run, the median CPU time per
request of the whole store's admin and one project's operator, on main and on the branch;
the grant's cost on each (one project against the same run's whole store) and the branch's
one project against main's whole store of the same turn, as medians over the runs (with
their range).

    .venv/bin/python bench/results/2026-12-05-grants3/summary.py [PREFIX]

PREFIX picks a set of runs (`only-list-` for the list routes' longer runs; default: none).
"""

import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = "one project (webdev)"


def _runs(prefix: str, side: str) -> list[dict]:
    found = sorted(
        HERE.glob(f"{prefix}{side}-[0-9]*.json"), key=lambda p: int(p.stem.split("-")[-1])
    )
    return [json.loads(path.read_text()) for path in found]


def main() -> None:
    prefix = sys.argv[1] if len(sys.argv) > 1 else ""
    sides = {side: _runs(prefix, side) for side in ("main", "branch")}
    print(f"runs: main {len(sides['main'])}, branch {len(sides['branch'])}")
    print(
        "| route (CPU ms, median) | main: whole -> one project, per run | main: grant's cost, "
        "median | branch: whole -> one project, per run | branch: grant's cost, median "
        "| branch one project vs main whole, median |"
    )
    print("|---|---|---|---|---|---|")
    for route in sides["branch"][0]["routes"]:
        cells = []
        for side in ("main", "branch"):
            pairs, costs = [], []
            for run in sides[side]:
                found = run["routes"][route]
                whole, one = found["whole store"]["cpu_ms"], found[PROJECT]["cpu_ms"]
                pairs.append(f"{whole:.2f} -> {one:.2f}")
                costs.append((one / whole - 1) * 100)
            cells += [", ".join(pairs), _spread(costs)]
        against_main = [
            (
                branch["routes"][route][PROJECT]["cpu_ms"]
                / main["routes"][route]["whole store"]["cpu_ms"]
                - 1
            )
            * 100
            for main, branch in zip(sides["main"], sides["branch"], strict=True)
        ]
        cells.append(_spread(against_main))
        print(f"| {route} | " + " | ".join(cells) + " |")


def _spread(percents: list[float]) -> str:
    return f"{statistics.median(percents):+.1f}% ({min(percents):+.0f} to {max(percents):+.0f})"


if __name__ == "__main__":
    main()
