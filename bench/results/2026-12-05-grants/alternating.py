"""One route's CPU time per request in one process, the whole store's admin and one
project's operator (made by bench/grants_bench.py) taking turns, 40 requests each, and the
CPU time of each plain statement the route runs, alike.

    .venv/bin/python bench/results/2026-12-05-grants/alternating.py /memories/_facets/
    .venv/bin/python bench/results/2026-12-05-grants/alternating.py /v1/memories
"""

import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(BENCH))

import generate  # noqa: E402

PRINCIPALS = ("bench-whole", "bench-project")


def main(path: str) -> None:
    generate.ensure_store(100000, Path("/tmp/grants-bench/store"), 1)
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from memadmin.accounts import tokens

    clients, statements = {}, {}
    for name in PRINCIPALS:
        user = User.objects.get(username=name)
        secret = tokens.create_token(user, "read", "alternating")[1]
        client = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {secret}")
        client.force_login(user)
        client.get(path)
        with CaptureQueriesContext(connection) as captured:
            client.get(path)
        clients[name] = client
        statements[name] = [
            query["sql"]
            for query in captured.captured_queries
            if query["sql"].startswith("SELECT") and "%s" not in query["sql"]
        ]
    spent = {name: [] for name in PRINCIPALS}
    sql = {name: [[] for _ in statements[name]] for name in PRINCIPALS}
    for _ in range(40):
        for name in PRINCIPALS:
            started = time.process_time()
            clients[name].get(path)
            spent[name].append((time.process_time() - started) * 1000)
            for number, statement in enumerate(statements[name]):
                with connection.cursor() as cursor:
                    started = time.process_time()
                    cursor.execute(statement)
                    cursor.fetchall()
                    sql[name][number].append((time.process_time() - started) * 1000)
    for name in PRINCIPALS:
        each = [round(statistics.median(times), 2) for times in sql[name]]
        print(f"{name} {path}: request cpu {statistics.median(spent[name]):.2f} ms, sql {each}")


if __name__ == "__main__":
    main(sys.argv[1])
