"""Server CPU of ranking statements saved as text (literal SQL, as Django's client-side
binding sends it), the statements taken in turn, RUNS of each in three rounds; the backend's
CPU read from /proc (clock ticks: only the mean over many runs means anything).

    python statement_cpu.py URL RUNS before.sql after.sql ...

Unlike ../2026-12-05-pgspeed/statement_cpu.py, psycopg's automatic preparation is off
(prepare_threshold None): that script runs each statement text many times, and from the
sixth run psycopg prepares it, so its "planning and execution" column is execution alone.
The app's statements are new text each time, planned each time.
"""

import os
import sys
from pathlib import Path

import psycopg

TICK = os.sysconf("SC_CLK_TCK")


def cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


url, runs, *names = sys.argv[1:]
runs = int(runs)
statements = {name: Path(name).read_text() for name in names}
spent = dict.fromkeys(names, 0.0)
with psycopg.connect(url, autocommit=True, prepare_threshold=None) as connection:
    # As the app's connections (memories.engine.postgresql.config).
    connection.execute("SET random_page_cost = 1.1; SET jit = off")
    pid = connection.execute("SELECT pg_backend_pid()").fetchone()[0]
    for _ in range(3):
        for name, sql in statements.items():
            began = cpu(pid)
            for _ in range(runs // 3):
                connection.execute(sql).fetchall()
            spent[name] += cpu(pid) - began
print("load average:", os.getloadavg())
for name, total in spent.items():
    print(f"{name:24} planning and execution CPU {1000 * total / runs:6.2f} ms")
