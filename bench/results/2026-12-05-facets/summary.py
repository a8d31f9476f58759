"""The table of README.md from runs/: per route, the median CPU ms of each side's runs and the
median of the ratios after/before of the runs made one after the other.

python summary.py runs
"""

import statistics
import sys
from pathlib import Path

runs: dict[str, dict[str, dict[str, float]]] = {}
for path in sorted(Path(sys.argv[1]).glob("*-*.txt")):
    side, number = path.stem.split("-")
    for line in path.read_text().splitlines():
        if line.startswith(("list ", "facets ")):
            label, cpu, _ = line.split("\t")
            runs.setdefault(label, {}).setdefault(number, {})[side] = float(cpu)

print("| route | 722f67f ms | this branch ms | after/before, paired |")
print("|---|---:|---:|---:|")
for label, by_round in runs.items():
    before = statistics.median(r["before"] for r in by_round.values())
    after = statistics.median(r["after"] for r in by_round.values())
    ratio = statistics.median(r["after"] / r["before"] for r in by_round.values())
    print(f"| {label} | {before:.2f} | {after:.2f} | {ratio:.3f} |")
