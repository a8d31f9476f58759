"""Which model should read the differing words of the near-duplicate rule: the labelled pairs
of duplicate_pairs.py scored with the memories' cosine by the store's encoder and the cosine
of the words one description has and the other lacks by all-MiniLM-L6-v2 (embedding.embed)
or by WordLlama's static word vectors (embedding.embed_words); for each, the pair of
thresholds that gets the most of PAIRS right (the highest among equals) and what it gets on
HELD_OUT.

    python bench/meaning/differing_words.py   # over the demo store under var/bench/demo
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
from duplicate_pairs import HELD_OUT, PAIRS, precision_recall, right  # noqa: E402
from recall import demo_store  # noqa: E402


def scored(pairs, read_words):
    from memories import embedding
    from memories.rules import similarity

    found = []
    for a, b, label in pairs:
        u, v = embedding.embed_memories([a, b])
        ours, theirs = similarity.differing_words(a[1], b[1])
        if ours and theirs:
            x, y = read_words([" ".join(ours), " ".join(theirs)])
            differing = float(x @ y)
        else:
            differing = 1.0
        found.append((float(u @ v), differing, False, False, label))  # duplicate_pairs' rows
    return found


def main() -> None:
    demo_store(generate.ROOT / "var" / "bench" / "demo")
    from memories import embedding

    grid = [(c / 100, d / 100) for c in range(50, 100) for d in range(-10, 100)]
    for name, read_words in (
        ("all-MiniLM-L6-v2", embedding.embed),
        ("WordLlama", embedding.embed_words),
    ):
        fit, held = scored(PAIRS, read_words), scored(HELD_OUT, read_words)
        best = max(grid, key=lambda t: (right(fit, *t, False, False), t))
        p, r, *_ = precision_recall(fit, *best, False, False)
        hp, hr, *_ = precision_recall(held, *best, False, False)
        fit_right, held_right = right(fit, *best, False, False), right(held, *best, False, False)
        print(
            f"differing words by {name}: thresholds {best}: {fit_right} of {len(fit)} "
            f"right (precision {p:.2f}, recall {r:.2f}); held out {held_right} of "
            f"{len(held)} (precision {hp:.2f}, recall {hr:.2f})"
        )


if __name__ == "__main__":
    main()
