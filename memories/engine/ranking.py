"""What a search hands an engine's `search.ranking_statement()`, and the rows it gets back.

`memories.reads.search` reads the queries, decides which senses to try and documents the
formula; the engine writes the one statement that finds, scores, counts and pages the
matches. The statement returns rows of

    (count, capped, score, sense_rank, terms, *columns)

ordered best first (score, then newest created, then highest id): `count` the memories
matched within the filters, `capped` whether a scan stopped at its bound, `sense_rank` the
index in SENSES of the sense that answered, `terms` a JSON array (as text) of the plain-text
terms a memory held, and `columns` the plan's columns of the memory and its project. When
the page is empty, one row of NULLs past `count` and `capped`, so the count comes back.
"""

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import dataclass

SENSES = ("word", "prefix", "plain_text", "last_resort")


@dataclass(frozen=True)
class Spelling:
    """How an engine's statement spells the weight: the memory's values as the row it weighs
    (`table`) holds them, its numbers and its functions."""

    table: str
    priority: str
    read_count: str
    days: str  # the days since the memory was verified; %s: the Julian day now
    half_life: str  # %s: the half-life in days
    number: Callable[[float], str]
    power: str  # base, exponent
    greatest: str  # of two


class _Expression:
    """SQL text as the formula's arithmetic builds it, each operation in parentheses (the
    order of evaluation is the formula's, whatever the dialect's precedence)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def _apply(self, operator: str, other: "_Expression") -> "_Expression":
        return _Expression(f"({self.text} {operator} {other.text})")

    def __add__(self, other):
        return self._apply("+", other)

    def __sub__(self, other):
        return self._apply("-", other)

    def __mul__(self, other):
        return self._apply("*", other)

    def __truediv__(self, other):
        return self._apply("/", other)


@dataclass(frozen=True)
class _Arithmetic:
    """What the formula is computed over: its numbers, power, greater of two, and the choice
    of `one` for a memory whose priority keeps it from fading, else `fading`."""

    number: Callable
    power: Callable
    greatest: Callable
    unless_pinned: Callable


_PYTHON = _Arithmetic(
    number=float,
    power=pow,
    greatest=max,
    unless_pinned=lambda priority, one, fading: one if priority <= 1 else fading,
)


def _sql_arithmetic(s: Spelling) -> _Arithmetic:
    return _sql_arithmetic_of(s.number, s.power, s.greatest)


def _float8(value: float) -> str:
    return f"CAST({float(value)!r} AS float8)"


def _sql_arithmetic_of(
    number: Callable[[float], str], power: str = "power", greatest: str = "greatest"
) -> _Arithmetic:
    return _Arithmetic(
        number=lambda value: _Expression(number(value)),
        power=lambda base, exponent: _Expression(f"{power}({base.text}, {exponent.text})"),
        greatest=lambda a, b: _Expression(f"{greatest}({a.text}, {b.text})"),
        unless_pinned=lambda priority, one, fading: _Expression(
            f"(CASE WHEN {priority.text} <= 1 THEN {one.text} ELSE {fading.text} END)"
        ),
    )


@dataclass(frozen=True)
class Formula:
    """The numbers of the ranking formula (`memories.reads.search.search()` gives it)."""

    name_weight: float  # the index's column weights
    description_weight: float
    body_weight: float
    name_placement: float  # relevance as a factor of where the match is
    description_placement: float
    body_placement: float
    text_strength: float  # the strength of a plain-text match
    match_floor: float  # the least strength of an index match, whatever its BM25
    priority_scale: float
    reads_scale: float
    freshness_floor: float
    prefix_weight: float
    scan_limit: int  # text matches kept per scanned term, newest first
    # Okapi BM25's, as SQLite's FTS5 bm25() has them: a word's weight saturates as it repeats
    # (k1), and less for a memory longer than most (b).
    saturation: float = 1.2
    length_share: float = 0.75

    def strength_sql(self, score: str) -> str:
        """An index match's strength from its relevance score r >= 0 (`score`, written once):
        match_floor + (1 - match_floor) × r / (1 + r)."""
        rest = 1.0 - self.match_floor
        return f"({self.match_floor!r} + {rest!r} * (1.0 - 1.0 / (1.0 + {score})))"

    def idf(self, memories: float, matches: float) -> float:
        """A word's inverse document frequency, as FTS5's bm25() weighs it: a word most of the
        `memories` hold (its `matches`) weighs next to nothing, never less than 1e-6.
        PostgreSQL's statement carries it as a number (memories.engine.postgresql.words)."""
        return max(1e-6, math.log((memories - matches + 0.5) / (matches + 0.5)))

    def term_relevance(self, idf: float, frequency: float, length_ratio: float) -> float:
        """One word's share of a memory's relevance score: its `idf` × its `frequency` in
        the memory (the column weights' sum over its occurrences), saturated as BM25
        saturates it, in a memory `length_ratio` times as long as the average."""
        return self._term(_PYTHON, idf, frequency, length_ratio)

    def term_relevance_sql(self, idf: str, frequency: str, length_ratio: str) -> str:
        """`term_relevance()` as SQL, each expression written once."""
        a = _sql_arithmetic_of(_float8)
        return self._term(
            a, _Expression(idf), _Expression(frequency), _Expression(length_ratio)
        ).text

    def _term(self, a, idf, frequency, length_ratio):
        """idf × f (k1 + 1) / (f + k1 (1 - b + b × length_ratio)), as
        idf × (k1 + 1) × (1 - 1 / (1 + f / (k1 (1 - b + b × length_ratio)))): f written once."""
        n = a.number
        k1, b = self.saturation, self.length_share
        norm = n(k1 * (1 - b)) + n(k1 * b) * length_ratio
        return idf * n(k1 + 1) * (n(1.0) - n(1.0) / (n(1.0) + frequency / norm))

    def weight(self, priority: int, read_count: int, verified_at, now, half_life_days) -> float:
        """importance × freshness of one memory, as the engines' statements compute it (for
        the hits a search by meaning ranks outside the statement)."""
        days = (now - verified_at).total_seconds() / 86400
        return self._weight(_PYTHON, priority, read_count, days, half_life_days)

    def weight_sql(self, spelling: Spelling) -> str:
        """importance × freshness of the memory the engine's `spelling` reads, as SQL; its
        parameters: the Julian day now, then the half-life in days."""
        return self._weight(
            _sql_arithmetic(spelling),
            _Expression(spelling.priority),
            _Expression(spelling.read_count),
            _Expression(spelling.days),
            _Expression(spelling.half_life),
        ).text

    def _weight(self, a, priority, read_count, days, half_life_days):
        """The formula, once: over floats (`_PYTHON`) it is the weight, over SQL text it is
        the statement's expression, so the two cannot part."""
        n = a.number
        importance = n(1.0) - n(self.reads_scale) * priority / (
            (priority + n(self.priority_scale)) * (read_count + n(self.reads_scale))
        )
        freshness = n(self.freshness_floor) + n(1 - self.freshness_floor) * a.power(
            n(0.5), a.greatest(n(0.0), days) / half_life_days
        )
        # Priority 0-1 does not fade (the seed: no decay for the most important memories).
        return importance * a.unless_pinned(priority, n(1.0), freshness)


