"""The /v1 list's statements for the whole store and for one project's grant (tiers 0 and 1),
each timed alone through the sqlite3 driver on a store: median CPU and wall time of 300 runs,
with SQLite's plan. Read only.

    .venv/bin/python bench/results/2026-12-05-grants3/statements.py STORE.sqlite3
"""

import sqlite3
import statistics
import sys
import time

COLUMNS = ", ".join(
    f'"memories_memory"."{column}" AS "{alias}"'
    for column, alias in [
        ("name", "name"),
        ("project_id", "project_id"),
        ("description", "description"),
        ("priority", "priority"),
        ("load", "load"),
        ("tags", "tags"),
        ("refs", "references"),
        ("source", "source"),
        ("created_at", "created_at"),
        ("updated_at", "updated_at"),
        ("verified_at", "verified_at"),
        ("expires_at", "expires_at"),
        ("read_count", "read_count"),
        ("superseded_by", "superseded_by"),
        ("id", "id"),
    ]
)
PAGE = f'SELECT {COLUMNS} FROM "memories_memory" {{}} ORDER BY 4 ASC, 9 DESC, 15 DESC LIMIT 51'
STATEMENTS = {
    "count, whole store": "SELECT CAST(SUM(memories) AS BIGINT) FROM memories_bandtally",
    "count, one project": "SELECT CAST(SUM(memories) AS BIGINT) FROM memories_bandtally "
    "WHERE tier IN (0, 1)",
    "page, whole store": PAGE.format(""),
    "page, one project": PAGE.format('WHERE "memories_memory"."tier" IN (0, 1)'),
    "projects' names": 'SELECT "id", "name" FROM "projects_project" ORDER BY 2 ASC',
}


def _median_us(run, clock) -> float:
    spent = []
    for _ in range(300):
        started = clock()
        run()
        spent.append((clock() - started) / 1000)
    return statistics.median(spent)


def main() -> None:
    store = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    for label, sql in STATEMENTS.items():
        plan = [row[3] for row in store.execute("EXPLAIN QUERY PLAN " + sql)]

        def run(sql=sql):
            store.execute(sql).fetchall()

        cpu = _median_us(run, time.process_time_ns)
        wall = _median_us(run, time.perf_counter_ns)
        print(f"{label:20} CPU {cpu:7.1f} µs  wall {wall:7.1f} µs  {plan}")


if __name__ == "__main__":
    main()
