"""The agent view as of a moment, and the diff of two moments, on a store with a long history.

    .venv/bin/python bench/asof_bench.py --memories 100000 --revisions 1000000 --out r.json
    .venv/bin/python bench/asof_bench.py --memories 10000 --revisions 100000 --database-url ...

The memories are bench/generate.py's; the history is then written as plain INSERTs in the
order of its moments: each memory's creation at its created_at and --revisions in all,
about as many updates a memory, spread over its life up to a minute ago (its priority and
description changing, its last update leaving the row as it stands). Then, for a session on
no project and on the busiest project, the rebuilt view a day, a week, a month and a year ago, the
diffs of a week ago with a day ago and with now, and /v1/agent-view for both: the median CPU
time and wall time of --repeats calls (after one warm-up), with the load average and how
many revisions each moment has after it. Targets: a tier 200 ms, a diff 300 ms.
"""

import argparse
import datetime as dt
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402

TARGETS = {"view": 200.0, "diff": 300.0}
MARKER = "revisions.json"


def build_history(revisions: int, seed: int) -> None:
    """Write `revisions` revisions over the store's memories, in the order of their moments."""
    from django.db import connection, transaction
    from django.utils import timezone

    from memories.models import Memory, ProjectRevision
    from memories.writes import history, states
    from projects.models import Project

    rng = random.Random(seed)
    now = timezone.now() - dt.timedelta(minutes=1)
    memories = list(Memory.objects.select_related("project").order_by("id"))
    snapshots = [history.snapshot(memory) for memory in memories]
    per_memory = max(1, revisions // len(memories))
    steps: list[tuple[float, int, int]] = []  # (moment, memory index, step)
    counts = []
    for index, memory in enumerate(memories):
        count = per_memory + (1 if index < revisions - per_memory * len(memories) else 0)
        counts.append(count)
        start = memory.created_at.timestamp()
        moments = sorted(rng.uniform(start, now.timestamp()) for _ in range(count - 1))
        steps.append((start, index, 0))
        steps.extend((moment, index, step + 1) for step, moment in enumerate(moments))
    steps.sort()
    # The projects were there before their memories: added before the first of them.
    first = dt.datetime.fromtimestamp(steps[0][0], dt.UTC) - dt.timedelta(days=1)
    ProjectRevision.objects.update(at=first)
    Project.objects.update(created_at=first)

    def state(index: int, step: int) -> dict:
        """The memory after its `step`th revision: the row as it stands after its last."""
        if step == counts[index] - 1:
            return snapshots[index]
        varied = random.Random(index * 1000 + step)
        return {
            **snapshots[index],
            "priority": varied.randint(0, 9),
            "description": f"{snapshots[index]['description']} (draft {step})",
        }

    def row(moment: float, index: int, step: int) -> list:
        after = state(index, step)
        before = None if step == 0 else state(index, step - 1)
        tier = after["project_id"] or 0
        return [
            connection.ops.adapt_datetimefield_value(dt.datetime.fromtimestamp(moment, dt.UTC)),
            after["id"],
            after["name"],
            tier,
            None,
            after["project"],
            "create" if step == 0 else "update",
            "api",
            "bench",
            "bench",
            None,
            None,
            "",
            None,
            None if before is None else json.dumps(before, ensure_ascii=False),
            json.dumps(after, ensure_ascii=False),
        ]

    started = time.perf_counter()
    chunk = 10_000
    with connection.cursor() as cursor:
        for first in range(0, len(steps), chunk):
            with transaction.atomic():
                cursor.executemany(
                    history.INSERT_REVISION, [row(*step) for step in steps[first : first + chunk]]
                )
            if first % 100_000 == 0:
                print(f"  {first:,} revisions, {time.perf_counter() - started:.0f} s", flush=True)
    print(f"Wrote {len(steps):,} revisions in {time.perf_counter() - started:.0f} s", flush=True)
    # Written past the doors, so their states are built as a migration builds them.
    started = time.perf_counter()
    print(f"Built {states.rebuild():,} states in {time.perf_counter() - started:.0f} s")
    with connection.cursor() as cursor:
        cursor.execute(generate._STATISTICS[connection.vendor])


def measure(call, repeats: int) -> dict:
    call()
    cpu, wall = [], []
    for _ in range(repeats):
        started_cpu, started = time.process_time(), time.perf_counter()
        call()
        cpu.append((time.process_time() - started_cpu) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
    return {"cpu_ms": statistics.median(cpu), "wall_ms": statistics.median(wall), "n": repeats}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--revisions", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--out", type=Path)
    options = parser.parse_args()
    data_dir = options.data_dir or (
        generate.ROOT / "var" / "bench" / f"asof-{options.memories}-{options.revisions}"
    )
    generate.ensure_store(options.memories, data_dir, options.seed, options.database_url)
    marker = data_dir / MARKER
    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    from memadmin.accounts import tokens
    from memories.models import Revision
    from memories.reads.agent_view import agent_view
    from memories.reads.agent_view_query import AgentViewForm, answer
    from projects.models import Project

    if not marker.exists():
        if Revision.objects.exists():
            raise SystemExit(f"{data_dir} holds revisions already; pick another --data-dir.")
        build_history(options.revisions, options.seed)
        marker.write_text(json.dumps({"revisions": options.revisions}))
    from django.contrib.auth.models import Group, User

    from memadmin.accounts import roles

    user, _ = User.objects.get_or_create(username="asof-bench")
    user.groups.add(Group.objects.get(name=roles.AUDITOR))
    token = tokens.create_token(user, "read", "asof bench")[1]
    client = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {token}")
    project = Project.objects.get(name=generate.PROJECTS[0])
    now = timezone.now()
    moments = {
        "a day ago": now - dt.timedelta(days=1),
        "a week ago": now - dt.timedelta(days=7),
        "a month ago": now - dt.timedelta(days=30),
        "a year ago": now - dt.timedelta(days=365),
    }

    def asked(**query) -> dict:
        form = AgentViewForm(query)
        assert form.is_valid(), form.errors
        return form.cleaned_data

    def view(name, **query):
        cleaned = asked(**query)
        return lambda: answer(cleaned)

    def route(**query):
        def call():
            response = client.get("/v1/agent-view", query)
            assert response.status_code == 200, response.content[:300]

        return call

    week, day = moments["a week ago"].isoformat(), moments["a day ago"].isoformat()
    cases = [("view", "the live view, webdev (for reference)", lambda: agent_view(project))]
    for label, moment in moments.items():
        cases.append(
            (
                "view",
                f"rebuilt, webdev, {label}",
                view("webdev", project="webdev", at=moment.isoformat()),
            )
        )
    cases.append(("view", "rebuilt, no project, a week ago", view(None, at=week)))
    cases.append(
        (
            "diff",
            "diff, webdev, a week ago to a day ago",
            view("webdev", project="webdev", since=week, at=day),
        )
    )
    cases.append(
        ("diff", "diff, webdev, a week ago to now", view("webdev", project="webdev", since=week))
    )
    cases.append(
        (
            "diff",
            "diff, webdev, a year ago to a month ago",
            view(
                "webdev",
                project="webdev",
                since=moments["a year ago"].isoformat(),
                at=moments["a month ago"].isoformat(),
            ),
        )
    )
    cases.append(
        ("diff", "diff, no project, a week ago to a day ago", view(None, since=week, at=day))
    )
    cases.append(("view", "/v1/agent-view, webdev, a week ago", route(project="webdev", at=week)))
    cases.append(
        (
            "diff",
            "/v1/agent-view, webdev, since a week ago, at a day ago",
            route(project="webdev", since=week, at=day),
        )
    )

    results = {
        "engine": connection.vendor,
        "memories": options.memories,
        "revisions": Revision.objects.count(),
        "revisions_after": {
            label: Revision.objects.filter(at__gt=moment).count()
            for label, moment in moments.items()
        },
        "load_before": os.getloadavg(),
        "cases": {},
    }
    print(
        json.dumps({k: results[k] for k in ("engine", "memories", "revisions", "revisions_after")})
    )
    for kind, label, call in cases:
        found = measure(call, options.repeats)
        found["target_ms"] = TARGETS[kind] if not label.startswith("the live") else None
        results["cases"][label] = found
        print(f"{label:<58} cpu {found['cpu_ms']:8.1f}  wall {found['wall_ms']:8.1f}", flush=True)
    results["load_after"] = os.getloadavg()
    print(f"load average {results['load_before']} before, {results['load_after']} after")
    if options.out:
        options.out.parent.mkdir(parents=True, exist_ok=True)
        options.out.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
