"""CPU and wall medians of the read door (memories.writes.doors.read) on a never-read memory
(its first read, which moves the never-read tallies after migration 0030) and on the same
memory again, in process. It writes: run it on a copy of the store.

cd <checkout> && .venv/bin/python <this file> <copy of the store> [memories]
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

from memories.models import Memory  # noqa: E402
from memories.writes import doors  # noqa: E402

count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
unread = list(
    Memory.objects.filter(read_count=0)
    .select_related("project")
    .order_by("id")
    .values_list("name", "project__name")[:count]
)


def medians_ms() -> tuple[float, float]:
    cpu, wall = [], []
    for name, project in unread:
        start_cpu, start = time.process_time(), time.perf_counter()
        doors.read(name, project=project)
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return statistics.median(cpu) * 1000, statistics.median(wall) * 1000


print(f"# load {os.getloadavg()}")
print("first read\t{:.3f}\t{:.3f}".format(*medians_ms()))
print("second read\t{:.3f}\t{:.3f}".format(*medians_ms()))
print(f"# load {os.getloadavg()}")
