"""How alike two descriptions are: the measure behind the write door's near-duplicate note and
the hygiene page's near-duplicate groups, so both call the same pair "nearly the same"."""

import difflib
import re

NEAR_DUPLICATE_RATIO = 0.8
_WORD = re.compile(r"\w+")


def words(description: str) -> str:
    """The description as lower-case words joined by single spaces."""
    return " ".join(_WORD.findall(description.lower()))


def ratio(a_words: str, b_words: str) -> float:
    """Similarity of two `words()` forms, 0 to 1."""
    return difflib.SequenceMatcher(None, a_words, b_words).ratio()


def near(a_words: str, b_words: str) -> bool:
    return ratio(a_words, b_words) >= NEAR_DUPLICATE_RATIO


def closest(description: str, candidates) -> object | None:
    """The key of the (key, description) candidate nearest this description, if near enough.

    SequenceMatcher's cheap upper bounds rule most candidates out before the full measure.
    """
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(words(description))
    best_key, best_ratio = None, NEAR_DUPLICATE_RATIO
    for key, other in candidates:
        matcher.set_seq1(words(other))
        if matcher.real_quick_ratio() < best_ratio or matcher.quick_ratio() < best_ratio:
            continue
        measured = matcher.ratio()
        if measured >= best_ratio:
            best_key, best_ratio = key, measured
    return best_key
