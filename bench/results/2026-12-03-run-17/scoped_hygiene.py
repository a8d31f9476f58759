"""Each hygiene section of three scopes beyond one tier (a tag on 15% of the memories, the
`index` load, priorities 0-2), in process on a generated store, twice each: the count and the
milliseconds of each call.

    .venv/bin/python bench/results/2026-12-03-run-17/scoped_hygiene.py /work/stores/v6 1000000

Run from a checkout (the code it times is the checkout's: ROOT/bench must hold generate.py).
"""

import os
import sys
import time
from pathlib import Path

root = Path(os.getcwd())
sys.path.insert(0, str(root / "bench"))
import generate  # noqa: E402

stores, size = Path(sys.argv[1]), int(sys.argv[2])
generate.ensure_store(size, stores / f"{size}-1", 1, "")
from django.utils import timezone  # noqa: E402

from memories.reads import hygiene  # noqa: E402
from memories.reads.filters import MemoryFilters  # noqa: E402

now = timezone.now()
print(f"{size:,} memories, load average {os.getloadavg()}")
scopes = [
    ("tag infra", MemoryFilters(tag="infra")),
    ("load index", MemoryFilters(load="index")),
    ("priority<=2", MemoryFilters(priority_max=2)),
]
for label, scope in scopes:
    for name in hygiene.SECTIONS:
        times = []
        for _ in range(2):
            started = time.perf_counter()
            section = hygiene.section(name, scope, now=now)
            times.append(round((time.perf_counter() - started) * 1000, 1))
        more = "+" if getattr(section, "more", False) is True else ""
        print(f"{label:12} {name:12} count {section.count:>8}{more:1} ms {times}", flush=True)
print(f"load average {os.getloadavg()}")
