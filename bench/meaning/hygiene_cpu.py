"""The hygiene page and the consolidation review at scale, in CPU time, in process.

    python bench/meaning/hygiene_cpu.py --data-dir /tmp/store-100k

On a store with vectors (`manage.py memory embed`), signed in as bench/run.py signs in: the
hygiene page (/hygiene/, every section, the near-copies by meaning among them) viewed first
(the process holds no vector yet: it reads them, then draws every pair), a second time (the
store unchanged), after a write of a near-copy through the write door (the write's CPU time
too, its near-duplicate note included), and after an edit of that write; then the
consolidation review (/hygiene/consolidation/) twice. CPU time of the whole process (every
thread), wall time beside it; the machine is shared, so the load average is printed.
The write is deleted again at the end (it stays in the trash).
"""

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import generate  # noqa: E402
import run  # noqa: E402

COPY = "bench-near-copy"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--label", default="")
    options = parser.parse_args()
    generate.setup_django(options.data_dir)
    from django.test import Client

    from memories.models import GLOBAL_TIER, Memory
    from memories.writes import doors

    facts = run.prepare_store()
    client = Client(HTTP_HOST="127.0.0.1")
    client.cookies["sessionid"] = facts["session"]
    print(f"{options.label} load average before: {os.getloadavg()}")

    def timed(label, action):
        cpu, wall = time.process_time(), time.perf_counter()
        result = action()
        cpu, wall = (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000
        print(f"{options.label} {label:<44} {cpu:8.0f} ms CPU {wall:8.0f} ms wall", flush=True)
        return result

    def get(path):
        response = client.get(path)
        if response.status_code != 200:
            raise SystemExit(f"{path}: {response.status_code}")

    original = Memory.objects.filter(tier=GLOBAL_TIER).order_by("id")[5]
    timed("hygiene page, first view", lambda: get("/hygiene/"))
    timed("hygiene page, second view", lambda: get("/hygiene/"))
    timed(
        "write a near-copy (the door, its note)",
        lambda: doors.write(COPY, description=original.description, body="again"),
    )
    timed("hygiene page after the write", lambda: get("/hygiene/"))
    timed("edit that write", lambda: doors.write(COPY, description="Subtitles are SRT files"))
    timed("hygiene page after the edit", lambda: get("/hygiene/"))
    timed("consolidation review, first view", lambda: get("/hygiene/consolidation/"))
    timed("consolidation review, second view", lambda: get("/hygiene/consolidation/"))
    doors.delete(COPY)
    print(f"{options.label} load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
