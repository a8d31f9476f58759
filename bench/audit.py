"""Time the audit selectors (graph, hygiene, drift, budget) on a filled store.

    .venv/bin/python bench/audit_fill.py --memories 100000 --data-dir bench/out/stores/100k
    .venv/bin/python bench/audit.py --data-dir bench/out/stores/100k

Each figure is the median of --runs runs after one warm-up, in milliseconds.
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
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        result = action()
        times.append((time.perf_counter() - started) * 1000)
    note = f"  {result}" if isinstance(result, str) else ""
    print(f"{label:<58} {statistics.median(times):9.1f} ms{note}")


def cases():
    """(label, callable) pairs; callables return a short note or None."""
    import json

    from memories import budget_audit, drift, graph, hygiene
    from memories.filters import MemoryFilters
    from memories.models import Memory, Reference
    from projects.models import Project

    project = Project.objects.order_by("name").first()
    hub_name = Reference.objects.values_list("target", flat=True).order_by("target").first()
    hub = Memory.objects.filter(name=hub_name).first() or Memory.objects.first()

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
    yield (
        "hygiene: report (every section, first 50)",
        lambda: str(
            {k: getattr(hygiene.report(), k).count for k in ("dangling", "orphans", "shadows")}
        ),
    )
    yield "hygiene: dangling", lambda: f"{hygiene.dangling().count} targets"
    yield "hygiene: orphans", lambda: f"{hygiene.orphans().count} memories"
    yield "hygiene: verification queue 90d", lambda: f"{hygiene.verification_queue().count}"
    yield "hygiene: near-duplicate groups", lambda: f"{hygiene.duplicate_groups().count} groups"
    yield "hygiene: shadows", lambda: f"{hygiene.shadows().count} shadows"
    yield "drift: priority histograms", lambda: f"{len(drift.priority_histograms())} tiers"
    yield "drift: important but never read", lambda: f"{drift.important_unread().count}"
    yield "drift: unimportant but read often", lambda: f"{drift.unimportant_read_often().count}"
    yield "budget: band detail, global", lambda: budget_audit.band_detail(None).view.index.footer()
    yield (
        f"budget: band detail, {project.name}",
        lambda: budget_audit.band_detail(project).view.index.footer()[:60],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    _setup(args.data_dir.resolve())
    from memories.models import Memory

    print(f"{Memory.objects.count():,} memories in {args.data_dir}")
    for label, action in cases():
        measure(label, action, args.runs)


if __name__ == "__main__":
    main()
