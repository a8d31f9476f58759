"""CPU and wall medians of the list page's context and its facets under each filter of
bench/results/2026-12-04-find-37 (list_time.py there), in process, on one store.

cd <checkout> && .venv/bin/python <this file> /work/stores/b100k-idx [--facets-only]
"""

import os
import statistics
import sys
import time
from pathlib import Path

root = Path.cwd()
sys.path.insert(0, str(root / "bench"))
sys.path.insert(0, str(root))

import generate  # noqa: E402

generate.setup_django(Path(sys.argv[1]))

from django.http import QueryDict  # noqa: E402
from django.utils import timezone  # noqa: E402

from memadmin.pages.memories.forms import MemoryListForm  # noqa: E402
from memadmin.pages.memories.listing import listing_context  # noqa: E402
from memories.reads import facets  # noqa: E402

QUERIES = [
    "",
    "project=webdev",
    "expired=true",
    "unverified=90d",
    "referencing=docs/runbook.md",
    "tag=infra",
    "load=inline",
    "q=deploy&mode=words",
]
FACETS_ONLY = "--facets-only" in sys.argv


def medians_ms(run, times: int) -> tuple[float, float]:
    cpu, wall = [], []
    for _ in range(2):
        run()
    for _ in range(times):
        start_cpu, start = time.process_time(), time.perf_counter()
        run()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return statistics.median(cpu) * 1000, statistics.median(wall) * 1000


print(f"# load {os.getloadavg()}")
for query in QUERIES:
    label = query or "none"
    if not FACETS_ONLY:
        cpu, wall = medians_ms(lambda q=query: listing_context(QueryDict(q)), 25)
        print(f"list {label}\t{cpu:.2f}\t{wall:.2f}")
    form = MemoryListForm(QueryDict(query))
    form.is_valid()
    cpu, wall = medians_ms(lambda f=form: facets.facets(f.filters(), timezone.now()), 41)
    print(f"facets {label}\t{cpu:.2f}\t{wall:.2f}")
print(f"# load {os.getloadavg()}")
