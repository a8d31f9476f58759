"""Hostile search input through /v1: a 400 with one sentence, or a bounded search; never a
500. Punctuation alone is scanned for among the newest memories, a query past its length is
refused, NUL is a space, and a query of many words or terms is searched for by its first
MAX_QUERY_TERMS."""

import pytest

from memories.reads import search as search_module
from memories.rules.fields import MAX_QUERIES, MAX_QUERY_CHARS, MAX_QUERY_TERMS

MODES = ["hybrid", "words", "meaning"]


@pytest.fixture
def store(write):
    write("heron-rule", description="Herons nest by the lake", body="The heron at the lake.")
    write("deploy-host", description="Production deploys go to host-7 through the bastion")
    write("tokyo-office", description="東京オフィスの会議室は三階にあります")


def _search(api, mode, **query) -> dict:
    response = api.get("/v1/memories", mode=mode, **query)
    assert response.status_code == 200, response.content
    return response.json()


def _refusal(api, **query) -> str:
    response = api.get("/v1/memories", **query)
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error.count(".") == 1 and error.endswith("."), error  # one sentence
    return error


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("text", ["?!.,;:", "--- ... !!!", "(((( ))))", "\"'`", "%_\\*"])
def test_punctuation_alone_is_a_search(api, store, mode, text):
    data = _search(api, mode, q=text)
    assert isinstance(data["count"], int)
    if mode == "words":
        assert (data["memories"], data["count"], data["last_resort"]) == ([], 0, False)


def test_punctuation_alone_is_scanned_for_among_the_newest(api, store, write, monkeypatch):
    """The whole-query scan of a query holding no word: found as text, among the newest
    PUNCTUATION_SCANNED memories alone, and `capped` says the scan stopped there."""
    write("old-ratio", description="Keep the ratio at 50% -> 60%")
    write("new-ratio", description="Move the ratio -> 70%")
    data = _search(api, "words", q="->")
    assert [hit["name"] for hit in data["memories"]] == ["new-ratio", "old-ratio"]
    assert (data["last_resort"], data["capped"]) == (True, False)
    monkeypatch.setattr(search_module, "PUNCTUATION_SCANNED", 1)
    data = _search(api, "words", q="->")
    assert [hit["name"] for hit in data["memories"]] == ["new-ratio"]
    assert (data["last_resort"], data["capped"]) == (True, True)


def test_punctuation_beside_a_word_is_the_word(api, store):
    data = _search(api, "words", q="?! heron !!!")
    assert [hit["name"] for hit in data["memories"]] == ["heron-rule"]


@pytest.mark.parametrize("length", [MAX_QUERY_CHARS + 1, 10_000])
def test_a_query_past_its_length_is_refused_in_one_sentence(api, store, length):
    assert str(MAX_QUERY_CHARS) in _refusal(api, q="heron " * (length // 6) + "x" * (length % 6))


def test_too_many_synonyms_are_refused_in_one_sentence(api, store):
    assert str(MAX_QUERIES) in _refusal(api, q=["heron"] * (MAX_QUERIES + 1))


@pytest.mark.parametrize("mode", MODES)
def test_nul_is_read_as_a_space(api, store, mode):
    data = _search(api, mode, q="heron\x00lake")
    assert data["memories"][0]["name"] == "heron-rule"
    assert _search(api, mode, q="\x00\x00\x00")["memories"] == []


@pytest.mark.parametrize("mode", MODES)
def test_many_terms_are_searched_for_by_the_first(api, store, mode):
    """As many terms as 500 characters hold: the first MAX_QUERY_TERMS are searched for, so
    a word past them finds nothing by words."""
    filler = [f"zq{n}" for n in range(MAX_QUERY_CHARS // 2)]
    first = _search(api, mode, q=" ".join(["heron", *filler])[:MAX_QUERY_CHARS])
    if mode != "meaning":
        assert first["memories"][0]["name"] == "heron-rule"
    late = _search(api, mode, q=" ".join([*filler[:MAX_QUERY_TERMS], "heron"]))
    assert "word" not in {hit["matched_by"] for hit in late["memories"]}


@pytest.mark.parametrize("mode", MODES)
def test_many_synonyms_of_many_words_are_a_bounded_search(api, store, mode):
    words = [f"w{n}x" for n in range(120)]
    queries = [" ".join(words[n : n + 40])[:MAX_QUERY_CHARS] for n in range(0, 80, 4)]
    data = _search(api, mode, q=[*queries[: MAX_QUERIES - 1], "heron lake"])
    assert "heron-rule" in [hit["name"] for hit in data["memories"]]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "text",
    [
        "heron 東京 lake",
        "東京heron",
        "Ηρων héron ЦАПЛЯ 鷺 نورس",
        "deploy-host/東京/../..",
        "\u200b\u200bheron\u200b",
        "\ufeffheron",
        "h\u0301eron",
        "😀 heron 🐦",
    ],
)
def test_mixed_scripts_are_a_search(api, store, mode, text):
    data = _search(api, mode, q=text)
    assert isinstance(data["count"], int)
