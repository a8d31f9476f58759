"""The meaning side of a search at scale, in process: the vectors' memory and what ranking a
question costs, the encoder left out.

    python bench/meaning/first_pass.py --data-dir /work/stores/int8-100k --runs 21
    MEMADMIN_DATABASE_URL=postgresql://... python bench/meaning/first_pass.py --data-dir DIR

On a store with vectors (bench/generate.py, then `manage.py memory embed`; on PostgreSQL,
MEMADMIN_DATABASE_URL set, bench/copy_vectors.py from its SQLite twin):

* memory: the resident set of this process before and after the vectors are first read,
  then after the first search (which packs them where the checkout does), then once glibc's
  malloc_trim has handed back what reading them freed (what stays), and the bytes of the
  arrays held for them (`meaning._held`);
* product: the held float32 matrix times one question (numpy, one BLAS thread as the app
  sets), and, where this checkout has it, the first pass over the stored bytes
  (`quantized.products`, with its scaling to cosines);
* ranking: `meaning.ranking` of a question's vector (encoded once, before the timing) and
  `meaning.nearest` of its first 100 (FUSED_CANDIDATES, no filter), as the hybrid search
  asks them: the median CPU time and wall time of --runs, after two warm-up runs.

Runs in any checkout of the project (it reads only what both the float32 and the int8 code
have), so the two can be run in turns on the same store. The load average is printed before
and after: the machine is shared.
"""

import argparse
import ctypes
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import generate  # noqa: E402

QUESTIONS = (
    "service",
    "what did the team decide about the deploy of the new release",
    "When did Caroline go to the LGBTQ support group?",
    "What does the service owner think about the cache latency?",
    "how do we push a new version live",
)
WANT = 100


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def timed(run, runs: int) -> tuple[float, float]:
    """The median CPU and wall milliseconds of `runs` calls, after two."""
    for _ in range(2):
        run()
    cpu, wall = [], []
    for _ in range(runs):
        started, ticked = time.perf_counter(), time.process_time()
        run()
        cpu.append(time.process_time() - ticked)
        wall.append(time.perf_counter() - started)
    return statistics.median(cpu) * 1000, statistics.median(wall) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=21)
    options = parser.parse_args()
    print(f"load average before: {Path('/proc/loadavg').read_text().strip()}")
    database_url = os.environ.get("MEMADMIN_DATABASE_URL", "")
    generate.ensure_store(options.memories, options.data_dir, database_url=database_url)
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")
    from memories import embedding
    from memories.reads import meaning

    vectors = embedding.embed(list(QUESTIONS))
    before = rss_mib()
    started = time.perf_counter()
    held = meaning.held_count()
    took = time.perf_counter() - started
    after = rss_mib()
    arrays = {
        name: getattr(meaning._held, name).nbytes
        for name in ("matrix", "columns", "scale", "ids", "table_rows")
        if hasattr(meaning._held, name)
    }
    started = time.perf_counter()
    meaning.nearest(meaning.ranking(vectors[:1], floor=0.15), want=WANT)
    searched = time.perf_counter() - started
    first = rss_mib()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    trimmed = rss_mib()
    print(f"{held} vectors held; resident set (MiB) {before:.0f} before they are read,")
    print(f"  {after:.0f} after (+{after - before:.1f}, {took:.1f} s),")
    print(f"  {first:.0f} after the first search (+{first - before:.1f}, {searched:.2f} s),")
    print(f"  {trimmed:.0f} once malloc_trim hands back what was freed (+{trimmed - before:.1f})")
    print(f"arrays (MiB, capacity {len(meaning._held.ids)} rows): ")
    print("  " + ", ".join(f"{name} {size / 2**20:.1f}" for name, size in arrays.items()))

    matrix = meaning._held.matrix[: meaning._held.used]
    print(f"\nproduct with one question, median of {options.runs} (ms):    cpu    wall")
    cpu, wall = timed(lambda: matrix @ vectors[:1].T, options.runs)
    print(f"  float32 numpy                               {cpu:6.2f} {wall:7.2f}")
    try:
        from memories.reads import quantized
    except ImportError:
        quantized = None
    if quantized is not None:
        with meaning._held.lock:
            cpu, wall = timed(lambda: meaning._held.cosines(vectors[:1]), options.runs)
        print(f"  int8 first pass, cosines of every row       {cpu:6.2f} {wall:7.2f}")

    print(f"\nranking + nearest {WANT}, median of {options.runs} (ms):       cpu    wall  total")
    for text, vector in zip(QUESTIONS, vectors, strict=True):

        def rank(vector=vector):
            ranking = meaning.ranking(vector[None, :], floor=0.15)
            return meaning.nearest(ranking, want=WANT), ranking.result().total

        cpu, wall = timed(rank, options.runs)
        total = rank()[1]
        print(f"  {text[:40]:<40} {cpu:6.2f} {wall:7.2f} {total:6d}")
    print(f"\nload average after: {Path('/proc/loadavg').read_text().strip()}")


if __name__ == "__main__":
    main()
