"""/v1/graph, /v1/memories/{name}/graph and /v1/hygiene: the insight reads as JSON."""

import pytest

from memories.reads.filters import MemoryFilters
from memories.reads.graph import store_graph
from tests.conftest import backdate


@pytest.fixture
def store(write, project, other_project):
    write("deploy-host", load="inline", body="host-7")
    write("runbook", references=["deploy-host", "https://wiki.example.com/x", "write-me"])
    write("stack", project="webdev", references=["deploy-host"], tags=["infra"])
    write("shared", project="webdev")
    write("shared", project="infra")
    backdate(write("old", description="Alice works in Berlin").memory, days=200)
    write("old-copy", project="webdev", description="Alice works in Berlin")


ROUTES = ["/v1/graph", "/v1/memories/runbook/graph", "/v1/hygiene"]


@pytest.mark.parametrize("path", ROUTES)
def test_a_token_is_required(anonymous, store, path):
    response = anonymous.get(path)
    assert response.status_code == 401
    assert response.json()["error"].startswith("A valid API token is required")


@pytest.mark.parametrize("path", ROUTES)
def test_only_get(read_api, store, path):
    response = read_api("POST", path, {})
    assert response.status_code == 405 and response["Allow"] == "GET, HEAD"


def test_store_graph_is_the_selectors(read_api, store):
    response = read_api.get("/v1/graph")
    assert response.status_code == 200
    data = response.json()
    assert data == store_graph().to_dict()
    kinds = {node["label"]: node["kind"] for node in data["nodes"]}
    assert kinds["write-me"] == "name" and kinds["https://wiki.example.com/x"] == "url"
    assert any(edge["cross_tier"] for edge in data["edges"])
    assert data["isolated"] == 4 and data["capped"] is False


def test_store_graph_filters_and_cap(read_api, store):
    data = read_api.get("/v1/graph", project="webdev").json()
    assert data == store_graph(MemoryFilters(project="webdev")).to_dict()
    assert {n["label"] for n in data["nodes"]} == {"stack", "deploy-host"}
    capped = read_api.get("/v1/graph", limit=2).json()
    assert capped["shown_nodes"] == 2 and capped["capped"] is True
    assert capped["summary"].startswith("Showing 2 of 5 nodes")
    tagged = read_api.get("/v1/graph", tag="infra").json()
    assert {n["label"] for n in tagged["nodes"]} == {"stack", "deploy-host"}


def test_hygiene_of_a_scope_beyond_a_tier_says_where_it_stops(read_api, tagged_ops):
    data = read_api.get("/v1/hygiene", tag="ops").json()
    assert (data["orphans"]["count"], data["orphans"]["more"]) == (3, True)
    assert data["dangling"]["drawn_from"] == "the newest 2 memories of the scope"
    assert data["dangling"]["more"] is False
    whole = read_api.get("/v1/hygiene").json()
    assert (whole["orphans"]["more"], whole["dangling"]["drawn_from"]) == (False, None)


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"limit": "0"}, "limit"),
        ({"limit": "10001"}, "limit"),
        ({"expired": "maybe"}, "expired"),
        ({"q": "deploy"}, "q"),  # the graph takes no search: an unknown parameter here
        ({"project": "bad name"}, "project"),
    ],
)
def test_store_graph_refuses_bad_parameters(read_api, store, query, field):
    response = read_api.get("/v1/graph", **query)
    assert response.status_code == 400
    assert response.json().get("field") == field


def test_store_graph_of_an_unknown_project(read_api, store):
    response = read_api.get("/v1/graph", project="nope")
    assert response.status_code == 404
    assert response.json()["error"] == "There is no project named 'nope'."


def test_memory_graph(read_api, store):
    data = read_api.get("/v1/memories/deploy-host/graph", depth=2).json()
    depths = {node["label"]: node["depth"] for node in data["nodes"]}
    assert depths["deploy-host"] == 0 and depths["runbook"] == 1 and depths["write-me"] == 2
    assert data["centre"] == data["nodes"][0]["id"] and data["depth"] == 2


def test_memory_graph_refusals(read_api, store):
    assert read_api.get("/v1/memories/nope/graph").status_code == 404
    ambiguous = read_api.get("/v1/memories/shared/graph")
    assert ambiguous.status_code == 409 and ambiguous.json()["projects"] == ["infra", "webdev"]
    assert read_api.get("/v1/memories/shared/graph", project="infra").status_code == 200
    bad = read_api.get("/v1/memories/runbook/graph", depth=4)
    assert bad.status_code == 400 and bad.json()["field"] == "depth"


def test_hygiene_report(read_api, store):
    data = read_api.get("/v1/hygiene").json()
    assert data["period"] == "90d"
    assert [item["target"] for item in data["dangling"]["items"]] == [
        "https://wiki.example.com/x",
        "write-me",
    ]
    assert data["dangling"]["items"][0]["citing"] == [
        {"name": "runbook", "project": None, "description": "about runbook"}
    ]
    assert data["shadows"]["items"] == [
        {
            "memory": {
                "name": "old-copy",
                "project": "webdev",
                "description": "Alice works in Berlin",
            },
            "shadows": {"name": "old", "project": None, "description": "Alice works in Berlin"},
            "ratio": 1.0,
        }
    ]
    assert [m["name"] for m in data["unverified"]["items"]] == ["old"]
    assert data["duplicates"]["count"] == 1
    assert {m["name"] for m in data["orphans"]["items"]} >= {"old", "old-copy"}


def test_hygiene_one_section_paged(read_api, store):
    data = read_api.get("/v1/hygiene", section="dangling", limit=1, offset=1).json()
    assert set(data) == {"period", "dangling"}
    assert data["dangling"]["count"] == 2 and data["dangling"]["offset"] == 1
    assert [item["target"] for item in data["dangling"]["items"]] == ["write-me"]
    queue = read_api.get("/v1/hygiene", section="unverified", unverified="365d").json()
    assert queue["period"] == "365d" and queue["unverified"]["count"] == 0


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"section": "everything"}, "section"),
        ({"offset": "5"}, "offset"),
        ({"unverified": "soon"}, "unverified"),
        ({"limit": "501"}, "limit"),
    ],
)
def test_hygiene_refuses_bad_parameters(read_api, store, query, field):
    response = read_api.get("/v1/hygiene", **query)
    assert response.status_code == 400 and response.json()["field"] == field


def test_the_openapi_document_describes_the_audit_routes(anonymous):
    document = anonymous.get("/v1/openapi.json").json()
    for path in ("/v1/graph", "/v1/memories/{name}/graph", "/v1/hygiene"):
        assert "get" in document["paths"][path]
    assert {"Graph", "GraphNode", "GraphEdge", "Hygiene"} <= set(document["components"]["schemas"])
