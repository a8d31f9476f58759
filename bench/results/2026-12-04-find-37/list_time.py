"""In-process medians of the list page's context and its facets on one store, for before/after.

cd <checkout> && .venv/bin/python <this file> /work/stores/b100k
"""

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


def median_ms(run, times: int) -> float:
    taken = []
    for _ in range(times):
        start = time.perf_counter()
        run()
        taken.append(time.perf_counter() - start)
    return statistics.median(taken) * 1000


for query in QUERIES:
    label = query or "none"
    print(f"list {label}\t{median_ms(lambda q=query: listing_context(QueryDict(q)), 25):.2f}")
    form = MemoryListForm(QueryDict(query))
    form.is_valid()
    counted = median_ms(lambda f=form: facets.facets(f.filters(), timezone.now()), 15)
    print(f"facets {label}\t{counted:.2f}")
