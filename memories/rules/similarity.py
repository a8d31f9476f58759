"""How alike two descriptions are word for word: the measure behind the hygiene page's groups
of near-identical wordings."""

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
