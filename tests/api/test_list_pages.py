"""/v1/memories as the list page reads the store: its sorts, and `next`/`previous` pages by a
row's cursor, so that a script can walk every memory."""

import pytest

from memories.reads.find import SORT_WORDS
from memories.reads.listing import SORTS
from memories.writes import doors
from tests.conftest import restore


def _walk(api, url: str) -> tuple[list[str], int]:
    names, pages = [], 0
    while url:
        response = api.get(url)
        assert response.status_code == 200, response.json()
        data = response.json()
        names += [m["name"] for m in data["memories"]]
        url, pages = data["next"], pages + 1
    return names, pages


def test_next_walks_every_memory_once_in_index_order(api, db):
    restore(*({"name": f"m{n:03d}", "priority": n % 7} for n in range(123)))
    every = api.get("/v1/memories", limit=500).json()
    names, pages = _walk(api, "/v1/memories?limit=20")
    assert pages == 7
    assert names == [m["name"] for m in every["memories"]]
    assert len(set(names)) == every["count"] == 123


def test_a_walk_holds_while_memories_are_written_before_it(api, write):
    for n in range(6):
        write(f"m{n}", priority=n)
    first = api.get("/v1/memories", limit=3).json()
    assert [m["name"] for m in first["memories"]] == ["m0", "m1", "m2"]
    write("urgent", priority=0)  # lands on the first page, which the walk has left
    second = api.get(first["next"]).json()
    assert [m["name"] for m in second["memories"]] == ["m3", "m4", "m5"]
    assert second["next"] is None
    back = api.get(second["previous"]).json()
    assert [m["name"] for m in back["memories"]] == ["m0", "m1", "m2"]
    assert back["previous"] is not None  # the new memory, before them


def test_previous_goes_back_a_page(api, write):
    for n in range(7):
        write(f"m{n}", priority=n)
    first = api.get("/v1/memories", limit=3).json()
    assert first["previous"] is None
    second = api.get(first["next"]).json()
    back = api.get(second["previous"]).json()
    assert [m["name"] for m in back["memories"]] == ["m0", "m1", "m2"]
    assert back["previous"] is None and back["next"] is not None


def test_the_links_keep_the_filters_and_the_sort(api, write):
    for n in range(5):
        write(f"t{n}", tags=["ops"], priority=9 - n)
    write("untagged")
    first = api.get("/v1/memories", tag="ops", sort="name", limit=2).json()
    assert "tag=ops" in first["next"] and "sort=name" in first["next"]
    names, _ = _walk(api, first["next"])
    assert [m["name"] for m in first["memories"]] + names == [f"t{n}" for n in range(5)]


def test_an_offset_page_gives_a_cursor_to_go_on_from(api, write):
    for n in range(6):
        write(f"m{n}", priority=n)
    data = api.get("/v1/memories", limit=2, offset=2).json()
    assert [m["name"] for m in data["memories"]] == ["m2", "m3"]
    assert "offset" not in data["next"]
    assert [m["name"] for m in api.get(data["next"]).json()["memories"]] == ["m4", "m5"]


def test_a_search_pages_by_offset(api, write):
    for n in range(5):
        write(f"deploy-{n}", description=f"deploy step {n}")
    first = api.get("/v1/memories", q="deploy", mode="words", limit=2).json()
    assert first["count"] == 5 and first["previous"] is None
    assert "offset=2" in first["next"] and "q=deploy" in first["next"]
    second = api.get(first["next"]).json()
    assert "offset" not in second["previous"]
    names, _ = _walk(api, first["next"])
    assert len(set([m["name"] for m in first["memories"]] + names)) == 5


@pytest.mark.parametrize("sort", list(SORTS))
def test_every_sort_of_the_list_page_is_served_and_walked(api, write, sort):
    for n, name in enumerate(["delta", "alpha", "charlie", "bravo", "echo"]):
        write(name, priority=n % 3, expires="2099-01-0" + str(n + 1) if n % 2 else None)
    api("POST", "/v1/memories/charlie/read")
    whole = api.get("/v1/memories", sort=sort).json()
    assert whole["summary"].endswith("sorted by " + SORT_WORDS[sort]) or sort == "index"
    names, _ = _walk(api, f"/v1/memories?sort={sort}&limit=2")
    assert names == [m["name"] for m in whole["memories"]]


def test_sort_by_name_and_read_count(api, write):
    for name in ["delta", "alpha", "charlie"]:
        write(name)
    doors.read("charlie")
    by_name = api.get("/v1/memories", sort="-name").json()
    assert [m["name"] for m in by_name["memories"]] == ["delta", "charlie", "alpha"]
    assert by_name["summary"] == "3 memories, sorted by name, Z to A"
    most_read = api.get("/v1/memories", sort="-read_count").json()
    assert most_read["memories"][0]["name"] == "charlie"


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ({"sort": "bogus"}, "sort: sort is one of index, name, -name"),
        ({"after": "garbage"}, "That page link is not valid"),
        ({"after": "W1sxXV0"}, "That page link is not valid"),
        ({"before": "garbage"}, "That page link is not valid"),
        ({"after": "x", "before": "y"}, "not both"),
        ({"after": "x", "q": "deploy"}, "A search pages by offset"),
        ({"after": "x", "offset": "3"}, "at an offset or after (before) a row, not both"),
    ],
)
def test_a_bad_sort_or_cursor_is_400_with_a_sentence(api, write, query, words):
    write("tz")
    response = api.get("/v1/memories", **query)
    assert response.status_code == 400
    assert words in response.json()["error"]


@pytest.mark.parametrize("parameter", ["after", "before"])
def test_a_bad_cursor_names_its_parameter(api, parameter):
    error = api.get("/v1/memories", **{parameter: "garbage"}).json()
    assert error["field"] == parameter
    assert f"its {parameter}= is no cursor this list gives" in error["error"]


def test_the_document_offers_the_page_sorts_and_cursors(api):
    listing = api.get("/v1/openapi.json").json()["paths"]["/v1/memories"]["get"]
    parameters = {p["name"]: p for p in listing["parameters"]}
    assert parameters["sort"]["schema"]["enum"] == ["", *SORTS]
    assert "-read_count: read count, most read first" in parameters["sort"]["description"]
    assert {"after", "before"} <= set(parameters)
