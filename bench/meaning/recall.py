"""Recall@5 of search by words, by meaning and hybrid, on the paraphrase set over the demo store.

    python bench/meaning/recall.py            # the demo store under var/bench/demo (made once)
    python bench/meaning/recall.py --misses   # and the queries whose target missed the top 5

Every query of `paraphrases.PARAPHRASES` means one memory of the demo store and shares no word
with it (checked first: the run stops on any that does). For each mode the search runs as the
API runs it (`memories.reads.search.search`, no filters, first page of 5), and a query counts
as recalled when its target (by name and tier) is among the five. Target: hybrid >= 0.8.
"""

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
from paraphrases import PARAPHRASES, shared_words  # noqa: E402

MODES = ("words", "hybrid", "meaning")
TOP = 5


def demo_store(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    generate.setup_django(data_dir)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("seed_demo", "--if-empty", verbosity=0)
    call_command("memory", "embed", verbosity=0)


def check_labels() -> list[str]:
    from memories.models import Memory

    problems = []
    for name, project, query in PARAPHRASES:
        target = Memory.objects.filter(name=name, project__name=project).first()
        if target is None:
            problems.append(f"{name} ({project}): no such memory in the demo store")
            continue
        shared = shared_words(query, target.name, target.description, target.body)
        if shared:
            problems.append(f"{query!r} shares {sorted(shared)} with {name}")
    return problems


def recall(mode: str, misses: bool) -> float:
    from memories.reads.filters import MemoryFilters
    from memories.reads.search import search

    found = 0
    for name, project, query in PARAPHRASES:
        hits = search([query], MemoryFilters(), limit=TOP, mode=mode).hits
        top = [(hit.memory.name, hit.memory.project_name) for hit in hits]
        if (name, project) in top:
            found += 1
        elif misses:
            print(f"  {mode} missed {name}: {query!r} -> {[n for n, _ in top]}")
    return found / len(PARAPHRASES)


def warm_up() -> None:
    """One search in each mode before any is timed: the encoder and the vectors load once."""
    from memories.reads.filters import MemoryFilters
    from memories.reads.search import search

    for mode in MODES:
        search([PARAPHRASES[0][2]], MemoryFilters(), limit=TOP, mode=mode)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=generate.ROOT / "var" / "bench" / "demo")
    parser.add_argument("--misses", action="store_true")
    options = parser.parse_args()
    demo_store(options.data_dir.resolve())
    problems = check_labels()
    if problems:
        raise SystemExit("The labelled set is not sound:\n" + "\n".join(problems))
    print(f"{len(PARAPHRASES)} paraphrase queries, none sharing a word with its target")
    warm_up()
    for mode in MODES:
        started = time.perf_counter()
        value = recall(mode, options.misses)
        took = (time.perf_counter() - started) / len(PARAPHRASES) * 1000
        print(f"recall@{TOP} {mode:8} {value:.3f}   ({took:.2f} ms a query)")


if __name__ == "__main__":
    main()
