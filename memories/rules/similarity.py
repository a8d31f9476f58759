"""How two descriptions compare word for word: their words, how alike they read (the hygiene
page's comparison of a group), and the words one says that the other does not (the second
signal of meaning.say_the_same)."""

import difflib
import hashlib
import re

_WORD = re.compile(r"\w+")


def words(description: str) -> str:
    """The description as lower-case words joined by single spaces."""
    return " ".join(_WORD.findall(description.lower()))


def wording(description: str) -> str:
    """The key of a description's words (memories.Wording): the same for two descriptions
    exactly when their words() are (but for a digest's collisions), "" when it has none."""
    found = words(description)
    return hashlib.blake2b(found.encode(), digest_size=16).hexdigest() if found else ""


def ratio(a_words: str, b_words: str) -> float:
    """Similarity of two `words()` forms, 0 to 1."""
    return difflib.SequenceMatcher(None, a_words, b_words).ratio()


# Words a rewording adds or drops without changing the fact: articles, auxiliaries, most
# prepositions and conjunctions. Negations are not among them: "no" and "not" change it.
FUNCTION_WORDS = frozenset(
    """a an the of to in on at by for from with and or is are was were be been being do does
    did has have had it its this that these those as per via into onto than then there their
    they them we our you your i s""".split()  # noqa: SIM905
)


def content_words(text: str) -> list[str]:
    """The words of a text, lower-case and in order, function words left out."""
    return [w for w in _WORD.findall(text.lower()) if w not in FUNCTION_WORDS]


def differing_words(a: str, b: str) -> tuple[list[str], list[str]]:
    """The words of description `a` that `b` lacks and of `b` that `a` lacks, lower-case and in
    order, function words left out: what one says that the other does not."""
    ours, theirs = content_words(a), content_words(b)
    return [w for w in ours if w not in set(theirs)], [w for w in theirs if w not in set(ours)]
