"""LoCoMo's questions asked again through /v1 on a store a run of locomo.py built, with the
checkout's search (whatever commit built the store: its memories and vectors do not depend
on the ranking), with the CPU each request cost: this process's (every thread) and, on
PostgreSQL, the server backend's, which move much less with a shared machine's load than
the wall time.

    MEMADMIN_DATABASE_URL=... .venv/bin/python bench/recall/ask_again.py \\
        --data-dir STORE --modes hybrid [--cold] [--out FILE.json] [--ranked FILE.json]

Each mode is asked in a pass of its own (a words pass does not warm what a hybrid pass
reads); --cold forgets PostgreSQL's kept word statistics before each request, as if every
word were asked for the first time since the store last changed.
"""

import argparse
import json
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
import locomo  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int | None) -> float:
    """A process's CPU time in seconds (user and system), 0 when there is none to read."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=locomo.ROOT.parent / "shared/data/locomo-dev")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--modes", nargs="+", choices=locomo.MODES, default=["hybrid"])
    parser.add_argument("--cold", action="store_true")
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--ranked", type=Path, help="also write each question's first 10 turns there (JSON)"
    )
    options = parser.parse_args()
    warnings.filterwarnings("ignore", message="No directory at")
    database_url = os.environ.get("MEMADMIN_DATABASE_URL", "")
    generate.setup_django(options.data_dir.resolve(), database_url)
    from django.db import connection

    import memories
    from memories.reads import meaning

    conversations = locomo.load(options.data.resolve(), locomo.Quirks())
    questions = [q for c in conversations for q in c.questions]
    api = locomo.Api(locomo.new_token())
    by_name = {(c.project, t.name): t.dia_id for c in conversations for t in c.turns}
    results = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "checkout": locomo.checkout_state(None),
        "code": str(Path(memories.__file__).parent),
        "engine": connection.vendor,
        "cold": options.cold,
        "loadavg_before": os.getloadavg(),
        "modes": {},
    }
    ranked = {}
    for mode in options.modes:
        first = conversations[0].project
        api.get("/v1/memories", {"q": "warm up", "project": first, "mode": mode, "limit": 10})
        wall, own, server = [], [], []
        ranked[mode] = {}
        for conversation in conversations:
            for question in conversation.questions:
                params = {"q": question.text, "project": conversation.project, "mode": mode}
                meaning.forget_questions()  # as if asked for the first time
                if options.cold:
                    _forget_statistics()
                pid = _backend(connection)
                began_server, began_own = cpu_of(pid), time.process_time()
                began = time.perf_counter()
                response = api.get("/v1/memories", params | {"limit": locomo.LIMIT})
                wall.append(time.perf_counter() - began)
                own.append(time.process_time() - began_own)
                if pid is not None and pid == _backend(connection):
                    server.append(cpu_of(pid) - began_server)
                if response.status_code != 200:
                    raise SystemExit(f"{mode} {question.text!r}: {response.status_code}")
                ranked[mode][(question.conversation, question.index)] = [
                    by_name.get((hit.get("project"), hit["name"]), f"?{hit['name']}")
                    for hit in response.json()["memories"]
                ]
        results["modes"][mode] = {
            "requests": len(wall),
            "wall_median_ms": round(statistics.median(wall) * 1000, 2),
            "wall_p90_ms": round(locomo.percentile(wall, 0.9) * 1000, 2),
            # The sum over the requests divided by their number: a request's CPU time is
            # counted in clock ticks (10 ms), so only the mean is meaningful.
            "process_cpu_mean_ms": round(statistics.fmean(own) * 1000, 2),
            "server_cpu_mean_ms": round(statistics.fmean(server) * 1000, 2) if server else None,
        }
    results["metrics"] = {
        mode: found["all"] for mode, found in locomo.metrics(ranked, questions).items()
    }
    results["loadavg_after"] = os.getloadavg()
    if options.ranked:
        options.ranked.write_text(
            json.dumps(
                {
                    mode: {f"{c}#{i}": turns for (c, i), turns in found.items()}
                    for mode, found in ranked.items()
                },
                indent=0,
            )
            + "\n"
        )
    text = json.dumps(results, indent=1)
    print(text)
    if options.out:
        options.out.parent.mkdir(parents=True, exist_ok=True)
        options.out.write_text(text + "\n")


def _forget_statistics() -> None:
    """PostgreSQL's kept word statistics forgotten (a checkout before them keeps none)."""
    try:
        from memories.engine.postgresql import words
    except ImportError:
        return
    words._kept.raw = None


def _backend(connection) -> int | None:
    """The server process of Django's connection (None on SQLite)."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


if __name__ == "__main__":
    main()
