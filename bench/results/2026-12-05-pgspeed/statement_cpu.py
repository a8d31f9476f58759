"""Server CPU of ranking statements saved as text (literal SQL, as Django's client-side
binding sends it, without the SET LOCAL around it): planning alone (EXPLAIN without ANALYZE)
and planning with execution, the statements taken in turn, RUNS of each in three rounds; the
backend's CPU read from /proc (clock ticks: only the mean over many runs means anything).

    python statement_cpu.py URL RUNS before.sql after.sql ...
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
spent = {name: [0.0, 0.0] for name in names}
with psycopg.connect(url, autocommit=True) as connection:
    # As the app's connections (memories.engine.postgresql.config).
    connection.execute("SET random_page_cost = 1.1; SET jit = off")
    pid = connection.execute("SELECT pg_backend_pid()").fetchone()[0]
    for _ in range(3):
        for name, sql in statements.items():
            began = cpu(pid)
            for _ in range(runs // 3):
                connection.execute("EXPLAIN (SUMMARY) " + sql).fetchall()
            planned = cpu(pid)
            for _ in range(runs // 3):
                connection.execute(sql).fetchall()
            spent[name][0] += planned - began
            spent[name][1] += cpu(pid) - planned
print("load average:", os.getloadavg())
for name, (planning, running) in spent.items():
    print(
        f"{name:24} planning CPU {1000 * planning / runs:6.2f} ms"
        f"   planning and execution CPU {1000 * running / runs:6.2f} ms"
    )
