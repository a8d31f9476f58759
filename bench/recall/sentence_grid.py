"""How much a sentence's chance words should count in hybrid: the fusion replayed offline on
LoCoMo's dev questions and on the paraphrase set, for several ramps of the words' part by the
hit's cosine to the question (search.SENTENCE_WORDS, INCIDENTAL_BELOW, INCIDENTAL_SHARE).

    .venv/bin/python bench/recall/sentence_grid.py collect locomo var/bench/locomo-sqlite L.json
    .venv/bin/python bench/recall/sentence_grid.py collect paraphrases var/bench/demo P.json
    .venv/bin/python bench/recall/sentence_grid.py grid L.json P.json

`collect` asks each question of a built store (bench/recall/locomo.py's, or
bench/meaning/recall.py's demo store) by words and reads every memory's cosine; `grid`
fuses them as memories.reads.search._fused does (ranks with ties shared, RRF_K, WORDS_SHARE,
the meaning ranked by cosine x weight^WEIGHT_POWER less the hubness penalty) and prints
recall@5 of both sets for each ramp.
"""

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "meaning"))
sys.path.insert(0, str(HERE.parent.parent))

K, SHARE, FLOOR, HUB, POWER = 10, 0.55, 0.15, 0.5, 0.25


def questions(which: str):
    from memories.reads.filters import MemoryFilters

    if which == "locomo":
        import locomo

        for conversation in locomo.load(
            HERE.parent.parent.parent / "shared/data/locomo-dev", locomo.Quirks()
        ):
            filters = MemoryFilters(project=conversation.project)
            for question in conversation.questions:
                if question.category != 5:
                    turns = [f"turn-{e.lower().replace(':', '-')}" for e in question.evidence]
                    yield filters, question.text, turns
    else:
        from paraphrases import PARAPHRASES

        for name, _project, query in PARAPHRASES:
            yield MemoryFilters(), query, [name]


def collect(which: str, store: Path, out: Path) -> None:
    import generate

    generate.setup_django(store.resolve())
    from django.conf import settings
    from django.utils import timezone

    from memories.reads import conditions, meaning, search

    now, half_life = timezone.now(), float(settings.MEMADMIN_SEARCH_HALF_LIFE_DAYS)
    fields = ("name", "priority", "read_count", "verified_at")
    rows = []
    for filters, text, wanted in questions(which):
        words = search.search([text], filters, mode="words", limit=100, now=now)
        ranking = meaning.ranking([text], floor=-1.0)
        condition = conditions.of(filters, now)
        near, _ = meaning.nearest(ranking, condition=condition, want=10_000, fields=fields)
        cosines = {
            n.values[0]: (n.cosine, n.hubness, search.FORMULA.weight(*n.values[1:], now, half_life))
            for n in near
        }
        hits = {hit.memory.name: hit.score for hit in words.hits}
        rows.append({"q": text, "wanted": wanted, "words": hits, "cos": cosines})
    out.write_text(json.dumps(rows))


def _ranks(scores: dict) -> dict:
    ranks, leader = {}, None
    for place, name in enumerate(sorted(scores, key=scores.get, reverse=True), start=1):
        if leader is None or scores[leader] - scores[name] > 1e-6 * abs(scores[leader]):
            leader, ranks[name] = name, place
        else:
            ranks[name] = ranks[leader]
    return ranks


def _recall(rows, damp) -> float:
    total = 0.0
    for row in rows:
        meaning = {n: c * w**POWER - HUB * h for n, (c, h, w) in row["cos"].items() if c >= FLOOR}
        word_rank, meaning_rank = _ranks(row["words"]), _ranks(meaning)
        scores = {}
        for name in set(word_rank) | set(meaning_rank):
            score = 0.0
            if name in word_rank:
                score += SHARE * damp(row, name) / (K + word_rank[name])
            if name in meaning_rank:
                score += (1 - SHARE) / (K + meaning_rank[name])
            scores[name] = score
        first = sorted(scores, key=scores.get, reverse=True)[:5]
        total += len(set(row["wanted"]) & set(first)) / len(row["wanted"])
    return total / len(rows)


def grid(locomo_rows: list, paraphrase_rows: list) -> None:
    from memories.rules.similarity import content_words

    def ramp(least: float, full: float, share: float, sentence: int):
        def damp(row, name):
            if len(content_words(row["q"])) < sentence:
                return 1.0
            cosine = row["cos"].get(name, (-1.0,))[0]
            above = min(max(cosine - least, 0.0) / (full - least), 1.0)
            return share + (1 - share) * above

        return damp

    print("ramp (from, full at, share at least, sentence words): LoCoMo R@5, paraphrases R@5")
    settings = [(0.15, 0.3, 1.0, 0)]  # as before: no damping
    settings += [(0.15, full, share, 3) for full in (0.25, 0.3) for share in (0.0, 0.1, 0.2, 0.3)]
    settings += [(0.15, 0.3, 0.1, words) for words in (1, 2, 4)]
    for setting in settings:
        damp = ramp(*setting)
        print(f"{setting}: {_recall(locomo_rows, damp):.3f}  {_recall(paraphrase_rows, damp):.3f}")


if __name__ == "__main__":
    if sys.argv[1] == "collect":
        collect(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
    else:
        grid(*(json.loads(Path(path).read_text()) for path in sys.argv[2:4]))
