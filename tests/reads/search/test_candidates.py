"""A query of words with many matches ranks a bounded set of candidates: the same pages, the
same counts and senses as ranking every match, whether the bound holds or not."""

import random

import pytest
from django.utils import timezone

from memories.engine.ranking import EXHAUSTIVE, Candidates
from memories.reads import search as search_module
from memories.reads.filters import MemoryFilters
from tests.conftest import restore
from tests.reads.search.conftest import days_ago, set_fields

BOUNDED = Candidates(share=0.1, from_matches=20)


NOW = timezone.now()


def _pages(find, query, monkeypatch, candidates, filters=None, asked=1):
    """Four pages of ten of `query`, asked `asked` times over as synonyms."""
    monkeypatch.setattr(search_module, "CANDIDATES", candidates)
    pages = []
    for offset in (0, 10, 40, 130):
        queries = [query] * asked
        result = find(*queries, filters=filters, mode="words", limit=10, offset=offset, now=NOW)
        pages.append(
            (
                result.count,
                [(hit.memory.name, round(hit.score, 12), hit.matched_by) for hit in result.hits],
            )
        )
    return pages


def _assert_same(find, query, monkeypatch, filters=None):
    bounded = _pages(find, query, monkeypatch, BOUNDED, filters)
    exhaustive = _pages(find, query, monkeypatch, EXHAUSTIVE, filters)
    assert bounded == exhaustive
    assert bounded[0][1], "the query found nothing: the comparison says nothing"


def _first_names(find, monkeypatch) -> list[str]:
    """The names on the first page of ten for `heron`, bounded, once it is the exhaustive one."""
    _assert_same(find, "heron", monkeypatch)
    monkeypatch.setattr(search_module, "CANDIDATES", BOUNDED)
    return [hit.memory.name for hit in find("heron", mode="words", limit=10).hits]


@pytest.fixture
def varied(db):
    """140 memories holding `heron` in the name, the description or the body, once or often,
    at every priority, read and verified at random (the import door keeps read counts and
    dates as given)."""
    rng = random.Random(7)
    memories = []
    for number in range(140):
        place = rng.choice(("name", "description", "body", "body"))
        memories.append(
            {
                "name": f"heron-{number}" if place == "name" else f"note-{number}",
                "description": "A heron at the lake" if place == "description" else "A bird note",
                "body": " ".join(["heron"] * rng.randint(1, 4) + ["words"] * rng.randint(0, 60)),
                "priority": rng.randint(0, 100),
                "created_at": days_ago(1000 - number),
                "read_count": rng.randint(0, 50),
                "verified_at": days_ago(rng.randint(0, 900)),
            }
        )
    restore(*memories)


def test_bounded_pages_are_the_exhaustive_pages(varied, find, monkeypatch):
    _assert_same(find, "heron", monkeypatch)


def test_bounded_pages_hold_for_a_prefix_retry(varied, find, monkeypatch):
    _assert_same(find, "herony", monkeypatch)
    _assert_same(find, "heronry", monkeypatch)


def test_bounded_pages_hold_within_filters(varied, find, monkeypatch):
    _assert_same(find, "heron", monkeypatch, MemoryFilters(unverified="90d"))


def test_the_bound_holds_when_the_most_relevant_are_also_the_most_important(find, monkeypatch):
    restore(
        *(
            {
                "name": f"heron-{number}",
                "description": "A heron",
                "body": "heron " + "words " * number,
            }
            for number in range(30)
        ),
        *(
            {"name": f"note-{number}", "body": "heron " + "words " * 80, "priority": 50}
            for number in range(120)
        ),
    )
    first = _first_names(find, monkeypatch)
    assert len(first) == 10
    assert all(name.startswith("heron-") for name in first)


def test_a_match_outside_the_candidates_that_outranks_them_is_found(write, find, monkeypatch):
    """The most relevant are unimportant (priority 100, never read, long unverified): the
    bound fails and every match is ranked, so the important body matches come first."""
    for number in range(40):
        memory = write(f"heron-{number}", description="A heron", body="heron", priority=100).memory
        set_fields(memory, verified_at=days_ago(2000))
    for number in range(60):
        write(f"note-{number}", body="heron " + "words " * 30, priority=0)
    first = _first_names(find, monkeypatch)
    assert len(first) == 10
    assert all(name.startswith("note-") for name in first)


@pytest.mark.parametrize(
    "query, filters",
    [("heron", None), ("herony", None), ("heron", MemoryFilters(unverified="90d"))],
)
def test_a_query_of_words_alone_pages_as_the_general_statement_does(
    varied, find, monkeypatch, query, filters
):
    """The statement of the common case, one query of words alone, gives the same counts,
    pages, scores and senses as the general one, which the query asked twice, as two
    synonyms, is written as (every part's hits grouped per query and memory)."""
    words = _pages(find, query, monkeypatch, EXHAUSTIVE, filters)
    assert words == _pages(find, query, monkeypatch, EXHAUSTIVE, filters, asked=2)
    assert words[0][1], "the query found nothing: the comparison says nothing"
