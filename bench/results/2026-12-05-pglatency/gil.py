"""Whether a thread of the meaning's kind holds up the request's thread waiting on the
server: 200 round trips of `SELECT pg_sleep(0.002)` on the store's connection, their median
wall, while another thread runs nothing, the encoder, its tokenizer or onnxruntime session
alone, a Python loop (which holds the GIL), or a numpy product (which lets it go).

    MEMADMIN_DATABASE_URL=... .venv/bin/python bench/results/2026-12-05-pglatency/gil.py STORE
"""

import os
import statistics
import sys
import threading
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

import generate  # noqa: E402

QUESTION = "When did Caroline go to the LGBTQ support group?"


def main() -> None:
    warnings.filterwarnings("ignore", message="No directory at")
    generate.setup_django(Path(sys.argv[1]).resolve(), os.environ["MEMADMIN_DATABASE_URL"])
    import numpy as np
    from django.db import connection

    from memories import embedding

    model = embedding.model()
    ids = np.array([model.token_ids([QUESTION])[0]])
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    square = np.random.default_rng(1).random((300, 300), dtype=np.float32)
    stop = threading.Event()

    def looping(work):
        def run():
            while not stop.is_set():
                work()

        return run

    def python_loop():
        total = 0
        for i in range(10_000):
            total += i

    beside = {
        "none": None,
        "encoder": lambda: embedding.embed([QUESTION]),
        "tokenizer": lambda: model.token_ids([QUESTION]),
        "session.run": lambda: model.session.run(["vectors"], feeds),
        "python loop": python_loop,
        "numpy matmul": lambda: square @ square,
    }
    for _ in range(2):
        for name, work in beside.items():
            stop.clear()
            thread = threading.Thread(target=looping(work)) if work else None
            if thread:
                thread.start()
                time.sleep(0.05)
            walls = []
            with connection.cursor() as cursor:
                for _ in range(200):
                    began = time.perf_counter()
                    cursor.execute("SELECT pg_sleep(0.002)")
                    cursor.fetchone()
                    walls.append(time.perf_counter() - began)
            stop.set()
            if thread:
                thread.join()
            print(
                f"{name:14} median round trip {statistics.median(walls) * 1000:6.2f} ms"
                f"  load {os.getloadavg()[0]:.2f}"
            )


if __name__ == "__main__":
    main()
