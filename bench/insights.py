"""Time the insight reads (graph, hygiene, drift, budget) and the insight pages and routes
on a filled store.

    .venv/bin/python bench/insights_fill.py --memories 100000 --data-dir bench/out/stores/100k
    .venv/bin/python bench/insights.py --data-dir bench/out/stores/100k

Each figure is the median of --runs runs after one warm-up, in milliseconds: wall time, and
the CPU time of this process (what a request costs the server, whatever else the machine is
doing). Pages are requested in process through Django's test client, signed in as an
auditor (made in the store on first run), the API with a read token.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _setup(data_dir: Path) -> None:
    os.environ["MEMADMIN_DATA_DIR"] = str(data_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def measure(label: str, action, runs: int) -> None:
    action()
    wall, cpu = [], []
    for _ in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        result = action()
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    note = f"  {result}" if isinstance(result, str) else ""
    print(
        f"{label:<52} {statistics.median(wall):8.1f} ms wall {statistics.median(cpu):8.1f} ms cpu"
        f"{note[:110]}"
    )


def most_cited():
    """The memory whose name the most references cite: the neighbourhood worth timing."""
    from django.db import connection

    from memories.models import Memory

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT m.id FROM memories_reference r JOIN memories_memory m ON m.name = r.target "
            "GROUP BY m.id ORDER BY COUNT(*) DESC LIMIT 1"
        )
        row = cursor.fetchone()
    return Memory.objects.select_related("project").get(id=row[0])


def cases():
    """(label, callable) pairs; callables return a short note or None."""
    import json

    from memories.reads import band_cut, drift, graph, hygiene
    from memories.reads.filters import MemoryFilters
    from projects.models import Project

    project = Project.objects.order_by("name").first()
    hub = most_cited()

    def store_json(**kwargs):
        g = graph.store_graph(**kwargs)
        json.dumps(g.to_dict())
        return g.summary()

    yield "graph: store-wide, default cap, as JSON", lambda: store_json()
    yield "graph: store-wide, cap 10,000, as JSON", lambda: store_json(cap=10_000)
    yield (
        f"graph: tier {project.name}, as JSON",
        lambda: store_json(filters=MemoryFilters(project=project.name)),
    )
    yield "graph: tag infra, as JSON", lambda: store_json(filters=MemoryFilters(tag="infra"))
    for depth in (1, 2, 3):
        yield (
            f"graph: neighbourhood of a hub, depth {depth}",
            lambda depth=depth: graph.neighbourhood(hub, depth).summary(),
        )

    def report():
        found = hygiene.report()
        return str({name: getattr(found, name).count for name in hygiene.SECTIONS})

    yield "hygiene: report (every section, first 50)", report
    yield "hygiene: dangling", lambda: f"{hygiene.dangling().count} targets"
    yield "hygiene: orphans", lambda: f"{hygiene.orphans().count} memories"
    yield "hygiene: verification queue 90d", lambda: f"{hygiene.verification_queue().count}"
    yield "hygiene: near-duplicate groups", lambda: f"{hygiene.duplicate_groups().count} groups"
    yield "hygiene: shadows", lambda: f"{hygiene.shadows().count} shadows"
    yield "drift: priority histograms", lambda: f"{len(drift.priority_histograms())} tiers"
    yield "drift: important but never read", lambda: f"{drift.important_unread().count}"
    yield "drift: unimportant but read often", lambda: f"{drift.unimportant_read_often().count}"
    yield "budget: band detail, global", lambda: band_cut.band_detail(None).view.index.footer()
    yield (
        f"budget: band detail, {project.name}",
        lambda: band_cut.band_detail(project).view.index.footer()[:60],
    )


def page_cases():
    """(label, callable) pairs requesting the pages and routes."""
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.test import Client

    from memadmin.accounts import roles, tokens
    from projects.models import Project

    call_command("migrate", verbosity=0)  # a store filled by an older checkout
    call_command("collectstatic", interactive=False, verbosity=0)  # pages name static files
    user, _ = User.objects.get_or_create(username="bench-auditor")
    user.groups.add(Group.objects.get(name=roles.AUDITOR))
    client = Client(SERVER_NAME="localhost")
    client.force_login(user)
    token = tokens.create_token(user, "read")[1]
    api = Client(SERVER_NAME="localhost", HTTP_AUTHORIZATION=f"Bearer {token}")
    project = Project.objects.order_by("name").first().name
    hub = most_cited()
    hub_tier = hub.project_name or ""

    def get(who, path: str):
        def request():
            response = who.get(path)
            assert response.status_code == 200, (path, response.status_code)
            return f"{len(response.content):,} bytes"

        return request

    yield "page: /graph/ (the page; its script fetches the data)", get(client, "/graph/")
    yield "page: /graph/data/ (the picture's JSON, 1,500 nodes)", get(client, "/graph/data/")
    yield "page: /graph/data/?limit=10000", get(client, "/graph/data/?limit=10000")
    yield f"page: /graph/data/?project={project}", get(client, f"/graph/data/?project={project}")
    yield "page: /graph/?view=table (1,500 rows)", get(client, "/graph/?view=table")
    yield (
        "page: a hub's neighbourhood JSON, depth 2",
        get(client, f"/graph/around/{hub.name}/data/?project={hub_tier}&depth=2"),
    )
    yield "page: /budget/", get(client, "/budget/")
    yield f"page: /budget/?project={project}", get(client, f"/budget/?project={project}")
    yield "page: /hygiene/ (every list's first five)", get(client, "/hygiene/")
    yield "page: /hygiene/unverified/", get(client, "/hygiene/unverified/")
    yield "page: /hygiene/dangling/", get(client, "/hygiene/dangling/")
    yield "page: /hygiene/duplicates/", get(client, "/hygiene/duplicates/")
    yield "api: /v1/graph", get(api, "/v1/graph")
    yield "api: /v1/budget", get(api, "/v1/budget")
    yield "api: /v1/hygiene", get(api, "/v1/hygiene")
    yield "api: /v1/hygiene?section=unverified", get(api, "/v1/hygiene?section=unverified")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", choices=["selectors", "pages"])
    args = parser.parse_args()
    _setup(args.data_dir.resolve())
    from memories.models import Memory

    print(f"{Memory.objects.count():,} memories in {args.data_dir}")
    groups = {"selectors": cases, "pages": page_cases}
    for name, group in groups.items():
        if args.only in (None, name):
            for label, action in group():
                measure(label, action, args.runs)


if __name__ == "__main__":
    main()
