"""Where a /v1 search of a LoCoMo question spends its time, phase by phase, on a store a run
of bench/recall/locomo.py built: each question asked once through /v1 (Django's test client
in this process, as ask_again.py asks), with a timeline of the request's statements (which
thread sent each, when it was sent and answered) and of its phases (the meaning's thread,
the encoder, the words' part, the meaning's neighbours, the fusion, the page), each with its
wall time and the CPU time of the thread that ran it (medians); the server backend's CPU per
request from /proc (a mean: it is counted in clock ticks).

    MEMADMIN_DATABASE_URL=... .venv/bin/python bench/results/2026-12-05-pglatency/phases.py \\
        --data-dir STORE [--mode hybrid] [--questions 300] [--out FILE.json]

Prints the medians (and means, for CPU counted in ticks) of each phase and statement kind,
and how much of the meaning's thread ran while the words' part did.
"""

import argparse
import functools
import json
import os
import statistics
import sys
import threading
import time
import warnings
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "recall"))

import ask_again  # noqa: E402
import generate  # noqa: E402
import locomo  # noqa: E402

events: list[dict] = []
backend: list[int | None] = [None]  # the server process of this thread's connection


def _event(kind: str, label: str, began: float, cpu: float, server: float = 0.0) -> None:
    events.append(
        {
            "kind": kind,
            "label": label,
            "thread": threading.current_thread().name,
            "began": began,
            "ended": time.perf_counter(),
            "cpu": time.thread_time() - cpu,
            "server_cpu": server,
        }
    )


def timed(module, name: str, label: str) -> None:
    """Record each call of module.name as a phase."""
    original = getattr(module, name)

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        began, cpu = time.perf_counter(), time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            _event("phase", label, began, cpu)

    setattr(module, name, wrapper)


def statement_kind(sql: str) -> str:
    text = " ".join(sql.split())
    for marker, kind in (
        ("SET LOCAL parallel_tuple_cost", "ranking statement"),
        ("pg_stats", "word statistics"),
        ("FROM memories_memoryvector ORDER BY id DESC", "vectors' state"),
        ("pg_current_snapshot", "change counter"),
        ("memories_reference", "references"),
        ("api_apitoken", "token"),
    ):
        if marker in text:
            return kind
    return text[:70]


def logged(execute, sql, params, many, context):
    server = ask_again.cpu_of(backend[0])
    began, cpu = time.perf_counter(), time.thread_time()
    try:
        return execute(sql, params, many, context)
    finally:
        _event("statement", statement_kind(sql), began, cpu, ask_again.cpu_of(backend[0]) - server)


