"""The seed's ranking rules in the default mode, hybrid: two memories alike in all that ranks
(the same name, description and body, in two projects) score equal, and importance (priority
and reads) and freshness decide between them as in words mode; updated_at takes no part, and
a guess by meaning never brings junk for a word only one memory holds."""

import io

import pytest
from django.core.management import call_command
from django.utils import timezone

from memories.models import Memory
from memories.reads.filters import MemoryFilters
from memories.reads.find import Question, find
from tests.reads.search.conftest import days_ago, set_fields

DESCRIPTION = "Herons nest by the lake"


@pytest.fixture
def twins(write, project, other_project):
    """The same memory in webdev and in infra: only the tier tells them apart."""

    def _twins(**fields):
        return [
            write(
                "heron-rule", project=tier, description="Herons nest by the lake", **fields
            ).memory
            for tier in ("webdev", "infra")
        ]

    return _twins


def _asked(*queries):
    return find(Question(MemoryFilters(), tuple(queries)))


def _tiers(found):
    return [hit.memory.project_name for hit in found.hits]


@pytest.mark.parametrize("query", ["heron", "where do the herons nest", "lake birds"])
def test_twins_score_equal_and_the_newest_recorded_goes_first(twins, query):
    webdev, infra = twins()
    set_fields(webdev, created_at=days_ago(3))
    found = _asked(query)
    assert found.question.mode == "hybrid"
    assert found.hits[0].score == pytest.approx(found.hits[1].score)
    assert _tiers(found)[:2] == ["infra", "webdev"]


@pytest.mark.parametrize("query", ["heron", "where do the herons nest"])
def test_importance_and_reads_decide_between_twins(twins, query):
    webdev, infra = twins(priority=5)
    set_fields(webdev, created_at=days_ago(3))
    Memory.objects.filter(id=webdev.id).update(priority=2)
    assert _tiers(_asked(query))[:2] == ["webdev", "infra"]
    Memory.objects.filter(id=webdev.id).update(priority=5)
    Memory.objects.filter(id=webdev.id).update(read_count=40)
    assert _tiers(_asked(query))[:2] == ["webdev", "infra"]


def test_freshness_decides_between_twins_except_for_priorities_0_and_1(twins):
    webdev, infra = twins(priority=5)
    set_fields(webdev, created_at=days_ago(800), verified_at=days_ago(2))
    set_fields(infra, created_at=days_ago(700), verified_at=days_ago(700))
    assert _tiers(_asked("heron"))[:2] == ["webdev", "infra"]
    Memory.objects.filter(id__in=[webdev.id, infra.id]).update(priority=1)
    found = _asked("heron")
    assert found.hits[0].score == pytest.approx(found.hits[1].score)
    assert _tiers(found)[:2] == ["infra", "webdev"], "a tie: the newest recorded first"


def test_updated_at_takes_no_part(twins):
    webdev, infra = twins()
    set_fields(webdev, created_at=days_ago(3))
    Memory.objects.filter(id=webdev.id).update(updated_at=timezone.now())
    Memory.objects.filter(id=infra.id).update(updated_at=days_ago(400))
    found = _asked("heron")
    assert found.hits[0].score == pytest.approx(found.hits[1].score)


def test_a_word_one_memory_holds_brings_no_guess(write):
    write("zyxt-rule", description="The zyxtorial flag stays off")
    for number in range(8):
        write(f"note-{number}", description=f"An unrelated note about lunch number {number}")
    found = _asked("zyxtorial")
    assert [hit.memory.name for hit in found.hits] == ["zyxt-rule"]


@pytest.fixture
def chance_words(write):
    """A rule a question means without sharing a word with it, and notes that share one of
    its words by chance."""
    write(
        "deploy-runbook",
        description="Run the release on staging first, then promote it to production",
    )
    write("laptops", description="New hires get a laptop on their first day")
    write("style-guide", description="Each version of the style guide is named for its date")


def test_a_sentence_finds_the_rule_it_means_before_what_shares_a_word_by_chance(db):
    """Questions of the paraphrase set (bench/meaning) that share a word or two with other
    memories of the demo store, and lost their rule from the first five before
    search.SENTENCE_WORDS; the four it wins by most."""
    call_command("seed_demo", stdout=io.StringIO())
    for question, meant in [
        ("how do we ship to production", "deploy-runbook"),
        ("schedule pushing site updates", "release-train"),
        ("old Internet Explorer worth testing", "browser-support"),
        ("scraped web corpus permitted uses", "dataset-license"),
    ]:
        assert meant in [hit.memory.name for hit in _asked(question).hits[:5]], question


def test_a_query_of_a_word_or_two_ranks_by_its_words_first(chance_words):
    found = _asked("new version")
    assert [hit.memory.name for hit in found.hits][:2] in (
        ["laptops", "style-guide"],
        ["style-guide", "laptops"],
    )
