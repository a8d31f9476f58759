"""The overview's dangling figures against a recount of the dangling tally (the statement the
code before read), and the hygiene section off the tally against the resolved references'.

Run with MEMADMIN_DATA_DIR set to a bench store and the checkout on PYTHONPATH."""

import os
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
django.setup()

from django.db import connection  # noqa: E402

from memories.reads import graph, hygiene, overview  # noqa: E402
from memories.reads.filters import MemoryFilters  # noqa: E402

PER_TARGET = "SELECT target, sum(refs) AS n FROM memories_danglingtally GROUP BY target"


def ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 1)


start = time.perf_counter()
shown = overview.overview()
took = ms(start)
with connection.cursor() as cursor:
    cursor.execute(f"SELECT count(*), sum(n) FROM ({PER_TARGET}) AS each_target")
    targets, refs = cursor.fetchone()
    cursor.execute(f"{PER_TARGET} ORDER BY n DESC, target LIMIT 10")
    top = [tuple(row) for row in cursor.fetchall()]
same = (shown.dangling_target_count, shown.dangling_references) == (targets, refs)
same = same and [tuple(item) for item in shown.dangling_targets] == top
print(
    "overview",
    took,
    "ms;",
    shown.dangling_target_count,
    shown.dangling_references,
    "recount",
    targets,
    refs,
    "same:",
    same,
)
for scope in (None, MemoryFilters(project="webdev")):
    start = time.perf_counter()
    tallied = hygiene.dangling(scope)
    off_tally = ms(start)
    start = time.perf_counter()
    resolved = hygiene._dangling(graph.links(scope), 50, 0)
    print(
        "hygiene dangling",
        "store" if scope is None else "webdev",
        "tally",
        off_tally,
        "ms; resolved",
        ms(start),
        "ms; same:",
        tallied.to_dict() == resolved.to_dict(),
        tallied.count,
    )