def overlap(a: tuple[float, float], b: tuple[float, float]) -> float:
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared/data/locomo-dev")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--mode", choices=locomo.MODES, default="hybrid")
    parser.add_argument("--questions", type=int, default=300)
    parser.add_argument("--out", type=Path)
    options = parser.parse_args()
    warnings.filterwarnings("ignore", message="No directory at")
    generate.setup_django(options.data_dir.resolve(), os.environ.get("MEMADMIN_DATABASE_URL", ""))
    from django.db import connection

    from memories import embedding
    from memories.reads import meaning, rows, search

    timed(meaning, "_ranked_for_search", "meaning thread")
    timed(meaning, "held_count", "vectors brought up to date")
    timed(embedding, "embed", "encoder")
    timed(meaning, "_within", "neighbours within the filters")
    timed(search, "_by_words", "words")
    timed(search, "_run", "ranking statement run")
    timed(search, "_statement", "ranking statement written")
    timed(search, "_cited_only", "references")
    timed(search, "_by_meaning", "by meaning")
    timed(search, "_incidental", "incidental")
    timed(search, "_fused", "fused")
    timed(rows, "by_id", "page loaded")
    if hasattr(rows, "in_order"):  # a checkout before the neighbours' plain statement
        timed(rows, "in_order", "neighbours' rows read")
    timed(search, "search", "search")

    conversations = locomo.load(options.data.resolve(), locomo.Quirks())
    api = locomo.Api(locomo.new_token())
    warm_up = {"q": "warm up", "project": conversations[0].project, "mode": options.mode}
    api.get("/v1/memories", warm_up)
    asked = [(c.project, q.text) for c in conversations for q in c.questions]
    step = max(1, len(asked) // options.questions)
    asked = asked[::step][: options.questions]
    requests = []
    loads = [os.getloadavg()[0]]
    with connection.execute_wrapper(logged):
        for project, text in asked:
            meaning.forget_questions()
            pid = backend[0] = ask_again._backend(connection)
            events.clear()
            server, own = ask_again.cpu_of(pid), time.process_time()
            began = time.perf_counter()
            response = api.get(
                "/v1/memories", {"q": text, "project": project, "mode": options.mode, "limit": 10}
            )
            wall = time.perf_counter() - began
            assert response.status_code == 200, response.content
            requests.append(
                {
                    "wall": wall,
                    "process_cpu": time.process_time() - own,
                    "server_cpu": ask_again.cpu_of(pid) - server,
                    "began": began,
                    "events": list(events),
                }
            )
    loads.append(os.getloadavg()[0])
    report = summarise(requests, loads)
    print(json.dumps(report, indent=1))
    if options.out:
        options.out.write_text(json.dumps(report, indent=1) + "\n")


def _key(event: dict) -> str:
    thread = "main" if event["thread"] == "MainThread" else "other"
    return f"{event['kind']}: {event['label']} [{thread}]"


def _line(event: dict, start: float) -> str:
    """One event of a request's timeline: its start and end (ms from the request's start),
    the CPU of its thread, the thread, what it is."""
    began, ended = (event["began"] - start) * 1000, (event["ended"] - start) * 1000
    return (
        f"{began:7.2f} {ended:7.2f} cpu {event['cpu'] * 1000:5.2f} {event['thread'][:10]:10}"
        f" {event['kind']}: {event['label'][:60]}"
    )


def _is_statement(key: str) -> bool:
    return key.startswith("statement")


def summarise(requests: list[dict], loads: list[float]) -> dict:
    def ms(values):
        return round(statistics.median(values) * 1000, 2) if values else None

    def mean_ms(values):
        return round(statistics.fmean(values) * 1000, 2) if values else None

    walls, cpus, servers, counts = (defaultdict(list) for _ in range(4))
    shared, after_words, thread_first = [], [], []
    for request in requests:
        wall, cpu, server, seen = (defaultdict(float) for _ in range(4))
        for e in request["events"]:
            key = _key(e)
            wall[key] += e["ended"] - e["began"]
            cpu[key] += e["cpu"]
            server[key] += e["server_cpu"]
            seen[key] += 1
        for key in wall:
            walls[key].append(wall[key])
            cpus[key].append(cpu[key])
            servers[key].append(server[key])
            counts[key].append(seen[key])
        thread = [e for e in request["events"] if e["label"] == "meaning thread"]
        words = [e for e in request["events"] if e["label"] == "words"]
        if thread and words:
            t, w = thread[0], words[0]
            shared.append(overlap((t["began"], t["ended"]), (w["began"], w["ended"])))
            after_words.append(max(0.0, t["ended"] - w["ended"]))
            thread_first.append(w["began"] - t["began"])
    middle = requests[len(requests) // 2]
    return {
        "requests": len(requests),
        "a request's timeline (ms from its start)": [
            _line(e, middle["began"]) for e in sorted(middle["events"], key=lambda e: e["began"])
        ],
        "load": loads,
        "wall_median_ms": ms([r["wall"] for r in requests]),
        "process_cpu_median_ms": ms([r["process_cpu"] for r in requests]),
        "server_cpu_mean_ms": mean_ms([r["server_cpu"] for r in requests]),
        "words begun after the meaning thread (median ms; below 0: before)": ms(thread_first),
        "meaning thread while the words ran (median ms)": ms(shared),
        "meaning thread after the words ended (median ms)": ms(after_words),
        "phases": {
            key: {
                "requests": len(counts[key]),
                "calls": round(statistics.fmean(counts[key]), 2),
                "wall_median_ms": ms(walls[key]),
                "thread_cpu_median_ms": ms(cpus[key]),
                "server_cpu_mean_ms": mean_ms(servers[key])
                if key.startswith("statement")
                else None,
            }
            for key in sorted(walls, key=lambda k: -statistics.median(walls[k]))
        },
    }


if __name__ == "__main__":
    main()
