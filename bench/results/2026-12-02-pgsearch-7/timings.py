"""Server time of PostgreSQL statements, in one process and with one parallel worker, each
asked in turn: `EXPLAIN (ANALYZE, TIMING OFF)`'s execution time, min and median of 7 rounds.

    .venv/bin/python bench/results/2026-12-02-pgsearch-7/timings.py URL FILE.sql...

With no files, the passes a common word's search is made of (`service` at 100,000).
"""

import statistics
import sys
from pathlib import Path

import psycopg

QUERY = "'''servic'''::tsquery"
RANK = (
    "(1.0::float8 - 1.0::float8 / (1.0::float8 + 10.0::float8"
    f" * ts_rank('{{0,0.1,0.4,1}}', search, {QUERY})))"
)
PASSES = {
    "count the matches": f"SELECT count(*) FROM memories_search WHERE search @@ {QUERY}",
    "count every row": "SELECT count(*) FROM memories_search",
    "rank the matches": f"SELECT sum({RANK}) FROM memories_search WHERE search @@ {QUERY}",
    "the best 100": (
        f"SELECT id FROM memories_search WHERE search @@ {QUERY} ORDER BY {RANK} DESC LIMIT 100"
    ),
}


def main() -> None:
    url, files = sys.argv[1], sys.argv[2:]
    statements = {Path(f).name: Path(f).read_text() for f in files} or PASSES
    connection = psycopg.connect(url, autocommit=True)
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(7):
        for name, sql in statements.items():
            for mode, workers in (("one process", 0), ("one worker beside", 1)):
                with connection.transaction():
                    connection.execute(f"SET LOCAL max_parallel_workers_per_gather = {workers}")
                    connection.execute("SET LOCAL parallel_setup_cost = 10")
                    connection.execute("SET LOCAL parallel_tuple_cost = 0.01")
                    rows = connection.execute("EXPLAIN (ANALYZE, TIMING OFF) " + sql).fetchall()
                times.setdefault((name, mode), []).append(float(rows[-1][0].split()[-2]))
    for (name, mode), values in times.items():
        print(f"{min(values):7.1f} {statistics.median(values):7.1f}  {name}, {mode}")


if __name__ == "__main__":
    main()