@dataclass(slots=True)  # made per query on every search: not frozen, which is slower
class Part:
    """One thing a query is matched by, answering in one sense."""

    query: int  # the query's position in the search
    sense: str  # one of SENSES
    words: tuple[str, ...] = ()  # word, prefix: the query's words, any of which matches
    term: str | None = None  # plain_text, last_resort: the text matched as text
    scan: bool = False  # term scanned for in the memories rather than found through the index


@dataclass(frozen=True)
class Candidates:
    """How a query of words with many matches ranks a bounded set of them: the best `share`
    of its matches by text relevance (at least the page), their importance and freshness read
    for them alone, when it has `from_matches` matches or more; a question of several words
    bounded likewise whatever its matches (`words_budget`, `question`).

    Exact or not at all: the weight is at most 1, so a match outside the candidates scores at
    most the least candidate's relevance; when the page's last score is above that, the page
    is the one ranking every match gives, and otherwise the statement ranks every match.
    """

    share: float
    from_matches: int
    # A question (a query of several words) is matched by its rarer words: kept rarest first
    # while their matches add up to at most `words_budget` (the rarest word found always),
    # the others left out (the count is then a lower bound: capped). A word most memories
    # hold weighs next to nothing in the index's relevance; ranking its matches was the cost.
    words_budget: int = 2**62
    # Of a question's matches, the best `question` by text relevance (at least the page) are
    # weighed whatever their number, and the page is the best of them: a match past them
    # would have to outweigh them by importance and freshness alone (not exact, unlike share).
    question: int = 2**62


EXHAUSTIVE = Candidates(share=1.0, from_matches=2**62)  # every match ranked: comparisons


@dataclass(slots=True)
class Plan:
    parts: list[Part]
    divisors: list[int]  # per query, the parts a memory can hold of it (the score's divisor)
    where: str | None  # the filters' condition on the memories table, None: every memory
    params: list  # the condition's parameters
    columns: str  # the memory's and its project's columns, after the five ranking columns
    formula: Formula
    half_life_days: float
    now: dt.datetime
    limit: int
    offset: int
    candidates: Candidates
