"""Fill a store shaped for the insight pages: N memories through the real schema.

bench/generate.py fills the store every benchmark shares; this one adds what the insight
views are about and that store lacks: a few hub memories cited by thousands, references to
names never written, near-copies of descriptions.

    .venv/bin/python bench/insights_fill.py --memories 100000 --data-dir bench/out/stores/100k

Projects are added through the project door; memories are inserted in bulk with plain
INSERTs into memories_memory, so the migrations' triggers build the FTS index and the
reference and tag tables exactly as they do for a write through the doors (the doors' own
checks, one transaction each, would take minutes for 100,000 rows and are not what is
measured here). The store is shaped like a long-lived one: priorities drifted low, a few hub
memories cited by many, references to paths, URLs, ids and names never written, some
near-copies of descriptions, expired and search-only memories, read counts that follow a
power law.
"""

import argparse
import datetime as dt
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_VOCABULARY = """
deploy host backup restore cache queue worker schedule invoice billing customer tenant
region replica shard index search token secret vault rotate certificate renewal alert
page oncall rota review release branch merge freeze hotfix rollback canary metric
dashboard latency budget quota limit retry timeout webhook upload export import report
mobile desktop browser login session cookie password policy audit legal contract vendor
meeting standup retro planning roadmap milestone deadline owner team person timezone
prefers terse detailed diagram bullet summary language english german japanese spanish
python rust typescript postgres sqlite redis kafka nginx docker kubernetes terraform
ansible grafana sentry pager slack email calendar wiki runbook checklist ticket
incident
"""
WORDS = _VOCABULARY.split()
TAGS = [f"tag{n:02d}" for n in range(40)] + ["infra", "people", "decisions", "process"]
URLS = [f"https://wiki.example.com/page/{n}" for n in range(300)]
PATHS = [f"src/module{n}/settings.py" for n in range(200)]
IDS = [f"OPS-{n}" for n in range(1000, 1400)]


def _setup(data_dir: Path) -> None:
    os.environ["MEMADMIN_DATA_DIR"] = str(data_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def fill(count: int, projects: int, seed: int) -> None:
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.utils import timezone

    from memories.models import Memory
    from projects import writes as project_doors
    from projects.models import Project

    call_command("migrate", verbosity=0)
    if Memory.objects.exists():
        raise SystemExit("The store is not empty; give an empty --data-dir.")
    rng = random.Random(seed)
    for number in range(projects):
        project_doors.add(f"project-{number:02d}")
    project_ids = list(Project.objects.order_by("id").values_list("id", flat=True))
    now = timezone.now()
    names: list[str] = []
    descriptions: list[str] = []
    rows = []
    for number in range(count):
        name = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{number}"
        project_id = None if rng.random() < 0.4 else rng.choice(project_ids)
        if descriptions and rng.random() < 0.02:
            # A near-copy: an earlier description with one word changed.
            words = rng.choice(descriptions).split()
            words[rng.randrange(len(words))] = rng.choice(WORDS)
            description = " ".join(words)
        else:
            description = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 12)))
            description = description.capitalize() + f" ({number})"
        refs = []
        if names and rng.random() < 0.45:
            for _ in range(rng.randint(1, 3)):
                pick = rng.random()
                if pick < 0.65:
                    # Power-law choice of an earlier memory: a few hubs, a long tail.
                    refs.append(names[min(int(rng.paretovariate(0.7)) - 1, len(names) - 1)])
                elif pick < 0.75:
                    refs.append(rng.choice(names))
                elif pick < 0.85:
                    refs.append(rng.choice(URLS + PATHS + IDS))
                else:
                    refs.append(f"note-to-write-{rng.randrange(5000)}")
        refs = list(dict.fromkeys(refs))
        load = rng.choices(["index", "search", "inline"], weights=[80, 19.7, 0.3])[0]
        body_words = rng.randint(10, 60) if load != "inline" else rng.randint(5, 25)
        body = " ".join(rng.choice(WORDS) for _ in range(body_words))
        created = now - dt.timedelta(days=rng.uniform(0, 730))
        verified = created + (now - created) * rng.random() if rng.random() < 0.3 else created
        expires = None
        if rng.random() < 0.05:
            expires = now + dt.timedelta(days=rng.uniform(-200, 200))
        # Priorities drifted low: most memories written as important.
        priority = min(int(rng.expovariate(0.25)), 100)
        read_count = int(rng.paretovariate(1.1)) - 1 if rng.random() < 0.6 else 0
        stamp = connection.ops.adapt_datetimefield_value
        rows.append(
            (
                name,
                project_id,
                description,
                body,
                json.dumps(rng.sample(TAGS, rng.randint(0, 3))),
                json.dumps(refs),
                priority,
                load,
                "",
                stamp(created),
                stamp(max(created, verified)),
                stamp(verified),
                stamp(expires) if expires else None,
                read_count,
            )
        )
        names.append(name)
        descriptions.append(description)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO memories_memory (name, project_id, description, body, tags, refs, "
            "priority, load, source, created_at, updated_at, verified_at, expires_at, "
            "read_count) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            rows,
        )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--projects", type=int, default=12)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--data-dir", type=Path, required=True)
    args = parser.parse_args()
    args.data_dir.mkdir(parents=True, exist_ok=True)
    _setup(args.data_dir.resolve())
    started = time.perf_counter()
    fill(args.memories, args.projects, args.seed)
    print(
        f"Filled {args.data_dir} with {args.memories:,} memories in {args.projects} projects "
        f"in {time.perf_counter() - started:.1f} s."
    )


if __name__ == "__main__":
    main()
