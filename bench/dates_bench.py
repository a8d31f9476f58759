"""The list with each date filter against the list with the other filters, at 100,000
memories: the date filters are to be flat like the others.

    python bench/dates_bench.py --data-dir /tmp/copy-of-a-100k-store   # a copy: it is migrated
    python bench/dates_bench.py --memories 10000 --runs 11

The store is migrated first (0031 and 0032 add two columns and the ranges' indexes), and, as
a store whose agent read memories before the read door stamped when, the memories read at
least once are given a last read moment (their update's). Then each filter's list page (as a
browser loads it, signed in) and /v1/memories page are timed `--runs` times, interleaved, and
the medians of the wall and CPU milliseconds printed, with the facets fragment (which the
date ranges' month histograms join) for a few; the load average before and after.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402  (sets Django up on the generated store)

HTMX = {"HTTP_HX_REQUEST": "true"}


def timed(client, url: str, headers: dict) -> tuple[float, float]:
    started, started_cpu = time.perf_counter(), time.process_time()
    response = client.get(url, **headers)
    assert response.status_code == 200, (url, response.status_code, response.content[:300])
    return (time.perf_counter() - started) * 1000, (time.process_time() - started_cpu) * 1000


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--data-dir", type=Path)
    options = parser.parse_args()
    generate.ensure_store(options.memories, options.data_dir)

    from django.conf import settings
    from django.contrib.auth.models import Group, User
    from django.db import connection
    from django.test import Client

    from memadmin.accounts import tokens

    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE memories_memory SET last_read_at = updated_at "
            "WHERE read_count > 0 AND last_read_at IS NULL"
        )
        cursor.execute("SELECT min(created_at), max(created_at) FROM memories_memory")
        oldest, newest = cursor.fetchone()
        cursor.execute("SELECT username FROM memories_revision WHERE username != '' LIMIT 1")
        changer = (cursor.fetchone() or ["nobody"])[0]
    print(f"memories recorded from {oldest} to {newest}; changed_by={changer}")

    settings.WHITENOISE_AUTOREFRESH = True
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    operator, _ = User.objects.get_or_create(username="bench-operator")
    operator.groups.add(Group.objects.get_or_create(name="operator")[0])
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(operator)
    token = tokens.create_token(operator, "read")[1]
    api = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {token}")

    queries = [
        ("every memory", ""),
        ("one project", "project=infra"),
        ("tag", f"tag={generate.TAGS[0]}"),
        ("unverified 90d", "unverified=90d"),
        ("expired", "expired=true"),
        ("recorded 7d", "recorded_since=7d"),
        ("recorded 1y", "recorded_since=365d"),
        ("recorded range", "recorded_since=2025-01-01&recorded_until=2025-06-30"),
        ("verified until", "verified_until=180d"),
        ("updated 30d", "updated_since=30d"),
        ("read 30d", "read_since=30d"),
        ("expires 30d", "expires_until=30d"),
        ("changed by", f"changed_by={changer}"),
        ("project+rec", "project=infra&recorded_since=90d"),
    ]
    faceted = {"every memory", "recorded 7d", "unverified 90d"}
    print(f"load average before: {load()}")
    print(
        f"{'filter':<16} {'list ms':>8} {'list cpu':>9} {'v1 ms':>7} {'v1 cpu':>7}"
        f" {'facets ms':>10} {'facets cpu':>11}"
    )
    for label, query in queries:
        suffix = f"?{query}" if query else ""
        page, v1, facets = (
            "/memories/" + suffix,
            "/v1/memories" + suffix,
            "/memories/_facets/" + suffix,
        )
        timed(client, page, {}), timed(api, v1, {})  # warm the caches
        rows = {"list": [], "list_cpu": [], "v1": [], "v1_cpu": [], "f": [], "f_cpu": []}
        for _ in range(options.runs):
            wall, cpu = timed(client, page, {})
            rows["list"].append(wall)
            rows["list_cpu"].append(cpu)
            wall, cpu = timed(api, v1, {})
            rows["v1"].append(wall)
            rows["v1_cpu"].append(cpu)
            if label in faceted:
                wall, cpu = timed(client, facets, HTMX)
                rows["f"].append(wall)
                rows["f_cpu"].append(cpu)
        m = {
            key: statistics.median(values) if values else float("nan")
            for key, values in rows.items()
        }
        print(
            f"{label:<16} {m['list']:8.1f} {m['list_cpu']:9.1f} {m['v1']:7.1f} {m['v1_cpu']:7.1f}"
            f" {m['f']:10.1f} {m['f_cpu']:11.1f}"
        )
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
