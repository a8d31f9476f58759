"""Wall time of two dumps' statements (dump_statements.py), each run as search() runs it
(the engine's ranked_rows on Django's connection), before and after alternating, median of
RUNS.

    MEMADMIN_DATABASE_URL=... python statement_time.py STORE_DIR before.json after.json RUNS
"""

import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import generate  # noqa: E402

generate.setup_django(Path(sys.argv[1]), os.environ["MEMADMIN_DATABASE_URL"])

from django.db import connection  # noqa: E402

from memories import engine  # noqa: E402

before, after = (json.loads(Path(path).read_text()) for path in sys.argv[2:4])
runs = int(sys.argv[4])
ranked_rows = engine.of(connection).search.ranked_rows
print("load average before:", Path("/proc/loadavg").read_text().strip())
print(f"{'question':<18} {'before ms':>10} {'after ms':>10} {'after/before':>13}")
for label in before:
    times = ([], [])
    for _ in range(runs):
        for side, dump in enumerate((before, after)):
            sql, params = dump[label]
            started = time.perf_counter()
            ranked_rows(connection, sql, params)
            times[side].append(time.perf_counter() - started)
    was, now = (statistics.median(t) * 1000 for t in times)
    print(f"{label:<18} {was:>10.1f} {now:>10.1f} {now / was:>13.2f}")
print("load average after:", Path("/proc/loadavg").read_text().strip())
