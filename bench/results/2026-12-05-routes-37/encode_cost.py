"""A question encoded by the sentence encoder as a search encodes it (memories.embedding.embed,
past the questions kept): the mean of 30 after one warm-up, CPU and wall. From the checkout:

    .venv/bin/python bench/results/2026-12-05-routes-37/encode_cost.py
"""

import os
import sys
import time

import django

sys.path.insert(0, ".")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
django.setup()

from memories import embedding  # noqa: E402

embedding.embed(["warm up"])
for question in (["quokka"], ["what did caroline say about the adoption agency last week"]):
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(30):
        embedding.embed(question)
    print(
        f"{(time.process_time() - cpu) / 30 * 1000:.2f} ms cpu "
        f"{(time.perf_counter() - wall) / 30 * 1000:.2f} wall {question[0][:20]}"
    )
