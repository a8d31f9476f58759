"""What a memory's vector reads and how the meaning read compares vectors, measured on the
paraphrase set (recall@5 by meaning and hybrid) and the labelled near-duplicate pairs.

    python bench/meaning/recipes.py   # over the demo store under var/bench/demo (made once)

Each variant sets the constants of memories.embedding and memories.reads.meaning, embeds
the demo store again and runs recall.py's search; the pairs' best thresholds come from
duplicate_pairs.py's scoring. Stored as int8, as the store does: the float32 variants of
bench/results/2026-12-04-encoder/recipes-minilm.txt (the same recall) cannot run since a
search's first pass reads the stored bytes as they are (memories.reads.quantized).
"""

import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
from recall import demo_store, recall  # noqa: E402


def variant(name, *, body=300, separate=False, centred=False, hub=0.5):
    embedding_constants = {"BODY_CHARS": body, "separate": separate}
    return name, embedding_constants, {"CENTRED": centred, "HUB_PENALTY": hub}


VARIANTS = [
    variant("one text, body 300, plain, no hub", hub=0.0),
    variant("one text, body 300, plain, hub 0.25", hub=0.25),
    variant("one text, body 300, plain, hub 0.5"),
    variant("one text, body 300, plain, hub 0.75", hub=0.75),
    variant("one text, body 300, plain, hub 1.0", hub=1.0),
    variant("one text, body 300, centred, no hub", centred=True, hub=0.0),
    variant("one text, body 300, centred, hub 0.25", centred=True, hub=0.25),
    variant("one text, body 300, centred, hub 0.5", centred=True),
    variant("one text, no body, plain, hub 0.5", body=0),
    variant("one text, body 150, plain, hub 0.5", body=150),
    variant("one text, body 600, plain, hub 0.5", body=600),
    variant("one text, body 150, plain, hub 0.75", body=150, hub=0.75),
    variant("parts summed, body 300 x0.5, plain, hub 0.5", separate=True),
    variant("parts summed, body 150 x0.5, plain, hub 0.5", body=150, separate=True),
    variant("parts summed, no body, plain, hub 0.5", body=0, separate=True),
    variant("parts summed, body 150 x0.5, centred, hub 0.5", body=150, separate=True, centred=True),
    variant("parts summed, body 150 x0.5, plain, hub 0.75", body=150, separate=True, hub=0.75),
]


def _parts_summed(memories):
    """Each part embedded alone, their unit vectors summed (the body's at half weight)."""
    from memories import embedding

    if not memories:
        return np.zeros((0, embedding.DIMENSIONS), dtype=np.float32)
    parts = [embedding.parts_of(*memory) for memory in memories]
    n = len(parts)
    vectors = embedding.embed([text for column in range(3) for text in (p[column] for p in parts)])
    total = vectors[:n] + vectors[n : 2 * n] + 0.5 * vectors[2 * n :]
    return total / np.maximum(np.linalg.norm(total, axis=1, keepdims=True), 1e-12)


def run(name, embedding_constants, meaning_constants) -> dict:
    from duplicate_pairs import HELD_OUT, PAIRS, _cuts, precision_recall, right, scored

    from memories import embedding
    from memories.models import Memory
    from memories.reads import meaning
    from memories.writes import vectors

    embedding_constants = dict(embedding_constants)
    separate = embedding_constants.pop("separate")
    defaults = {k: getattr(embedding, k) for k in embedding_constants}
    saved = embedding.embed_memories
    for key, value in embedding_constants.items():
        setattr(embedding, key, value)
    if separate:
        embedding.embed_memories = _parts_summed
    for key, value in meaning_constants.items():
        setattr(meaning, key, value)
    try:
        started = time.perf_counter()
        vectors.embed(list(Memory.objects.order_by("id").values_list("id", flat=True)))
        took = time.perf_counter() - started
        meaning._held = meaning._Vectors()
        found = {mode: recall(mode, False) for mode in ("meaning", "hybrid")}
        pairs = scored(PAIRS + HELD_OUT)
        cut = max(_cuts([c for c, _, _ in pairs]), key=lambda t: (right(pairs, t, -1.0), t))
        p, r = precision_recall(pairs, cut, -1.0)
        return {
            "variant": name,
            "meaning": found["meaning"],
            "hybrid": found["hybrid"],
            "pairs_cosine_alone": (round(cut, 3), right(pairs, cut, -1.0), len(pairs), p, r),
            "embed_s": took,
        }
    finally:
        for key, value in defaults.items():
            setattr(embedding, key, value)
        embedding.embed_memories = saved


def main() -> None:
    demo_store(generate.ROOT / "var" / "bench" / "demo")
    from memories.reads import meaning
    from memories.reads.search import MEANING_FLOOR

    print(f"(search.MEANING_FLOOR {MEANING_FLOOR} throughout)")
    kept = (meaning.CENTRED, meaning.HUB_PENALTY)
    for variant in VARIANTS:
        if len(sys.argv) > 1 and not any(a == variant[0] for a in sys.argv[1:]):
            continue
        result = run(*variant)
        cut, good, n, p, r = result["pairs_cosine_alone"]
        print(
            f"{result['variant']:45} recall@5 meaning {result['meaning']:.3f} hybrid "
            f"{result['hybrid']:.3f} | pairs by cosine alone at {cut}: {good}/{n} right, "
            f"precision {p:.2f} recall {r:.2f} | embedded the store in {result['embed_s']:.1f} s",
            flush=True,
        )
        meaning.CENTRED, meaning.HUB_PENALTY = kept
    # The demo store left with the store's own recipe: the digests do not tell the variants'.
    from memories.models import Memory
    from memories.writes import vectors

    vectors.embed(list(Memory.objects.order_by("id").values_list("id", flat=True)))


if __name__ == "__main__":
    main()
