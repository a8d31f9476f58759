"""/v1/hygiene/consolidation: the consolidation plan as JSON, and applying it with a write token."""

import pytest

from memories.models import ChangeSet, Memory, Revision
from tests.conftest import write_duplicates, write_to_review


@pytest.fixture
def store(db, project):
    write_duplicates()


PATH = "/v1/hygiene/consolidation"


def test_the_plan_shape(read_api, store):
    response = read_api.get(PATH)
    assert response.status_code == 200
    data = response.json()
    assert set(data) == {"count", "limit", "clusters"}
    assert data["count"] == 2 and data["limit"] == 50
    by_survivor = {c["survivor"]["name"]: c for c in data["clusters"]}
    near = by_survivor["deploy-night"]
    assert set(near) == {
        "key",
        "kind",
        "similarity",
        "survivor",
        "sources",
        "merged",
        "repoint",
        "review",
    }
    assert near["kind"] == "near" and near["survivor"]["project"] is None
    assert [s["name"] for s in near["sources"]] == ["nightly-deploy"]
    assert near["merged"] == {
        "tags": ["ops", "deploy"],
        "references": ["runbook", "https://ci.example/deploy"],
    }
    assert near["repoint"] == [
        {
            "name": "cite-it",
            "project": None,
            "version": near["repoint"][0]["version"],
            "references": ["deploy-night", "tz"],
        }
    ]
    assert by_survivor["copy-b"]["kind"] == "exact"
    assert by_survivor["copy-b"]["survivor"]["project"] == "webdev"


def test_one_tier(read_api, store):
    assert [
        c["survivor"]["name"] for c in read_api.get(PATH, project="webdev").json()["clusters"]
    ] == ["copy-b"]
    assert read_api.get(PATH, project="").json()["count"] == 1


@pytest.mark.parametrize(
    "query, status",
    [
        ({"project": "nowhere"}, 404),
        ({"project": "bad name!"}, 400),
        ({"limit": "0"}, 400),
        ({"limit": "x"}, 400),
        ({"limit": "501"}, 400),
    ],
)
def test_bad_parameters(read_api, store, query, status):
    response = read_api.get(PATH, **query)
    assert response.status_code == status
    assert response.json()["error"]


def test_applying_needs_a_write_token(read_api, anonymous, store):
    key = read_api.get(PATH).json()["clusters"][0]["key"]
    assert anonymous("POST", PATH, {"clusters": [key]}).status_code == 401
    assert read_api("POST", PATH, {"clusters": [key]}).status_code == 403
    assert Memory.objects.count() == 8


def test_apply_the_whole_plan_then_undo_a_cluster(api, store):
    keys = [c["key"] for c in api.get(PATH).json()["clusters"]]
    response = api("POST", PATH, {"clusters": keys})
    assert response.status_code == 200
    receipt = response.json()
    assert {k: receipt[k] for k in ("planned", "applied", "refused", "skipped")} == {
        "planned": 2,
        "applied": 2,
        "refused": 0,
        "skipped": 0,
    }
    assert not Memory.objects.filter(name__in=["nightly-deploy", "copy-a"]).exists()
    assert Memory.objects.get(name="cite-it").references == ["deploy-night", "tz"]
    change_set = ChangeSet.objects.get(id=receipt["clusters"][0]["change_set"])
    assert change_set.door == "api"
    assert set(Revision.objects.filter(change_set=change_set).values_list("door", flat=True)) == {
        "api"
    }
    again = api("POST", PATH, {"clusters": keys}).json()
    assert (again["applied"], again["skipped"]) == (0, 2)


def test_a_stale_cluster_is_refused(api, store):
    key = next(c["key"] for c in api.get(PATH).json()["clusters"] if c["kind"] == "near")
    api("PUT", "/v1/memories/deploy-night", {"priority": 1})
    receipt = api("POST", PATH, {"clusters": [key]}).json()
    assert (receipt["applied"], receipt["refused"]) == (0, 1)
    assert "Changed since the plan was drawn" in receipt["clusters"][0]["reason"]
    assert Memory.objects.filter(name="nightly-deploy").exists()


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"clusters": []},
        {"clusters": "1.1-2.2-"},
        {"clusters": ["x"]},
        {"other": 1},
        {"clusters": ["1.1-2.2-"], "reviewed": "yes"},
    ],
)
def test_bad_bodies(api, store, body):
    response = api("POST", PATH, body)
    assert response.status_code == 400
    assert response.json()["error"]


def test_the_plan_says_which_members_one_click_trashes_and_which_need_review(api, store):
    write_to_review()
    near = next(
        c for c in api.get(PATH).json()["clusters"] if c["survivor"]["name"] == "deploy-night"
    )
    assert [m["name"] for m in near["sources"]] == ["nightly-deploy"]
    (review,) = near["review"]
    assert review["memory"]["name"] == "deploy-at-two"
    assert review["differences"]["tags"] == {"survivor": [], "member": ["night"]}
    refused = api("POST", PATH, {"clusters": [review["key"]]}).json()
    assert refused["refused"] == 1 and "merge by hand" in refused["clusters"][0]["reason"]
    merged = api("POST", PATH, {"clusters": [review["key"]], "reviewed": True}).json()
    assert merged["applied"] == 1
    assert not Memory.objects.filter(name="deploy-at-two").exists()
    assert Memory.objects.filter(name="nightly-deploy").exists()  # not named by that key
