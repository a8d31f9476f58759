"""The hybrid blend's two numbers, tried on a built LoCoMo store in process: the words' share
and the meaning's floor. Reads what each question's words and meaning find once, then scores
every setting by recall@5 over all but category 5 (the bench's protocol).

    .venv/bin/python bench/recall/fusion_grid.py --data ../shared/data/locomo-dev \\
        [--store var/bench/locomo-sqlite]

Not the bench: bench/recall/locomo.py measures through /v1. This shows which setting the
data prefers and how flat the choice is, so that a setting is not tuned to five conversations.
"""

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
import locomo  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--store", type=Path, default=generate.ROOT / "var/bench/locomo-sqlite")
    options = parser.parse_args()
    generate.setup_django(options.store.resolve())
    from django.conf import settings
    from django.utils import timezone

    from memories.models import Memory
    from memories.reads import conditions, meaning, search
    from memories.reads.filters import MemoryFilters

    conversations = locomo.load(options.data, locomo.Quirks())
    now = timezone.now()
    half_life = float(settings.MEMADMIN_SEARCH_HALF_LIFE_DAYS)
    asked = []
    for conversation in conversations:
        filters = MemoryFilters(project=conversation.project)
        weights = {
            m.name: search.FORMULA.weight(m.priority, m.read_count, m.verified_at, now, half_life)
            for m in filters.apply(Memory.objects.all(), now)
        }
        for question in conversation.questions:
            if question.category == 5:
                continue
            words = search.search([question.text], filters, mode="words", limit=100, now=now)
            ranking = meaning.ranking([question.text], floor=-1.0)
            condition = conditions.of(filters, now)
            near, _ = meaning.nearest(ranking, condition=condition, want=10_000, fields=("name",))
            cosines = {n.values[0]: n.cosine for n in near}
            asked.append(({h.memory.name: h.score for h in words.hits}, cosines, weights, question))
    print(f"{len(asked)} questions")
    variants = {}
    _unused = {
        "absolute": lambda w, best_w, c, best_c, floor: (w, _above(c, floor, 1.0)),
        "words/best": lambda w, best_w, c, best_c, floor: (w / best_w, _above(c, floor, 1.0)),
        "both/best": lambda w, best_w, c, best_c, floor: (w / best_w, _above(c, floor, best_c)),
    }
    for label, variant in variants.items():
        for floor in (0.15, 0.25):
            row = []
            for share in (0.3, 0.4, 0.5, 0.6, 0.7):
                row.append(f"{share}: {_recall(asked, variant, floor, share):.3f}")
            print(f"{label:10} floor {floor}: " + "  ".join(row))
    shares = (0.4, 0.5, 0.55, 0.6, 0.7)
    for k in (5, 10, 20, 60):
        row = [f"{share}: {_rrf(asked, k, share, 0.15):.3f}" for share in shares]
        print(f"rrf k={k:<4} floor 0.15: " + "  ".join(row))
        row = [f"{share}: {_rrf(asked, k, share, 0.15, True):.3f}" for share in shares]
        print(f"rrf k={k:<4} by strength: " + "  ".join(row))


def _rrf(asked, k: float, share: float, floor: float, strength: bool = False) -> float:
    total = 0.0
    for word_scores, cosines, weights, question in asked:
        words = sorted(word_scores, key=word_scores.get, reverse=True)
        near = sorted((n for n in cosines if cosines[n] > floor), key=cosines.get, reverse=True)
        scored: dict[str, float] = {}
        for rank, name in enumerate(words, 1):
            damp = min(word_scores[name] / weights[name], 1.0) if strength else 1.0
            scored[name] = scored.get(name, 0.0) + share * damp / (k + rank)
        for rank, name in enumerate(near, 1):
            scored[name] = scored.get(name, 0.0) + (1 - share) / (k + rank)
        ranked = sorted(scored, key=scored.get, reverse=True)[:5]
        wanted = {f"turn-{e.lower().replace(':', '-')}" for e in question.evidence}
        total += len(wanted & set(ranked)) / len(wanted)
    return total / len(asked)


def _above(cosine: float, floor: float, top: float) -> float:
    return max(0.0, (cosine - floor) / max(top - floor, 1e-9))


def _recall(asked, variant, floor: float, share: float) -> float:
    total = 0.0
    for word_scores, cosines, weights, question in asked:
        best_w = max(word_scores.values(), default=0.0) or 1.0
        best_c = max(cosines.values(), default=1.0)
        scored = {}
        for name, cosine in cosines.items():
            words_part = word_scores.get(name)
            w, m = variant(words_part or 0.0, best_w, cosine, best_c, floor)
            if words_part is None and cosine <= floor:
                continue
            scored[name] = share * w + (1 - share) * m * weights[name]
        ranked = sorted(scored, key=scored.get, reverse=True)[:5]
        wanted = {f"turn-{e.lower().replace(':', '-')}" for e in question.evidence}
        total += len(wanted & set(ranked)) / len(wanted)
    return total / len(asked)


if __name__ == "__main__":
    main()
