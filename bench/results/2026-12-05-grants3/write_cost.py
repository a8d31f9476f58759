"""What the memories table's writes cost on a store, inside a transaction rolled back (the
store is left as it was): N rows inserted, copied from existing ones under new names, then N
memories moved to another project (another tier), CPU medians of 5.

    .venv/bin/python bench/results/2026-12-05-grants3/write_cost.py STORE.sqlite3 2000
"""

import sqlite3
import statistics
import sys
import time

COLUMNS = (
    "name, description, body, tags, refs, priority, load, source, created_at, updated_at, "
    "verified_at, expires_at, read_count, project_id, superseded_by, last_read_at"
)


def main() -> None:
    path, count = sys.argv[1], int(sys.argv[2])
    store = sqlite3.connect(path, isolation_level=None)
    inserted, moved = [], []
    for turn in range(5):
        store.execute("BEGIN")
        started = time.process_time()
        store.execute(
            f"INSERT INTO memories_memory ({COLUMNS}) SELECT 'w' || id || '-{turn}', "
            + COLUMNS.split(", ", 1)[1]
            + f" FROM memories_memory WHERE project_id = 2 ORDER BY id LIMIT {count}"
        )
        inserted.append(time.process_time() - started)
        started = time.process_time()
        store.execute(
            "UPDATE memories_memory SET project_id = 3 WHERE id IN (SELECT id FROM "
            "memories_memory WHERE project_id = 2 AND name NOT LIKE 'w%' ORDER BY id "
            f"LIMIT {count})"
        )
        moved.append(time.process_time() - started)
        store.execute("ROLLBACK")
    print(
        f"{path}: insert {count}: {statistics.median(inserted) * 1000:.1f} ms CPU, "
        f"move {count} to another tier: {statistics.median(moved) * 1000:.1f} ms CPU"
    )


if __name__ == "__main__":
    main()
