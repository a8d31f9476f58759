"""Search by meaning at scale: embedding, backfill, the vectors' memory, hybrid against words.

    python bench/meaning/scale.py                    # 100,000 memories (generated on first run)
    python bench/meaning/scale.py --memories 10000 --runs 21

On a store from bench/generate.py (written with plain INSERTs, so without vectors):

* embed: the model's time per memory (name, description and body) over a sample of 2,000;
* backfill: `manage.py memory embed` on the whole store (embedding and writing every vector);
* memory: the resident set of this process before and after the vectors are first read,
  which is what each worker adds (and the time that first read takes);
* search: `search(["service"])` (COMMON_WORD, in about half of the memories), first page of
  50, by words and hybrid, alternating run by run so a busy machine slows both alike; the
  median of each and their ratio (target: hybrid within 1.5x of words), then the same for a
  paraphrase (by meaning alone the words find nothing).

The load average is printed before and after: the machine is shared.
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import generate  # noqa: E402


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--data-dir", type=Path)
    options = parser.parse_args()
    print(f"load average before: {Path('/proc/loadavg').read_text().strip()}")
    generate.ensure_store(options.memories, options.data_dir)

    from memories import embedding
    from memories.models import Memory, MemoryVector
    from memories.reads import meaning
    from memories.reads.filters import MemoryFilters
    from memories.reads.search import search
    from memories.writes import vectors

    sample = list(Memory.objects.order_by("?").values_list("name", "description", "body")[:2000])
    embedding.model()
    started = time.perf_counter()
    embedding.embed_memories(sample)
    per_memory = (time.perf_counter() - started) / len(sample) * 1000
    print(f"embed: {per_memory:.3f} ms a memory (mean over {len(sample)}, one process)")

    wanted = vectors.to_embed()
    if wanted:
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, str(generate.ROOT / "manage.py"), "memory", "embed"], check=True
        )
        took = time.perf_counter() - started
        print(f"backfill: {len(wanted)} memories in {took:.1f} s (manage.py memory embed)")
    print(f"vectors stored: {MemoryVector.objects.count()}")

    before = rss_mib()
    started = time.perf_counter()
    meaning.held_count()
    first_read = time.perf_counter() - started
    after = rss_mib()
    print(
        f"memory: {after - before:.1f} MiB added to the process by the vectors "
        f"({before:.0f} -> {after:.0f} MiB RSS); first read {first_read * 1000:.0f} ms"
    )

    for label, query in (
        ("common word", generate.COMMON_WORD),
        ("paraphrase", "which server receives prod releases"),
    ):
        times = {"words": [], "hybrid": []}
        for _ in range(options.runs):
            for mode in times:
                started = time.perf_counter()
                search([query], MemoryFilters(), limit=50, mode=mode)
                times[mode].append((time.perf_counter() - started) * 1000)
        words, hybrid = (statistics.median(times[m]) for m in ("words", "hybrid"))
        verdict = "meets" if hybrid <= 1.5 * words else "misses"
        print(
            f"search {label!r}: words {words:.1f} ms, hybrid {hybrid:.1f} ms median of "
            f"{options.runs}; ratio {hybrid / words:.2f} ({verdict} the 1.5x target)"
        )
    print(f"load average after: {Path('/proc/loadavg').read_text().strip()}")


if __name__ == "__main__":
    main()
