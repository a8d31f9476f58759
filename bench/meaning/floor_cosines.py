"""Where MEANING_FLOOR should sit: the cosines of the paraphrase set's queries to their
targets against the best cosine a query that means nothing in the demo store gets, and
recall@5 by meaning (recall.py) at each floor.

    python bench/meaning/floor_cosines.py   # over the demo store under var/bench/demo
"""

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
from paraphrases import PARAPHRASES  # noqa: E402
from recall import demo_store, recall  # noqa: E402

# Queries no memory of the demo store answers: identifiers, made-up words, other topics.
UNRELATED = [
    "qzx-7781-blorp",
    "ERR_0x5f3759df",
    "zebra migration patterns in the Serengeti",
    "recipe for sourdough bread",
    "kj3h4k5jh",
    "the French revolution of 1789",
    "what is the capital of Mongolia",
    "favourite jazz albums",
    "a9f0c2d1e4b7",
    "how to knit a scarf",
    "volcano eruption forecast",
    "quokka",
]


def main() -> None:
    demo_store(generate.ROOT / "var" / "bench" / "demo")
    from memories import embedding
    from memories.models import Memory
    from memories.reads import meaning

    memories = list(Memory.objects.values_list("name", "project__name", "id"))
    index = {(name, project): memory_id for name, project, memory_id in memories}
    meaning.held_count()
    held = meaning._held
    targets = []
    for name, project, query in PARAPHRASES:
        ids, sims, _ = held.cosines(embedding.embed([query]))
        targets.append(float(sims[list(ids).index(index[(name, project)])]))
    best_unrelated = []
    for query in UNRELATED:
        _, sims, _ = held.cosines(embedding.embed([query]))
        best_unrelated.append(float(sims.max()))
    t = np.array(targets)
    print(f"model {embedding.MODEL_VERSION}, centred: {meaning.CENTRED}")
    print(
        "paraphrase to its target: percentiles 5/10/25/50 "
        + " / ".join(f"{np.percentile(t, q):.3f}" for q in (5, 10, 25, 50))
        + f", min {t.min():.3f}"
    )
    for floor in (0.1, 0.15, 0.2, 0.25, 0.3):
        print(f"  floor {floor}: {np.mean(t >= floor):.3f} of the targets at or above it")
    print("an unrelated query's best cosine in the store:")
    for query, best in sorted(zip(UNRELATED, best_unrelated, strict=True), key=lambda x: -x[1]):
        print(f"  {best:.3f}  {query}")
    from memories.reads import search

    kept = search.MEANING_FLOOR
    for floor in (0.1, 0.15, 0.2, 0.25):
        search.MEANING_FLOOR = floor
        print(f"recall@5 by meaning with MEANING_FLOOR {floor}: {recall('meaning', False):.3f}")
    search.MEANING_FLOOR = kept


if __name__ == "__main__":
    main()
