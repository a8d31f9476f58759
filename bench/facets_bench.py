"""The list with its facets against the list without, on a store of 100,000 memories.

    python bench/facets_bench.py                      # 100,000 memories (generated on first run)
    python bench/facets_bench.py --memories 10000 --runs 31

For each filter, the list page as a browser loads it (the full page, signed in as an
operator) is timed alone, and then together with the facets fragment the page loads beside
it (`/memories/_facets/`), alternating the two so that a busy machine slows both alike. The
medians, their ratio (the target: at most 2) and the load average before and after are
printed.
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


def timed(client, url: str, headers: dict) -> float:
    started = time.perf_counter()
    response = client.get(url, **headers)
    assert response.status_code == 200, (url, response.status_code)
    return (time.perf_counter() - started) * 1000


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
    print(f"{'filter':<16} {'list ms':>8} {'list+facets ms':>15} {'facets ms':>10} {'ratio':>6}")
    for label, query in queries:
        page = "/memories/" + (f"?{query}" if query else "")
        facets = "/memories/_facets/" + (f"?{query}" if query else "")
        timed(client, page, {}), timed(client, facets, HTMX)  # warm the caches
        alone, together, facet_only = [], [], []
        for _ in range(options.runs):
            alone.append(timed(client, page, {}))
            list_ms = timed(client, page, {})
            facets_ms = timed(client, facets, HTMX)
            together.append(list_ms + facets_ms)
            facet_only.append(facets_ms)
        a, t, f = (statistics.median(x) for x in (alone, together, facet_only))
        print(f"{label:<16} {a:8.1f} {t:15.1f} {f:10.1f} {t / a:6.2f}")
    print(f"load average after: {' '.join(os.getloadavg().__str__()[1:-1].split(', '))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
