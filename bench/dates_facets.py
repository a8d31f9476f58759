"""The facets and the date ranges' month histograms (drawn apart, when asked for) at 100,000
memories: the CPU time of each, medians of `--runs`, in process.

    python bench/dates_facets.py --data-dir /tmp/copy-of-a-100k-store
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402  (sets Django up on the generated store)


def cpu_ms(call) -> float:
    started = time.process_time()
    call()
    return (time.process_time() - started) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--data-dir", type=Path)
    options = parser.parse_args()
    generate.ensure_store(options.memories, options.data_dir)
    from django.utils import timezone

    from memories.reads import facets
    from memories.reads.filters import MemoryFilters

    print("load average before: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    for label, filters in [
        ("every memory", MemoryFilters()),
        ("unverified 90d", MemoryFilters(unverified="90d")),
        ("recorded 7d", MemoryFilters(recorded_since="7d")),
    ]:
        now = timezone.now()
        whole = [cpu_ms(lambda f=filters, t=now: facets.facets(f, t)) for _ in range(options.runs)]
        months = [
            cpu_ms(lambda f=filters, t=now: facets.month_facets(f, t)) for _ in range(options.runs)
        ]
        a, b = statistics.median(whole), statistics.median(months)
        print(f"{label:<16} facets {a:7.1f} ms cpu, the months apart {b:7.1f} ms cpu")
    print("load average after: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
