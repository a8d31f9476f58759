"""The PostgreSQL server's CPU time for bench/words_cost.py's questions in words mode: the
backend's own (utime + stime from /proc, the server on this machine) with parallel workers
off, so that the whole statement runs in it; beside the wall time of search() then and with
the server's parallel settings. On a machine too busy for wall-clock figures, what the
statement would cost on a free core.

    MEMADMIN_DATABASE_URL=... python server_cpu.py STORE_DIR RUNS "ten common words" [...]
"""

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path.cwd() / "bench"))

import generate  # noqa: E402
import words_cost  # noqa: E402

generate.setup_django(Path(sys.argv[1]), os.environ["MEMADMIN_DATABASE_URL"])

from django.db import connection  # noqa: E402

from memories.reads import search  # noqa: E402
from memories.reads.filters import MemoryFilters  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def backend_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


runs = int(sys.argv[2])
asked = dict(words_cost.questions())
with connection.cursor() as cursor:
    cursor.execute("SELECT pg_backend_pid()")
    pid = cursor.fetchone()[0]
print(f"load average before: {Path('/proc/loadavg').read_text().strip()}")
print(f"{'question':<18} {'wall ms':>8} {'serial wall':>12} {'server cpu':>11}")
for label in sys.argv[3:]:
    queries = asked[label] if isinstance(asked[label], list) else [asked[label]]
    walls, serial, cpu = [], [], []
    for workers in ("DEFAULT", "0"):
        with connection.cursor() as cursor:
            cursor.execute(f"SET max_parallel_workers_per_gather TO {workers}")
        search.search(queries, MemoryFilters(), limit=50, mode="words")  # warm
        for _ in range(runs):
            ticked, started = backend_cpu(pid), time.perf_counter()
            search.search(queries, MemoryFilters(), limit=50, mode="words")
            (walls if workers == "DEFAULT" else serial).append(time.perf_counter() - started)
            if workers == "0":
                cpu.append(backend_cpu(pid) - ticked)
    print(
        f"{label:<18} {statistics.median(walls) * 1000:>8.1f}"
        f" {statistics.median(serial) * 1000:>12.1f} {statistics.median(cpu) * 1000:>11.1f}"
    )
print(f"load average after: {Path('/proc/loadavg').read_text().strip()}")
