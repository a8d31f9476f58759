"""The sentence encoder's speed: start-up, one memory embedded as a write does, and a backfill.

    python bench/meaning/encoder_speed.py [--backfill 4000] [--threads 1 2]

Texts: the demo store's memories (`seed_demo`, 303 written notes) for the single writes, and
memories made by bench/generate.py's text maker (its Zipf vocabulary holds many made-up
words, so a text takes more word pieces than English: a pessimistic case) for the backfill.
Each memory is embedded as the store embeds it (memories.embedding.embed_memories: the name
as words, the description, the start of the body). A backfill is timed on `--backfill`
memories in batches of memories.writes.vectors.BATCH and its rate put to 100,000; with two
processes of one thread each (`--processes 2`) as well as one process of `--threads`.
"""

import argparse
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE.parent))


def start_up() -> float:
    """Seconds to the first vector in a fresh process: imports, the weights' hash, the graph."""
    code = (
        "import time; t = time.perf_counter(); from memories import embedding; "
        "embedding.embed(['warm up']); print(time.perf_counter() - t)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return float(out.stdout.strip())


def demo_memories() -> list[tuple[str, str, str]]:
    import generate
    from recall import demo_store

    demo_store(generate.ROOT / "var" / "bench" / "demo")
    from memories.models import Memory

    return list(Memory.objects.order_by("id").values_list("name", "description", "body"))


def generated_memories(count: int, seed: int = 1) -> list[tuple[str, str, str]]:
    import generate

    rng = random.Random(seed)
    maker = generate.TextMaker(rng)
    found = []
    for index in range(count):
        description, body = generate._memory_text(maker, rng, index, set())
        found.append((f"note-{index:06d}", description, body))
    return found


def single_writes(memories, threads: int) -> tuple[float, float, float, float]:
    """(median, p90, max) wall ms of one memory embedded, and the mean CPU ms it took (all of
    the process's threads: what a machine with free cores would take)."""
    from memories import embedding, encoder

    model = encoder.Encoder(threads=threads)
    embedding._loaded = model
    for memory in memories[:10]:
        embedding.embed_memories([memory])
    took = []
    cpu = time.process_time()
    for memory in memories:
        started = time.perf_counter()
        embedding.embed_memories([memory])
        took.append((time.perf_counter() - started) * 1000)
    cpu = (time.process_time() - cpu) * 1000 / len(memories)
    took.sort()
    return statistics.median(took), took[int(0.9 * len(took))], took[-1], cpu


def _backfill(memories, threads: int) -> tuple[float, float]:
    """(wall s, CPU s) to embed the memories a batch at a time, as `memory embed` does."""
    from memories import embedding, encoder
    from memories.writes.vectors import BATCH

    embedding._loaded = encoder.Encoder(threads=threads)
    started, cpu = time.perf_counter(), time.process_time()
    for start in range(0, len(memories), BATCH):
        embedding.embed_memories(memories[start : start + BATCH])
    return time.perf_counter() - started, time.process_time() - cpu


def _backfill_child(args):
    memories, threads = args
    return _backfill(memories, threads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backfill", type=int, default=4000)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    options = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    print(f"start-up to the first vector, fresh process: {start_up():.2f} s")
    demo = demo_memories()
    from memories import embedding

    pieces = [
        len(ids) for ids in embedding.model().token_ids([embedding.text_of(*m) for m in demo])
    ]
    print(
        f"demo store: {len(demo)} memories, word pieces embedded a memory: median "
        f"{statistics.median(pieces):.0f}, max {max(pieces)}"
    )
    for threads in options.threads:
        median, p90, worst, cpu = single_writes(demo, threads)
        print(
            f"one memory as a write embeds it, {threads} thread(s): median {median:.2f} ms, "
            f"p90 {p90:.2f} ms, max {worst:.2f} ms; CPU {cpu:.2f} ms a memory"
        )
    made = generated_memories(options.backfill)
    pieces = [
        len(ids) for ids in embedding.model().token_ids([embedding.text_of(*m) for m in made])
    ]
    print(
        f"generated: {len(made)} memories, word pieces a memory: median "
        f"{statistics.median(pieces):.0f}, max {max(pieces)}"
    )
    for threads in options.threads:
        took, cpu = _backfill(made, threads)
        rate = len(made) / took
        print(
            f"backfill, one process of {threads} thread(s): {rate:.0f} memories/s, "
            f"100,000 in {100_000 / rate / 60:.1f} min; CPU {cpu * 1000 / len(made):.2f} ms a "
            f"memory: 100,000 on two free cores in {100_000 * cpu / len(made) / 2 / 60:.1f} min"
        )
    halves = [(made[0::2], 1), (made[1::2], 1)]
    started = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(2) as pool:
        cpus = [cpu for _, cpu in pool.map(_backfill_child, halves)]
    took = time.perf_counter() - started
    rate = len(made) / took
    print(
        f"backfill, two processes of one thread: {rate:.0f} memories/s, "
        f"100,000 in {100_000 / rate / 60:.1f} min (each process's start-up included); "
        f"CPU {sum(cpus) * 1000 / len(made):.2f} ms a memory"
    )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
