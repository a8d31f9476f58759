"""A question of several words at scale: matched by its rarer words while their matches stay
within a budget, the words most memories hold left out (the count then a lower bound), and
weighed among its best by text relevance; never leaving the filters with nothing the words
would find."""

import pytest
from django.db import connection

from memories.engine.ranking import EXHAUSTIVE, Candidates
from memories.reads import search as search_module
from memories.reads.filters import MemoryFilters
from tests.conftest import restore
from tests.reads.search.conftest import names

# Twelve matches at most from the words kept; the best five weighed.
SMALL = Candidates(share=0.125, from_matches=20_000, words_budget=12, question=5)
QUESTION = "where does the heron nest"


@pytest.fixture
def lake(db, project, other_project):
    """40 memories holding `the` (two in webdev), three of them `heron` too (in infra), and
    one holding `nest` alone; the index's statistics taken, as a live store's are."""
    restore(
        *(
            {"name": f"note-{number}", "body": "the lake in the morning", "project": "webdev"}
            for number in range(2)
        ),
        *({"name": f"walk-{number}", "body": "the path by the shore"} for number in range(35)),
        *(
            {"name": f"heron-{number}", "body": "the heron at the lake", "project": "infra"}
            for number in range(3)
        ),
        {"name": "nest-box", "body": "a nest box on the old oak"},
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def test_a_question_leaves_out_the_words_most_memories_hold(lake, find, monkeypatch):
    monkeypatch.setattr(search_module, "CANDIDATES", SMALL)
    found = find(QUESTION, limit=10)
    assert sorted(names(found)) == ["heron-0", "heron-1", "heron-2", "nest-box"]
    assert found.count == 4
    assert found.capped  # the memories holding `the` alone are not counted
    assert {hit.matched_by for hit in found.hits} == {"word"}


def test_every_word_counts_when_the_budget_holds_them(lake, find, monkeypatch):
    monkeypatch.setattr(search_module, "CANDIDATES", EXHAUSTIVE)
    found = find(QUESTION, limit=50)
    assert found.count == 41
    assert not found.capped
    assert set(names(found)[:4]) == {"heron-0", "heron-1", "heron-2", "nest-box"}


def test_a_question_weighs_at_most_its_best_by_relevance(lake, find, monkeypatch):
    monkeypatch.setattr(search_module, "CANDIDATES", SMALL)
    assert len(find(QUESTION, limit=3).hits) == 3
    assert len(find(QUESTION, limit=10, offset=2).hits) == 2


def test_the_filters_never_lose_what_the_words_find(lake, find, monkeypatch):
    """In webdev no memory holds the rarer words: every word is matched there, as without
    the budget, rather than falling to a prefix retry or the whole-query scan."""
    monkeypatch.setattr(search_module, "CANDIDATES", SMALL)
    webdev = MemoryFilters(project="webdev")
    found = find(QUESTION, filters=webdev)
    assert sorted(names(found)) == ["note-0", "note-1"]
    assert {hit.matched_by for hit in found.hits} == {"word"}
    assert not found.last_resort
    monkeypatch.setattr(search_module, "CANDIDATES", EXHAUSTIVE)
    assert sorted(names(find(QUESTION, filters=webdev))) == ["note-0", "note-1"]


@pytest.mark.parametrize("mode", ["words", "hybrid"])
def test_a_question_within_the_budget_ranks_as_before(lake, find, monkeypatch, mode):
    monkeypatch.setattr(search_module, "CANDIDATES", EXHAUSTIVE)
    exhaustive = find("heron nest", mode=mode).hits
    monkeypatch.setattr(search_module, "CANDIDATES", SMALL)
    bounded = find("heron nest", mode=mode).hits
    assert [h.memory.name for h in bounded] == [h.memory.name for h in exhaustive]
    assert [h.score for h in bounded] == pytest.approx([h.score for h in exhaustive])


def test_a_question_of_common_words_ranks_their_newest_matches(lake, find, monkeypatch):
    """Every word of `the path` is held by more memories than the budget: the rarer is kept,
    and only its newest matches, as many as the budget, are ranked."""
    monkeypatch.setattr(search_module, "CANDIDATES", SMALL)
    found = find("the path", limit=50)
    assert found.capped and found.count == SMALL.words_budget
    assert sorted(names(found)) == sorted(f"walk-{number}" for number in range(23, 35))
    within = find("the path", limit=50, filters=MemoryFilters(project=None))
    assert within.capped and len(within.hits) == SMALL.words_budget


def test_the_newest_matches_are_found_however_old_they_are(db, find, monkeypatch):
    """Every memory holding `path` is older than the 60 after it: the newest ids, where a
    word's newest matches are first looked for, hold none, and its newest twelve are still
    the ones ranked."""
    restore(
        *({"name": f"walk-{number}", "body": "the path by the shore"} for number in range(35)),
        *({"name": f"swim-{number}", "body": "a swim in the sea"} for number in range(60)),
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    monkeypatch.setattr(search_module, "CANDIDATES", SMALL)
    found = find("the path", limit=50)
    assert found.capped
    assert sorted(names(found)) == sorted(f"walk-{number}" for number in range(23, 35))
