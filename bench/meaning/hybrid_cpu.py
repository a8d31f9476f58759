"""Hybrid search against search by words, in CPU time, in process, on a store with vectors.

    python bench/meaning/hybrid_cpu.py --data-dir /tmp/store-100k --runs 11

For the common word (`service`, in about half of the memories) and a paraphrase, the first
page of 50 by words and hybrid, alternated run by run, with numpy's BLAS on each thread count
of --blas-threads in turn (the app sets one; two is numpy's default on two cores): the median
CPU time of each and the ratio hybrid / words (target: at most 1.5). CPU time, not wall time,
because the machine is shared; it counts every thread of the process, BLAS's too.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import generate  # noqa: E402

QUERIES = (generate.COMMON_WORD, "how do we ship to production")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--blas-threads", default="2,1")
    options = parser.parse_args()
    generate.setup_django(options.data_dir)
    from threadpoolctl import ThreadpoolController

    from memories.reads import meaning
    from memories.reads.filters import MemoryFilters
    from memories.reads.search import search

    threads = [int(n) for n in options.blas_threads.split(",")]
    blas = ThreadpoolController()
    print(f"load average before: {os.getloadavg()}")
    print(f"vectors held: {meaning.held_count()}")
    for query in QUERIES:
        cpu = {(n, mode): [] for n in threads for mode in ("words", "hybrid")}
        for run in range(options.runs + 1):
            for n, mode in cpu:
                with blas.limit(limits=n, user_api="blas"):
                    started = time.process_time()
                    search([query], MemoryFilters(), limit=50, mode=mode)
                    if run:  # the first round warms up
                        cpu[n, mode].append((time.process_time() - started) * 1000)
        for n in threads:
            words, hybrid = (statistics.median(cpu[n, mode]) for mode in ("words", "hybrid"))
            print(
                f"{query!r}, {n} BLAS thread(s): words {words:.1f} ms CPU, hybrid "
                f"{hybrid:.1f} ms CPU, ratio {hybrid / words:.2f} (median of {options.runs})"
            )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
