"""CPU and wall medians of GET /v1/memories in process (Django's test client, a read
token), for before/after on one store: the list's page is now read with its cursors.

cd <checkout> && .venv/bin/python <this file> <store dir> [--cursor]

--cursor adds the queries only the new /v1 takes (a sort, a page after a cursor).
"""

import os
import statistics
import sys
import time
from pathlib import Path

root = Path.cwd()
sys.path.insert(0, str(root / "bench"))
sys.path.insert(0, str(root))

import generate  # noqa: E402

generate.setup_django(Path(sys.argv[1]))

from django.contrib.auth.models import Group, User  # noqa: E402
from django.test import Client  # noqa: E402

from memadmin.accounts import tokens  # noqa: E402
from memadmin.accounts.roles import AUDITOR  # noqa: E402

QUERIES = [
    "",
    "limit=200",
    "offset=5000",
    "project=webdev",
    "tag=infra",
    "unverified=90d",
    "load=inline",
]
CURSOR_QUERIES = [
    "sort=name",
    "sort=-read_count",
    "after={cursor}",
    "sort=name&after={cursor_name}",
]
TIMES = 40


def main() -> None:
    user, _ = User.objects.get_or_create(username="bench-reader")
    user.groups.add(Group.objects.get(name=AUDITOR))
    secret = tokens.create_token(user, "read")[1]
    client = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {secret}")
    queries = list(QUERIES)
    if "--cursor" in sys.argv:
        first = client.get("/v1/memories").json()
        by_name = client.get("/v1/memories?sort=name").json()
        cursor = first["next"].split("after=")[1]
        cursor_name = by_name["next"].split("after=")[1]
        queries += [q.format(cursor=cursor, cursor_name=cursor_name) for q in CURSOR_QUERIES]
    print(f"load average before: {os.getloadavg()}")
    print("| query | CPU ms (median) | wall ms (median) |")
    print("|---|---|---|")
    for query in queries:
        cpu, wall = [], []
        for number in range(TIMES + 2):
            started_cpu, started = time.process_time(), time.perf_counter()
            response = client.get("/v1/memories?" + query)
            taken_cpu, taken = time.process_time() - started_cpu, time.perf_counter() - started
            assert response.status_code == 200, (query, response.content[:300])
            if number >= 2:
                cpu.append(taken_cpu * 1000)
                wall.append(taken * 1000)
        cpu_ms, wall_ms = statistics.median(cpu), statistics.median(wall)
        print(f"| `{query or '(none)'}` | {cpu_ms:.2f} | {wall_ms:.2f} |")
    print(f"load average after: {os.getloadavg()}")


main()
