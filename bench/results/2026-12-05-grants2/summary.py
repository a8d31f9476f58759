"""The table of README.md from the runs here: per route, the median CPU time per request of the
whole store's admin and one project's operator, on main and on the branch, and the ratios.

    .venv/bin/python bench/results/2026-12-05-grants2/summary.py
"""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = "one project (webdev)"


def main() -> None:
    runs = {
        name: json.loads((HERE / f"{name}.json").read_text())
        for name in ("main-1", "main-2", "branch-1", "branch-2")
    }
    routes = runs["branch-1"]["routes"]
    print(
        "| route (CPU ms, median) | main: whole / one project | branch: whole / one project "
        "| branch one project vs branch whole | vs main whole |"
    )
    print("|---|---|---|---|---|")
    for route in routes:
        cells, ratios, against_main = [], [], []
        for side in ("main", "branch"):
            pairs = []
            for n in (1, 2):
                found = runs[f"{side}-{n}"]["routes"][route]
                whole, one = found["whole store"]["cpu_ms"], found[PROJECT]["cpu_ms"]
                pairs.append(f"{whole:.2f} / {one:.2f}")
                if side == "branch":
                    ratios.append(f"{(one / whole - 1) * 100:+.0f}%")
                    main_whole = runs[f"main-{n}"]["routes"][route]["whole store"]["cpu_ms"]
                    against_main.append(f"{(one / main_whole - 1) * 100:+.0f}%")
            cells.append(", ".join(pairs))
        print(
            f"| {route} | {cells[0]} | {cells[1]} | {', '.join(ratios)} | "
            f"{', '.join(against_main)} |"
        )


if __name__ == "__main__":
    main()
