"""Time the dashboard's pages on a store of 100,000 memories.

    python bench/dashboard_bench.py                   # 100,000 memories (generated on first run)
    python bench/dashboard_bench.py --memories 10000 --runs 31

Each page is requested through Django's test client, signed in as an admin (the role that
sees every control), so a figure is the whole server side of a page: the role lookup, the
queries and the template, without the network. The median of the runs is reported, with the
number of SQL queries the page ran. The list's deep page starts after its 5,000th row, by
keyset; the search rows use memories.reads.search.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402  (sets Django up on the generated store)


def measure(client, url: str, runs: int, headers: dict) -> tuple[float, int, int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    timings = []
    for _ in range(runs):
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = client.get(url, **headers)
            timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings), len(queries), response.status_code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--data-dir", type=Path)
    options = parser.parse_args()
    path = generate.ensure_store(options.memories, options.data_dir)

    from django.conf import settings
    from django.contrib.auth.models import Group, User
    from django.db.models import Count
    from django.test import Client

    from memories.models import Memory, Reference
    from memories.reads import listing, pagination
    from memories.reads.filters import MemoryFilters

    settings.WHITENOISE_AUTOREFRESH = True  # no collectstatic for a benchmark
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    admin, _ = User.objects.get_or_create(username="bench-admin")
    admin.groups.add(Group.objects.get_or_create(name="admin")[0])
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(admin)

    deep = listing.memories(MemoryFilters())[5000]
    cursor = pagination.encode(listing.sort_keys("index"), deep)
    target = (  # the most cited reference target: the referencing filter's worst case
        Reference.objects.values("target")
        .annotate(n=Count("id"))
        .order_by("-n")
        .values_list("target", flat=True)
        .first()
    )
    memory = Memory.objects.select_related("project").filter(project__isnull=False).first()
    tag = generate.TAGS[0]
    pages = [
        ("overview", "/", {}),
        ("list, first page", "/memories/", {}),
        ("list, fragment", "/memories/", {"HTTP_HX_REQUEST": "true"}),
        ("list, after row 5,000", f"/memories/?after={cursor}", {}),
        ("list, one project", "/memories/?project=webdev", {}),
        ("list, global tier", "/memories/?project=", {}),
        (f"list, tag={tag}", f"/memories/?tag={tag}", {}),
        ("list, referencing", f"/memories/?referencing={target}", {}),
        ("list, expired", "/memories/?expired=true", {}),
        ("list, unverified 90d", "/memories/?unverified=90d", {}),
        ("list, by name", "/memories/?sort=name", {}),
        ("list, most read", "/memories/?sort=-read_count", {}),
        ("list, by expiry", "/memories/?sort=expires", {}),
        (f"list, q={generate.COMMON_WORD}", f"/memories/?q={generate.COMMON_WORD}", {}),
        (f"list, q={generate.RARE_WORD}", f"/memories/?q={generate.RARE_WORD}", {}),
        ("memory detail", f"/memories/{memory.name}/?project={memory.project.name}", {}),
        ("agent view, global", "/memories/_agent/", {}),
        ("agent view, a project", "/memories/_agent/?project=webdev", {}),
        ("projects", "/projects/", {}),
    ]
    print(f"Dashboard pages, {Memory.objects.count():,} memories, median of {options.runs} runs")
    print(f"{path}\n")
    print(f"{'page':<24} {'ms':>8} {'queries':>8} {'status':>7}")
    for label, url, headers in pages:
        median, queries, status = measure(client, url, options.runs, headers)
        print(f"{label:<24} {median:>8.1f} {queries:>8} {status:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
