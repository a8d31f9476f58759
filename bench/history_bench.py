"""What recording a revision adds to a write: each door with and without its revision.

    python bench/history_bench.py                      # 10,000 memories, 400 writes a door
    python bench/history_bench.py --memories 50000 --writes 1000

A fresh store in a temporary directory is migrated, filled with N memories (plain INSERTs
firing the FTS and reference triggers, bodies of 200 B to 8 KiB) and given one creation
revision each, so the history tables are the size a store of that age has. Then each door
(write creating, write updating, edit, move, delete) runs in alternating rounds with
history.record live and replaced by a no-op, so a busy machine slows both alike; the
median time per call of each is reported with their ratio. Target: every ratio at most 1.5.
"""

import argparse
import datetime as dt
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
TARGET_RATIO = 1.5
ROUNDS = 8
WORDS = [
    "deploy",
    "host",
    "cache",
    "queue",
    "backup",
    "restore",
    "schedule",
    "review",
    "release",
    "branch",
    "token",
    "user",
    "team",
    "latency",
    "replica",
    "schema",
    "index",
    "query",
    "budget",
    "invoice",
    "meeting",
    "timezone",
    "prefers",
    "terse",
    "rule",
]


def _setup(data_dir: str) -> None:
    os.environ["MEMADMIN_DATA_DIR"] = data_dir
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


SYLLABLES = ["ka", "lo", "mi", "ren", "sto", "ve", "dra", "pul", "zen", "tor", "qui", "bal"]


def _vocabulary(rng: random.Random, size: int = 4000) -> list[str]:
    """Made-up words after the common ones, drawn Zipf-like: few words common, most rare."""
    made = {"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(size)}
    return WORDS + sorted(made)


def _words(rng: random.Random, vocabulary: list[str], count: int) -> str:
    picks = [
        vocabulary[min(int(rng.paretovariate(0.9)) - 1, len(vocabulary) - 1)] for _ in range(count)
    ]
    return " ".join(picks)


def _text(rng: random.Random, vocabulary: list[str], size: int) -> str:
    lines = []
    length = 0
    while length < size:
        line = _words(rng, vocabulary, rng.randint(4, 14))
        lines.append(line)
        length += len(line) + 1
    return "\n".join(lines)[:size]


def _fill(count: int, rng: random.Random, vocabulary: list[str]) -> None:
    from django.db import connection, transaction

    from memories.models import Memory, Revision
    from memories.writes import history
    from projects import writes as project_doors

    projects = [project_doors.add(name) for name in ("webdev", "infra", "research")]
    now = dt.datetime.now(dt.UTC)
    rows = []
    for number in range(count):
        project = rng.choice([None, None, *projects])
        created = now - dt.timedelta(days=rng.randint(0, 700))
        stamp = connection.ops.adapt_datetimefield_value(created)
        rows.append(
            [
                f"note-{number:06d}",
                project.id if project else None,
                _words(rng, vocabulary, rng.randint(5, 12)).capitalize(),
                f"marker-{number:06d} "
                + _text(rng, vocabulary, int(rng.triangular(200, 8192, 600))),
                json.dumps(rng.sample(WORDS, rng.randint(0, 3))),
                json.dumps([f"note-{rng.randrange(count):06d}"] if rng.random() < 0.3 else []),
                rng.randint(0, 20),
                rng.choice(["index"] * 8 + ["search"] * 2),
                stamp,
                stamp,
                stamp,
            ]
        )
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO memories_memory (name, project_id, description, body, tags, refs, "
            "priority, load, source, created_at, updated_at, verified_at, read_count) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, '', %s, %s, %s, 0)",
            rows,
        )
        revisions = [
            Revision(
                at=memory.created_at,
                memory_id=memory.id,
                name=memory.name,
                tier=memory.tier,
                project_name=memory.project_name,
                action=history.CREATE,
                door=history.DIRECT,
                actor="direct",
                after=history.snapshot(memory),
            )
            for memory in Memory.objects.select_related("project").iterator(chunk_size=2000)
        ]
        Revision.objects.bulk_create(revisions, batch_size=2000)


def _doors(rng: random.Random, vocabulary: list[str]) -> dict:
    """Each door as a function of a memory number it has to itself, doing one call."""
    from memories.models import Memory
    from memories.writes import doors

    def create(number):
        doors.write(
            f"new-{number:06d}",
            description=_words(rng, vocabulary, rng.randint(5, 12)),
            body=_text(rng, vocabulary, 600),
        )

    def update(number):
        doors.write(f"note-{number:06d}", priority=rng.randint(0, 20), verified=True)

    def edit(number):
        doors.edit(f"note-{number:06d}", old_string=f"marker-{number:06d}", new_string="edited")

    def move(number):
        name = f"note-{number:06d}"
        project = Memory.objects.filter(name=name).values_list("project_id", flat=True)[0]
        doors.move(name, to="infra" if project is None else None)

    def delete(number):
        doors.delete(f"note-{number:06d}")

    return {
        "write (create)": create,
        "write (update)": update,
        "edit": edit,
        "move": move,
        "delete": delete,
    }


def _time(call, numbers) -> list[float]:
    timings = []
    for number in numbers:
        start = time.perf_counter()
        call(number)
        timings.append(time.perf_counter() - start)
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--writes", type=int, default=400, help="calls of each door, each way")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="history-bench-") as data_dir:
        _setup(data_dir)
        started = time.perf_counter()
        vocabulary = _vocabulary(rng)
        _fill(args.memories, rng, vocabulary)
        print(
            f"{args.memories:,} memories and their creation revisions in "
            f"{time.perf_counter() - started:.1f} s; {args.writes} calls of each door each way, "
            f"in {ROUNDS} alternating rounds\n"
        )
        calls = _doors(rng, vocabulary)
        numbers = rng.sample(range(args.memories), args.memories)
        # Each door gets its own memories, so a delete never meets a name it deleted before.
        per_door = args.writes * 2
        if per_door * len(calls) > args.memories:
            parser.error("--writes is too many for --memories: each door needs its own")
        pools = {name: numbers[i * per_door : (i + 1) * per_door] for i, name in enumerate(calls)}
        print(f"{'door':32} {'with (ms)':>10} {'without (ms)':>13} {'ratio':>7}")
        worst = 0.0
        for name, call in calls.items():
            pool = pools[name]
            chunk = len(pool) // (ROUNDS * 2)
            live, bare = [], []
            for round_number in range(ROUNDS):
                first = pool[round_number * 2 * chunk : (round_number * 2 + 1) * chunk]
                second = pool[(round_number * 2 + 1) * chunk : (round_number * 2 + 2) * chunk]
                live += _time(call, first)
                with mock.patch("memories.writes.history.record"):
                    bare += _time(call, second)
            with_ms = statistics.median(live) * 1000
            without_ms = statistics.median(bare) * 1000
            ratio = with_ms / without_ms
            worst = max(worst, ratio)
            print(f"{name:32} {with_ms:10.3f} {without_ms:13.3f} {ratio:7.2f}")
        from memories.models import Revision

        print(
            f"\n{Revision.objects.count():,} revisions in the store at the end. "
            f"Worst ratio {worst:.2f} against the target of {TARGET_RATIO}."
        )
        return 0 if worst <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
