"""`GET /v1/memories?q=...&mode=hybrid|words|meaning`: each mode, and a guess told apart."""

import pytest

PARAPHRASE = "which server receives our releases"  # no word, nor a word's start, of deploy-host


@pytest.fixture
def store(write):
    write("deploy-host", description="Production deploys go to host-7 through the bastion")
    write("subtitles", description="Subtitles are delivered as SRT and TTML")


def test_hybrid_is_the_default_and_marks_a_hit_found_by_meaning(api, store):
    data = api.get("/v1/memories", q=PARAPHRASE).json()
    first = data["memories"][0]
    assert first["name"] == "deploy-host"
    assert first["matched_by"] == "semantic" and 0 < first["similarity"] <= 1
    assert data == api.get("/v1/memories", q=PARAPHRASE, mode="hybrid").json()


def test_words_find_nothing_and_meaning_finds_it(api, store):
    assert api.get("/v1/memories", q=PARAPHRASE, mode="words").json()["memories"] == []
    meaning = api.get("/v1/memories", q=PARAPHRASE, mode="meaning").json()
    assert meaning["memories"][0]["name"] == "deploy-host"
    assert {hit["matched_by"] for hit in meaning["memories"]} == {"semantic"}


def test_a_word_hit_keeps_its_sense_and_gains_its_similarity(api, store):
    (hit, *_) = api.get("/v1/memories", q="bastion").json()["memories"]
    assert (hit["name"], hit["matched_by"]) == ("deploy-host", "word")
    assert hit["similarity"] > 0
    words = api.get("/v1/memories", q="bastion", mode="words").json()["memories"]
    assert words[0]["similarity"] is None


def test_filters_narrow_a_search_by_meaning(api, store, write, project):
    write("web-host", project="webdev", description="Web deploys go to host-9 via the bastion")
    data = api.get("/v1/memories", q=PARAPHRASE, mode="meaning", project="webdev").json()
    assert [hit["name"] for hit in data["memories"]] == ["web-host"] and data["count"] == 1
    data = api.get("/v1/memories", q=PARAPHRASE, mode="meaning", project="").json()
    assert "web-host" not in [hit["name"] for hit in data["memories"]]


@pytest.mark.parametrize("mode", ["fuzzy", "semantic", "both"])
def test_any_other_mode_is_a_400_in_one_sentence(api, store, mode):
    response = api.get("/v1/memories", q="deploy", mode=mode)
    assert response.status_code == 400
    assert response.json()["error"] == "mode: mode is hybrid, words or meaning."


def test_the_openapi_document_lists_the_modes_and_the_semantic_sense(api):
    document = api.get("/v1/openapi.json").json()
    (mode,) = [
        p for p in document["paths"]["/v1/memories"]["get"]["parameters"] if p["name"] == "mode"
    ]
    assert mode["schema"]["enum"] == ["", "hybrid", "words", "meaning"]  # empty: the default
    hit = document["components"]["schemas"]["SearchHit"]["properties"]
    assert "semantic" in hit["matched_by"]["enum"] and "similarity" in hit


@pytest.mark.parametrize("mode", ["hybrid", "meaning"])
def test_a_query_of_punctuation_alone_is_guessed_at_by_nothing(api, store, write, mode):
    write("separators", description="Fields are split by ; or , and end with . ! or ?")
    asked = api.get("/v1/memories", q="?!.,;:", mode=mode)
    assert asked.status_code == 200
    assert [hit["matched_by"] for hit in asked.json()["memories"]].count("semantic") == 0
    # The same marks beside a word are meant: the word is encoded with them.
    meant = api.get("/v1/memories", q="separators? ;", mode="meaning").json()["memories"]
    assert meant and meant[0]["name"] == "separators"
