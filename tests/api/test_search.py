"""GET /v1/memories with q=: ranked search through memories.search, filters alike."""

from memories.models import Memory


def test_q_ranks_hits_with_score_and_matched_by(api, write):
    write("ship-nightly", description="Shipping runs nightly", body="Deploys go to host-7.")
    write("lunch", description="Unrelated note about lunch")
    response = api.get("/v1/memories", q="shipped")
    assert response.status_code == 200
    data = response.json()
    assert [hit["name"] for hit in data["memories"]] == ["ship-nightly"]
    hit = data["memories"][0]
    assert hit["matched_by"] == "word"
    assert isinstance(hit["score"], float) and hit["score"] > 0
    assert hit["body"] == "Deploys go to host-7."
    assert (data["count"], data["last_resort"], data["capped"]) == (1, False, False)
    assert data["summary"] == "1 memory matching ‘shipped’, best first"


def test_repeated_q_is_one_search_over_synonyms(api, write):
    write("terse", description="Prefers terse replies")
    write("brevity", description="Values brevity in reviews")
    write("verbose", description="Long answers are fine for specs")
    words = api.get("/v1/memories", q=["terse", "brevity"], mode="words").json()
    assert {hit["name"] for hit in words["memories"]} == {"terse", "brevity"}
    assert words["count"] == 2
    # The default mode adds what is near in meaning: all-MiniLM-L6-v2 puts "terse" 0.24 near
    # "Long answers are fine for specs", on the same topic, and says it guessed.
    data = api.get("/v1/memories", q=["terse", "brevity"]).json()
    found = {hit["name"]: hit["matched_by"] for hit in data["memories"]}
    assert {"terse", "brevity"} <= set(found) and found["terse"] != "semantic"
    assert all(sense == "semantic" for name, sense in found.items() if name == "verbose")


def test_q_says_which_sense_answered(api, write):
    write("pipeline", description="The deployment pipeline runs in CI")
    hit = api.get("/v1/memories", q="deploy").json()["memories"][0]
    assert hit["matched_by"] == "prefix"
    write("tokyo", description="Meeting notes", body="会議は東京で行います")
    scanned = api.get("/v1/memories", q="東京").json()["memories"][0]
    assert (scanned["name"], scanned["matched_by"], scanned["scanned_terms"]) == (
        "tokyo",
        "plain_text",
        ["東京"],
    )


def test_q_with_filters_limit_and_offset(api, write, project):
    for number in range(5):
        write(f"deploy-{number}", description=f"Deploy note {number}", tags=["infra"])
    write("deploy-webdev", project="webdev", description="Deploy note for webdev")
    assert api.get("/v1/memories", q="deploy", project="webdev").json()["count"] == 1
    tagged = api.get("/v1/memories", q="deploy", tag="infra", limit=2, offset=1).json()
    assert tagged["count"] == 5
    assert len(tagged["memories"]) == 2
    assert api.get("/v1/memories", q="deploy", project="nowhere").status_code == 404


def test_q_that_matches_nothing_is_an_empty_page(api, write):
    write("note", description="Nothing here")
    data = api.get("/v1/memories", q="zebra").json()
    assert (data["memories"], data["count"]) == ([], 0)


def test_fts_syntax_in_q_is_searched_for_not_obeyed(api, write):
    write("note", description="A note")
    for query in ['"', "NEAR(a b)", "body:x", "*", "a AND", "(((", "'; DROP TABLE x; --"]:
        response = api.get("/v1/memories", q=query)
        assert response.status_code == 200, query
    assert Memory.objects.count() == 1


def test_searching_never_counts_a_read(api, write):
    write("note", description="Deploy notes")
    api.get("/v1/memories", q="deploy")
    assert Memory.objects.get(name="note").read_count == 0
