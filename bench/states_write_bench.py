"""What keeping the states of the memories (memories.writes.states) adds to a write.

    .venv/bin/python bench/states_write_bench.py --data-dir COPY_OF_A_STORE --out r.json

The write door updates --writes memories of the global tier (a description changed), one
after another, in rounds that alternate with states.record live and replaced by a no-op, so a
busy machine slows both alike: the median CPU time of a write of each, and what the states
add. It writes to the store: give it a copy (the as-of store: 100,000 memories, 1,000,000
revisions and their states).
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--out", type=Path)
    options = parser.parse_args()
    generate.ensure_store(options.memories, options.data_dir, options.seed, options.database_url)
    from django.db import connection

    from memories.models import Memory, MemoryState
    from memories.writes import doors, history, states

    names = list(
        Memory.objects.filter(tier=0)
        .order_by("id")
        .values_list("name", flat=True)[: options.writes]
    )

    def one_round(number: int) -> float:
        spent = []
        for index, name in enumerate(names):
            started = time.process_time()
            with history.acting(door=history.API):
                doors.write(name, description=f"states bench, round {number}, write {index}")
            spent.append((time.process_time() - started) * 1000)
        return statistics.median(spent)

    kept, skipped = [], []
    load_before = os.getloadavg()
    for number in range(options.rounds):
        order = (True, False) if number % 2 == 0 else (False, True)
        for live in order:
            if live:
                kept.append(one_round(number))
            else:
                with mock.patch.object(states, "record", lambda cursor, changes: None):
                    skipped.append(one_round(number))
    results = {
        "engine": connection.vendor,
        "memories": Memory.objects.count(),
        "states": MemoryState.objects.count(),
        "writes_a_round": len(names),
        "rounds": options.rounds,
        "cpu_ms_a_write_with_states": statistics.median(kept),
        "cpu_ms_a_write_without": statistics.median(skipped),
        "rounds_with": kept,
        "rounds_without": skipped,
        "load_before": load_before,
        "load_after": os.getloadavg(),
    }
    results["added_ms"] = results["cpu_ms_a_write_with_states"] - results["cpu_ms_a_write_without"]
    print(json.dumps(results, indent=2))
    if options.out:
        options.out.parent.mkdir(parents=True, exist_ok=True)
        options.out.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
