"""Search by words, by meaning and both: what each mode finds and how a guess is told apart."""

import pytest

from memories.reads.filters import MemoryFilterForm, MemoryFilters
from memories.reads.search import MEANING_FLOOR, RRF_K, SEMANTIC, WORDS_SHARE, _ranks

PARAPHRASE = "which server receives prod releases"  # no word of deploy-host


@pytest.fixture
def store(write, project):
    write(
        "deploy-host",
        description="Production deploys go to host-7 through the bastion",
        body="Deploys go to host-7.internal via the bastion at bastion-2.",
        priority=2,
    )
    write("subtitles", description="Subtitles are delivered as SRT and TTML")
    write("gpu-quota", description="The lab's GPU quota resets on the first of the month")
    write(
        "web-host",
        project="webdev",
        description="Production deploys of the web app go to host-9 through the bastion",
    )
    write("old-host", description="Production deploys went to host-3", expires="2001-01-01")


def _names(result):
    return [hit.memory.name for hit in result.hits]


def test_words_alone_find_a_paraphrase_only_by_a_shared_start(find, store):
    # No word of the question is in them: `prod` is the start of `Production`.
    hits = find(PARAPHRASE, mode="words").hits
    assert {hit.memory.name for hit in hits} <= {"deploy-host", "web-host", "old-host"}
    assert all(hit.matched_by == "prefix" for hit in hits)


def test_meaning_finds_it_and_says_it_guessed(find, store):
    result = find(PARAPHRASE, mode="meaning")
    first = result.hits[0]
    assert first.memory.name in {"deploy-host", "web-host", "old-host"}
    assert {"deploy-host", "web-host", "old-host"} <= set(_names(result)[:3])
    assert all(hit.matched_by == SEMANTIC for hit in result.hits)
    assert all(hit.similarity >= MEANING_FLOOR for hit in result.hits)
    data = first.to_dict()
    assert data["matched_by"] == "semantic" and data["similarity"] == round(first.similarity, 4)
    assert result.count == len(result.hits) and not result.last_resort


def test_hybrid_finds_the_paraphrase_as_a_semantic_hit(find, store):
    result = find(PARAPHRASE, mode="hybrid")
    assert _names(result)[0] in {"deploy-host", "web-host", "old-host"}
    assert result.hits[0].matched_by in {"prefix", SEMANTIC}


def test_hybrid_fuses_the_ranks_of_words_and_meaning(find, store, write):
    # A guess near "production" without the word (all-MiniLM-L6-v2: 0.20); the GPU quota is
    # 0.13 near it, below the floor.
    write("release-train", description="Web releases ship live on Tuesdays and Thursdays")
    words = find("production", mode="words")
    meaning = find("production", mode="meaning")
    hybrid = find("production", mode="hybrid")
    word_rank = _ranks({hit.memory.name: hit.score for hit in words.hits})
    meaning_rank = _ranks({hit.memory.name: hit.score for hit in meaning.hits})
    for hit in hybrid.hits:
        name = hit.memory.name
        expected = (1 - WORDS_SHARE) / (RRF_K + meaning_rank[name]) if name in meaning_rank else 0
        if hit.matched_by == SEMANTIC:
            assert hit.similarity >= MEANING_FLOOR and name not in word_rank
        else:
            expected += WORDS_SHARE / (RRF_K + word_rank[name])
        assert hit.score == pytest.approx(expected)
    assert set(word_rank) <= {hit.memory.name for hit in hybrid.hits}
    scores = [hit.score for hit in hybrid.hits]
    assert scores == sorted(scores, reverse=True)
    assert hybrid.count == words.count + sum(h.matched_by == SEMANTIC for h in hybrid.hits)
    guesses = [hit.memory.name for hit in hybrid.hits if hit.matched_by == SEMANTIC]
    assert "release-train" in guesses and "gpu-quota" not in guesses


def test_filters_narrow_meaning_exactly_as_they_narrow_words(find, store):
    in_webdev = find(PARAPHRASE, mode="meaning", filters=MemoryFilters(project="webdev"))
    assert _names(in_webdev) == ["web-host"]
    global_only = find(PARAPHRASE, mode="meaning", filters=MemoryFilters(project=None))
    assert "web-host" not in _names(global_only) and "deploy-host" in _names(global_only)
    live = find(PARAPHRASE, mode="hybrid", filters=MemoryFilters(expired=False))
    assert "old-host" not in _names(live)


def test_an_expired_memory_stays_found_by_meaning_and_marked(find, store):
    result = find(PARAPHRASE, mode="meaning")
    (old,) = [hit for hit in result.hits if hit.memory.name == "old-host"]
    assert old.to_dict()["expired"] is True


def test_synonyms_by_meaning_take_each_memory_at_its_nearest(find, store):
    alone = find("caption files", mode="meaning")
    both = find("caption files", PARAPHRASE, mode="meaning")
    assert "subtitles" in _names(both) and "deploy-host" in _names(both)
    assert len(set(_names(both))) == len(both.hits)
    assert set(_names(alone)) <= set(_names(both))


def test_meaning_pages_by_offset(find, store):
    everything = _names(find(PARAPHRASE, mode="meaning"))
    assert _names(find(PARAPHRASE, mode="meaning", limit=2, offset=1)) == everything[1:3]


def test_words_mode_is_the_search_it_always_was(find, store):
    assert all(hit.similarity is None for hit in find("bastion", mode="words").hits)


@pytest.mark.parametrize("mode", ["", "hybrid", "words", "meaning"])
def test_the_filter_form_reads_the_mode(mode):
    form = MemoryFilterForm({"q": "x", "mode": mode})
    assert form.is_valid()
    assert form.cleaned_data["mode"] == (mode or "hybrid")


# Exactly the document's enum: no other spelling either (it would disagree with the schema).
@pytest.mark.parametrize("mode", ["fuzzy", "semantic", "both", "HYBRID", " words"])
def test_any_other_mode_is_refused_in_one_sentence(mode):
    form = MemoryFilterForm({"q": "x", "mode": mode})
    assert not form.is_valid()
    assert form.errors["mode"] == ["mode is hybrid, words or meaning."]
