"""Time the overview's dangling-reference count: resolved in the citing memory's band (what
the overview, a memory's page, the graph and Hygiene now all mean) against the count it
replaced (a name no memory of any tier has), interleaved, on a filled store.

    .venv/bin/python bench/generate.py 100000 --data-dir /tmp/store
    .venv/bin/python bench/dangling.py --data-dir /tmp/store --runs 7

Each figure is the median of --runs runs after one warm-up, in milliseconds (wall and this
process's CPU). State the load average (/proc/loadavg) beside any figure you quote.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import setup_django  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    setup_django(args.data_dir)
    from django.db.models import Count, Exists, OuterRef

    from memories.models import Memory, Reference
    from memories.reads import overview
    from memories.reads.backlinks import dangling_references

    def grouped(queryset):
        return len(list(queryset.order_by().values_list("target").annotate(n=Count("id"))))

    def any_tier():  # the count the overview showed before: a name no memory of any tier has
        named = Memory.objects.filter(name=OuterRef("target"))
        return grouped(Reference.objects.filter(~Exists(named)))

    def in_band():
        return grouped(dangling_references())

    candidates = {"any tier (before)": any_tier, "in band (now)": in_band}
    timings = {label: ([], []) for label in candidates}
    targets = {label: action() for label, action in candidates.items()}  # the warm-up
    for _ in range(args.runs):
        for label, action in candidates.items():  # interleaved, so load drifts hit both
            started, started_cpu = time.perf_counter(), time.process_time()
            action()
            timings[label][0].append((time.perf_counter() - started) * 1000)
            timings[label][1].append((time.process_time() - started_cpu) * 1000)
    print(f"{Memory.objects.count():,} memories, {Reference.objects.count():,} references")
    for label, (wall, cpu) in timings.items():
        print(
            f"{label:<20} {statistics.median(wall):8.1f} ms wall {statistics.median(cpu):8.1f} ms"
            f" cpu  {targets[label]:,} targets"
        )
    started = time.perf_counter()
    overview.overview()
    print(f"{'whole overview read':<20} {(time.perf_counter() - started) * 1000:8.1f} ms wall")
    with open("/proc/loadavg") as handle:
        print("load average:", handle.read().strip())


if __name__ == "__main__":
    main()
