"""The list with its facets against the list without, on a store of 100,000 memories.

    python bench/facets_bench.py                      # 100,000 memories (generated on first run)
    python bench/facets_bench.py --memories 10000 --runs 31

For each filter, the list page as a browser loads it (the full page, signed in as an
operator) is timed alone, and then together with the facets fragment the page loads beside
it (`/memories/_facets/`), alternating the two so that a busy machine slows both alike. The
medians, their ratio (the target: at most 2) and the load average before and after are
printed, and the same for the CPU time of each request (the figure that a busy machine
moves least).
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
    """Wall and CPU milliseconds of one request (the CPU is this process's: Python and
    SQLite, which a busy machine inflates far less than the wall clock)."""
    started, started_cpu = time.perf_counter(), time.process_time()
    response = client.get(url, **headers)
    assert response.status_code == 200, (url, response.status_code)
    return (time.perf_counter() - started) * 1000, (time.process_time() - started_cpu) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--data-dir", type=Path)
    options = parser.parse_args()
    generate.ensure_store(options.memories, options.data_dir)

    from django.conf import settings
    from django.contrib.auth.models import Group, User
    from django.test import Client

    settings.WHITENOISE_AUTOREFRESH = True  # no collectstatic for a benchmark
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    operator, _ = User.objects.get_or_create(username="bench-operator")
    operator.groups.add(Group.objects.get_or_create(name="operator")[0])
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(operator)

    queries = [
        ("every memory", ""),
        ("one project", "project=infra"),
        ("global tier", "project="),
        ("one load", "load=inline"),
        ("tag", f"tag={generate.TAGS[0]}"),
        ("unverified 90d", "unverified=90d"),
        ("expired", "expired=true"),
    ]
    print(f"load average before: {' '.join(os.getloadavg().__str__()[1:-1].split(', '))}")
    print(
        f"{'filter':<16} {'list ms':>8} {'list+facets ms':>15} {'facets ms':>10} {'ratio':>6}"
        f" {'list cpu':>9} {'facets cpu':>11} {'cpu ratio':>10}"
    )
    for label, query in queries:
        page = "/memories/" + (f"?{query}" if query else "")
        facets = "/memories/_facets/" + (f"?{query}" if query else "")
        timed(client, page, {}), timed(client, facets, HTMX)  # warm the caches
        alone, together, facet_only, alone_cpu, facet_cpu = [], [], [], [], []
        for _ in range(options.runs):
            wall, cpu = timed(client, page, {})
            alone.append(wall)
            alone_cpu.append(cpu)
            list_ms, _ = timed(client, page, {})
            facets_ms, cpu = timed(client, facets, HTMX)
            together.append(list_ms + facets_ms)
            facet_only.append(facets_ms)
            facet_cpu.append(cpu)
        a, t, f, ac, fc = (
            statistics.median(x) for x in (alone, together, facet_only, alone_cpu, facet_cpu)
        )
        print(
            f"{label:<16} {a:8.1f} {t:15.1f} {f:10.1f} {t / a:6.2f}"
            f" {ac:9.1f} {fc:11.1f} {(ac + fc) / ac:10.2f}"
        )
    print(f"load average after: {' '.join(os.getloadavg().__str__()[1:-1].split(', '))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
