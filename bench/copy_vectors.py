"""Copy the vectors of a SQLite store into a PostgreSQL store generated with the same count
and seed (bench/generate.py), row for row: the same memory ids, so the same memories.

    MEMADMIN_DATABASE_URL=postgresql://... python bench/copy_vectors.py \
        --memories 1000000 --data-dir /work/stores/pg1m --from /work/stores/v1m

Embedding a million memories takes hours on two cores; a PostgreSQL store is given the
vectors its SQLite twin already holds, through COPY. The names of a sample of memories are
compared first, so a store of another seed or count is refused rather than given vectors
that are not its own. What the SQLite store holds is copied as it is: its vectors are only
as faithful as they are there (the 1,000,000 stores hold the 100,000's in turn).
"""

import argparse
import os
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402

COLUMNS = ("id", "memory_id", "model", "digest", "stamp", "vector")
SAMPLE = 1000  # memories whose names are compared, spread over the ids
BATCH = 50_000  # rows read from SQLite at once


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, required=True)
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--from", dest="source", type=Path, required=True, help="SQLite data dir")
    options = parser.parse_args()
    database_url = os.environ.get("MEMADMIN_DATABASE_URL", "")
    if not database_url:
        raise SystemExit("Set MEMADMIN_DATABASE_URL to the PostgreSQL store.")
    generate.ensure_store(options.memories, options.data_dir, options.seed, database_url)
    from django.db import connection, transaction

    from memories.models import Memory, MemoryVector

    source = sqlite3.connect(f"file:{generate.store_path(options.source)}?mode=ro", uri=True)
    if MemoryVector.objects.exists():
        raise SystemExit("The PostgreSQL store holds vectors already.")
    step = max(1, options.memories // SAMPLE)
    sample = source.execute(
        "SELECT id, name FROM memories_memory WHERE id % ? = 1 ORDER BY id", [step]
    ).fetchall()
    here = dict(Memory.objects.filter(id__in=[i for i, _ in sample]).values_list("id", "name"))
    if here != dict(sample):
        raise SystemExit("The two stores' memories differ: not the same count and seed.")
    table = MemoryVector._meta.db_table
    started = time.perf_counter()
    rows = source.execute(f"SELECT {', '.join(COLUMNS)} FROM {table} ORDER BY id")
    copied = 0
    with transaction.atomic(), connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY {table} ({', '.join(COLUMNS)}) FROM STDIN") as copy:
            while batch := rows.fetchmany(BATCH):
                for row in batch:
                    copy.write_row(row)
                copied += len(batch)
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), max(id)) FROM {table}"
        )
        cursor.execute(f"ANALYZE {table}")
    print(
        f"Copied {copied} vectors in {time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
