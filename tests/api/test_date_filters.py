"""The date filters and changed_by on /v1/memories: the listing and a search narrowed, bad
values refused with one sentence, the parameters in the OpenAPI document."""

import pytest

from memories.reads.filters import DATES
from memories.writes import doors
from tests import conftest


@pytest.fixture
def dated(db):
    conftest.dated("deploy notes {name}")


@pytest.mark.parametrize("name", [name for name, _, _ in DATES])
def test_each_range_narrows_the_list_and_a_search(read_api, dated, name):
    recent = "fresh" if name != "expires" else "fresh"
    listed = read_api.get(
        "/v1/memories", **{f"{name}_{'until' if name == 'expires' else 'since'}": "7d"}
    )
    assert listed.status_code == 200
    assert [m["name"] for m in listed.json()["memories"]] == [recent]
    searched = read_api.get(
        "/v1/memories", q="deploy", mode="words", **{f"{name}_since": "2000-01-01"}
    )
    assert {m["name"] for m in searched.json()["memories"]} == {"fresh", "old"}


def test_a_bad_value_is_400_with_one_sentence(read_api, dated):
    response = read_api.get("/v1/memories", updated_since="yesterday")
    assert response.status_code == 400
    assert response.json() == {
        "error": "updated_since: a date (2026-11-24), an RFC 3339 moment "
        "(2026-11-24T15:00:00Z) or a period from now (7d) is expected, not 'yesterday'.",
        "field": "updated_since",
    }


def test_changed_by_narrows_to_what_a_token_wrote(api, read_api, db):
    doors.write("direct", description="written past the API")
    api("PUT", "/v1/memories/by-api", {"description": "written through the API"})
    listed = read_api.get("/v1/memories", changed_by="otto").json()["memories"]
    assert [m["name"] for m in listed] == ["by-api"]


def test_the_document_lists_every_range(anonymous):
    document = anonymous.get("/v1/openapi.json").json()
    names = {p["name"] for p in document["paths"]["/v1/memories"]["get"]["parameters"]}
    for name, _, _ in DATES:
        assert {f"{name}_since", f"{name}_until"} <= names
    assert "changed_by" in names
