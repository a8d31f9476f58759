"""Time drawing the consolidation plan (memories.reads.consolidation.plan) on a filled store:
every tier, and the largest tier alone; and what part of it is the pairs of vectors.

    .venv/bin/python bench/generate.py 10000 --data-dir /tmp/store
    .venv/bin/python manage.py memory embed          # with MEMADMIN_DATA_DIR=/tmp/store
    .venv/bin/python bench/consolidation_bench.py --data-dir /tmp/store --runs 5

Each figure is the median of --runs runs after one warm-up (which also reads the vectors
into the process), in milliseconds. State the load average (/proc/loadavg) beside any figure.
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
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    setup_django(args.data_dir)
    from django.db.models import Count

    from memories.models import Memory
    from memories.reads import consolidation, meaning
    from memories.rules.tiers import ANY_TIER

    sizes = Memory.objects.values("tier").annotate(n=Count("id")).order_by("-n")
    largest = sizes[0]["tier"]
    name = None if largest == 0 else Memory.objects.filter(tier=largest).first().project_name
    print(f"load average before: {Path('/proc/loadavg').read_text().strip()}")
    print(f"memories: {Memory.objects.count():,}; vectors held: {meaning.held_count():,}")
    print(f"largest tier: {name or 'global'} ({sizes[0]['n']:,} memories)")
    candidates = {
        "plan, every tier": lambda: consolidation.plan(ANY_TIER),
        f"plan, tier {name or 'global'}": lambda: consolidation.plan(name),
        f"near_duplicate_pairs, tier {name or 'global'}": lambda: meaning.near_duplicate_pairs(
            largest
        ),
    }
    timings = {label: [] for label in candidates}
    found = {label: action() for label, action in candidates.items()}  # the warm-up
    for _ in range(args.runs):
        for label, action in candidates.items():  # interleaved, so load drifts hit all alike
            started = time.perf_counter()
            action()
            timings[label].append((time.perf_counter() - started) * 1000)
    for label, values in timings.items():
        result = found[label]
        size = (
            f"{len(result):,} pairs" if isinstance(result, list) else f"{result.count:,} clusters"
        )
        print(f"{label}: {statistics.median(values):.1f} ms median of {args.runs} ({size})")
    print(f"load average after: {Path('/proc/loadavg').read_text().strip()}")


if __name__ == "__main__":
    main()
