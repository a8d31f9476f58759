"""EXPLAIN (ANALYZE, BUFFERS) of the words-mode ranking statement of bench/words_cost.py's
questions, run as search() runs it (the PARALLEL settings for it alone).

    MEMADMIN_DATABASE_URL=... python explain.py STORE_DIR "ten common words" [...]
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path.cwd() / "bench"))

import generate  # noqa: E402
import words_cost  # noqa: E402

generate.setup_django(Path(sys.argv[1]), os.environ["MEMADMIN_DATABASE_URL"])

from django.db import connection, transaction  # noqa: E402

from memories.engine.postgresql.search import PARALLEL  # noqa: E402
from memories.reads.filters import MemoryFilters  # noqa: E402
from memories.reads.search import ranking_sql  # noqa: E402

asked = dict(words_cost.questions())
for label in sys.argv[2:]:
    queries = asked[label] if isinstance(asked[label], list) else [asked[label]]
    sql, params = ranking_sql(queries, MemoryFilters())
    ranking_sql(queries, MemoryFilters())  # the words' statistics read and kept
    with transaction.atomic(), connection.cursor() as cursor:
        for setting in PARALLEL:
            cursor.execute(setting)
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    print(f"## {label}\n\n{plan}\n")
