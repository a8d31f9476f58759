"""Whether two texts can state the same fact, and whether one says anything the other lacks.

Two rules, neither of which looks at meaning:

- `differ(a, b)`: the texts state different facts when each says a number, an identifier or a
  name the other does not. "Legacy operating rule 12" and "Legacy operating rule 13" are the
  same words but for one, and vectors of meaning call them 0.94 alike; they are two rules.
  Only a substitution counts (something on each side the other lacks): a detail added on one
  side ("at 02:00" against nothing) leaves the fact the same, as meaning.say_the_same has it.
- `contained(inner, outers)` and `loses_nothing(...)`: a memory says nothing another lacks when
  its description and its body each appear, whole words, within the other's description or
  body, compared case-folded with every run of whitespace one space. A consolidation may trash
  such a memory in one click; any other is merged by hand after its differences are read.
"""

import re

# What a token is trimmed of at its ends: "host-7," and "(v2.3)" are host-7 and v2.3.
_EDGE = "\"'`.,;:!?()[]{}<>*"
_DIGITS = re.compile(r"\d+")
# An identifier: letters or digits joined by - _ . / : @ (host-7, api.example.com, /var/log,
# Europe/Berlin, v2.3), letters mixed with digits (k4yt3x, 16px) or a capital inside a word
# (DaVinci, camelCase; a word in capitals, UTC or DATABASE, is a name, compared in any case).
_JOINED = re.compile(r"\w[-_./:@\\]+\w")
_MIXED = re.compile(r"(?=.*\d)(?=.*[^\W\d_])")
_INNER_CAPITAL = re.compile(r"\w[A-Z]")
_SENTENCE_END = (".", "!", "?", ":", ";")
# Capitalised words that name nothing: a sentence's first word is left out already.
_COMMON = frozenset(
    """a an the i we you they he she it this that these those in on at by for to of and or
    but no not never always every each all any some do don't use""".split()  # noqa: SIM905
)


def _tokens(text: str) -> list[str]:
    return [t.strip(_EDGE) for t in text.split() if t.strip(_EDGE)]


def numbers(text: str) -> set[tuple[int, ...]]:
    """The numbers a text states, one tuple a token holding digits, read as integers and
    trailing zeros dropped: "rule 12" (12,), "v2.3" (2, 3), "2026-11-02" (2026, 11, 2),
    "host-7.internal" (7,), "09:30" and "9:30" (9, 30), "02:00" and "2" (2,)."""
    found = set()
    for token in _tokens(text):
        values = [int(run) for run in _DIGITS.findall(token)]
        while len(values) > 1 and values[-1] == 0:
            values.pop()
        if values:
            found.add(tuple(values))
    return found


def identifiers(text: str) -> set[str]:
    """The identifiers a text holds (hosts, paths, URLs, versions, names like eun-ji or
    k4yt3x), lower-cased."""
    return {
        token.lower()
        for token in _tokens(text)
        if _JOINED.search(token)
        or _MIXED.match(token)
        or (_INNER_CAPITAL.search(token) and not token.isupper())
    }


def _plain(word: str) -> str:
    word = word.lower().removesuffix("'s").removesuffix("’s")
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def names(text: str) -> set[str]:
    """The capitalised words of a text that do not begin it or a sentence (Spanish, Redis,
    Tuesday), lower-cased and a plural's s dropped; letters only (the rest are identifiers)."""
    found, first = set(), True
    for raw in text.split():
        token = raw.strip(_EDGE)
        word = _plain(token)
        if not first and token[:1].isupper() and word.isalpha() and word not in _COMMON:
            found.add(word)
        if token:
            first = raw.rstrip("\"')]").endswith(_SENTENCE_END)
    return found


def _words(text: str) -> set[str]:
    return {_plain(w) for w in re.findall(r"[\w'’]+", text)}


def differ(a: str, b: str) -> bool:
    """Whether texts `a` and `b` state different facts: each holds a number (rule 12 / rule 13,
    v2.3 / v2.4, 2026-11-02 / 2026-11-03, host-7 / host-9), an identifier (api.example.com /
    api.example.org, /var/log / /var/lib) or a name (Spanish / English) that the other lacks.
    An identifier within one of the other's counts as held (host-7 in host-7.internal), a name
    as held when the other has the word in any case."""
    ours, theirs = numbers(a), numbers(b)
    if ours - theirs and theirs - ours:
        return True
    ours, theirs = identifiers(a), identifiers(b)
    if _unmatched(ours, theirs) and _unmatched(theirs, ours):
        return True
    a_words, b_words = _words(a), _words(b)
    return bool(names(a) - b_words and names(b) - a_words)


def _unmatched(ours: set[str], theirs: set[str]) -> set[str]:
    return {x for x in ours if not any(x in y or y in x for y in theirs)}


def normalised(text: str) -> str:
    """Text case-folded, every run of whitespace one space, the ends trimmed."""
    return " ".join(text.casefold().split())


# After a contained text: the end, a space, or punctuation that ends a word ("host." holds
# "host"; "3.11" does not hold "3", nor "rule 12" "rule 1").
_AFTER = r"(?=$| |[.,;:!?)\]\"']+(?: |$))"


def contained(inner: str, outers: list[str]) -> bool:
    """Whether `inner`, normalised, is empty or appears in one of `outers`, normalised, as whole
    words: starting at the start or after a space, ending at the end, before a space or before
    punctuation that ends the word."""
    inner = normalised(inner)
    if not inner:
        return True
    pattern = re.compile(r"(?:^|(?<= ))" + re.escape(inner) + _AFTER)
    return any(pattern.search(normalised(outer)) for outer in outers)


def loses_nothing(description: str, body: str, kept_description: str, kept_body: str) -> bool:
    """Whether a memory (description, body) says nothing that the kept one lacks: its
    description and its body are each `contained` in the kept description or body. Exact
    duplicates are the plainest case."""
    kept = [kept_description, kept_body]
    return contained(description, kept) and contained(body, kept)
