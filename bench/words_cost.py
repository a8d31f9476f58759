"""The cost of a question of many words: search() in words and hybrid modes, in process.

    python bench/words_cost.py --memories 100000 --data-dir /work/stores/w100k
    MEMADMIN_DATABASE_URL=postgresql://... python bench/words_cost.py --memories 100000

On a store from bench/generate.py (with vectors from `manage.py memory embed` for hybrid:
without them hybrid is words plus an empty meaning), the median of `search()` returning
its first page of 50 for each question, words and hybrid alternating run by run so that a
busy machine slows both alike, the hits counted and the senses that answered. Questions:
ten common words, LoCoMo-style questions, and hostile ones (500 distinct terms, 10,000
characters, punctuation only, 20 synonyms of 32 common words each; in process, so past the
API's refusal of a query over 500 characters). The load average is printed before and after (the
machine is shared). With --cpu, beside each median time the median CPU time of the searching
thread (the words' statement, fusing and loading the page) and of the process's other threads
(the meaning's: encoding the question and ranking the vectors, on a thread of its own): on a
machine too busy for wall-clock figures, what a search would cost on two free cores.
"""

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402  (sets Django up on the generated store)

PAGE = 50


def questions() -> list[tuple[str, str | list[str]]]:
    rng = random.Random(5)
    vocabulary = generate.COMMON_ENGLISH + generate.DOMAIN
    many = " ".join(rng.sample(vocabulary, 120)) + " " + " ".join(f"w{i}x" for i in range(380))
    return [
        ("one common word", "service"),  # in 47,471 of 100,000 memories
        ("ten common words", "what did the team decide about the deploy of the new release"),
        ("ten store words", "the team should check the new release before the nightly backup"),
        ("locomo: when", "When did Caroline go to the LGBTQ support group?"),
        ("locomo: what", "What does the service owner think about the cache latency?"),
        ("500 terms", many),
        ("10,000 chars", ("the service " * 900)[:10_000]),
        ("punctuation", "?!.,;:-- ... !!!"),
        (
            "20 synonyms x 32",
            [" ".join(rng.sample(vocabulary, 32)) for _ in range(20)],
        ),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--modes", default="words,hybrid")
    parser.add_argument("--only", default="", help="labels to run, comma separated prefixes")
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="also the CPU time of the searching thread and of the others (the meaning's)",
    )
    options = parser.parse_args()
    print(f"load average before: {Path('/proc/loadavg').read_text().strip()}")
    database_url = __import__("os").environ.get("MEMADMIN_DATABASE_URL", "")
    generate.ensure_store(options.memories, options.data_dir, database_url=database_url)

    from django.db import connection

    from memories.models import MemoryVector
    from memories.reads import meaning, search
    from memories.reads.filters import MemoryFilters

    modes = options.modes.split(",")
    print(
        f"{connection.vendor}, {options.memories} memories, "
        f"{MemoryVector.objects.count()} vectors; median of {options.runs} runs, ms\n"
    )
    print(
        f"{'question':<18} "
        + " ".join(
            f"{m + ' ms':>10}"
            + (f" {'cpu':>6} {'other':>6}" if options.cpu else "")
            + f" {'hits':>7}"
            for m in modes
        )
    )
    filters = MemoryFilters()
    for label, asked in questions():
        queries = asked if isinstance(asked, list) else [asked]
        if options.only and not any(label.startswith(o) for o in options.only.split(",")):
            continue
        times = {mode: [] for mode in modes}
        cpu = {mode: [] for mode in modes}
        other = {mode: [] for mode in modes}
        counts = {}
        for mode in modes:  # warm
            search.search(queries, filters, limit=PAGE, mode=mode)
        for _ in range(options.runs):
            for mode in modes:
                meaning.forget_questions()
                started = time.perf_counter()
                thread, process = time.thread_time(), time.process_time()
                result = search.search(queries, filters, limit=PAGE, mode=mode)
                times[mode].append(time.perf_counter() - started)
                thread = time.thread_time() - thread
                cpu[mode].append(thread)
                other[mode].append(time.process_time() - process - thread)
                capped = "+" if result.capped else ""
                counts[mode] = f"{result.count}{capped}"
        cells = " ".join(
            f"{statistics.median(times[m]) * 1000:>10.1f}"
            + (
                f" {statistics.median(cpu[m]) * 1000:>6.1f}"
                f" {statistics.median(other[m]) * 1000:>6.1f}"
                if options.cpu
                else ""
            )
            + f" {counts[m]:>7}"
            for m in modes
        )
        print(f"{label:<18} {cells}")
    print(f"\nload average after: {Path('/proc/loadavg').read_text().strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
