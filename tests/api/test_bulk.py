"""POST /v1/bulk: the list page's bulk actions over /v1, on memories named or on every
memory the query's filters match; all or nothing, one change set."""

import pytest

from memadmin.accounts import tokens
from memadmin.accounts.roles import OPERATOR
from memories.models import ChangeSet, Memory, Revision, TrashedMemory
from memories.writes import bulk
from tests.api.conftest import Api, make_user


@pytest.fixture
def store(write, project):
    write("alpha", priority=5, tags=["infra"])
    write("beta", priority=7, tags=["infra", "db"])
    write("gamma", priority=9, tags=["ui"], references=["alpha"])
    write("notes", project="webdev", priority=3, tags=["infra"])


def _state() -> dict:
    return {
        (m.name, m.project_name): (m.priority, m.load, m.tags)
        for m in Memory.objects.select_related("project")
    }


def test_set_priority_on_named_memories_records_one_change_set(store, api):
    response = api(
        "POST",
        "/v1/bulk",
        {
            "action": "set_priority",
            "priority": 7,
            "memories": ["alpha", {"name": "beta"}, {"name": "notes", "project": "webdev"}],
            "reason": "rebalance",
        },
    )
    assert response.status_code == 200
    data = response.json()
    assert data["changed"] == 2
    assert sorted((m["name"], m["priority"]) for m in data["memories"]) == [
        ("alpha", 7),
        ("notes", 7),
    ]
    assert data["unchanged"] == [{"name": "beta", "project": None}]
    assert (data["deleted"], data["missing"]) == ([], 0)
    change_set = data["change_set"]
    assert change_set["summary"] == "Set priority 7 on 2 memories"
    assert (change_set["size"], change_set["user"], change_set["reason"]) == (
        2,
        "otto",
        "rebalance",
    )
    revisions = Revision.objects.filter(change_set_id=change_set["id"])
    assert {(r.name, r.reason, r.username) for r in revisions} == {
        ("alpha", "rebalance", "otto"),
        ("notes", "rebalance", "otto"),
    }


def test_every_memory_matching_the_lists_filters(store, api):
    response = api(
        "POST",
        "/v1/bulk",
        {"action": "add_tag", "tag": "reviewed", "matching": True},
        tag="infra",
        project="",
    )
    assert response.status_code == 200
    assert sorted(m["name"] for m in response.json()["memories"]) == ["alpha", "beta"]
    assert _state()[("notes", "webdev")][2] == ["infra"]
    assert _state()[("alpha", None)][2] == ["infra", "reviewed"]


def test_every_memory_a_search_finds(store, api, write):
    write("deploy-night", description="The deploy runs at night", priority=50)
    response = api(
        "POST",
        "/v1/bulk",
        {"action": "shift_priority", "shift": -60, "matching": True},
        q="deploy",
        mode="words",
    )
    assert response.status_code == 200
    assert [(m["name"], m["priority"]) for m in response.json()["memories"]] == [
        ("deploy-night", 0)
    ]


def test_each_action_through_its_door(store, api, other_project):
    def bulk(**body):
        response = api("POST", "/v1/bulk", {"memories": ["alpha", "beta"], **body})
        assert response.status_code == 200, response.json()
        return response.json()

    assert [m["load"] for m in bulk(action="set_load", load="search")["memories"]] == [
        "search",
        "search",
    ]
    assert bulk(action="remove_tag", tag="INFRA")["changed"] == 2
    assert _state()[("beta", None)][2] == ["db"]
    assert bulk(action="verify")["changed"] == 2
    moved = bulk(action="move", to="infra")["memories"]
    assert {m["project"] for m in moved} == {"infra"}
    back = api(
        "POST",
        "/v1/bulk",
        {"action": "move", "to": None, "memories": [{"name": "alpha", "project": "infra"}]},
    )
    assert back.json()["memories"][0]["project"] is None


def test_delete_names_who_still_cites_them_and_trashes_them(store, api):
    response = api("POST", "/v1/bulk", {"action": "delete", "memories": ["alpha", "beta"]})
    assert response.status_code == 200
    deleted = {d["deleted"]: d for d in response.json()["deleted"]}
    assert [b["name"] for b in deleted["alpha"]["referenced_by"]] == ["gamma"]
    assert deleted["beta"]["referenced_by"] == []
    assert TrashedMemory.objects.count() == 2
    assert response.json()["memories"] == []


def test_one_row_over_the_budget_refuses_the_whole_action(store, api, write, small_budget):
    write("big", body="x" * 60, load="index")
    write("bigger", body="y" * 60, load="index")
    write("biggest", body="z" * 60, load="index")
    before = _state()
    sets = ChangeSet.objects.count()
    response = api(
        "POST",
        "/v1/bulk",
        {"action": "set_load", "load": "inline", "memories": ["big", "bigger", "biggest"]},
    )
    assert response.status_code == 409
    data = response.json()
    # In index order (newest first) biggest fits; the rows past the budget share one sentence.
    assert data["error"].startswith(
        "Nothing was changed: 2 of 3 memories would be refused. 'bigger' (global) and 1 more "
        "after it: inline memories would total 0.1 KiB against the 0.1 KiB inline budget"
    )
    assert data["error"].count("inline budget") == 1
    assert [(r["name"], r["status"], r["total_bytes"]) for r in data["refused"]] == [
        ("bigger", 409, 120),
        ("big", 409, 120),
    ]
    assert {r["budget_bytes"] for r in data["refused"]} == {100}
    assert _state() == before
    assert ChangeSet.objects.count() == sets


def test_a_name_clash_in_a_move_moves_none(store, api, write, other_project):
    write("notes", project="infra")
    before = _state()
    response = api(
        "POST",
        "/v1/bulk",
        {
            "action": "move",
            "to": "infra",
            "memories": ["alpha", {"name": "notes", "project": "webdev"}],
        },
    )
    assert response.status_code == 409
    (refused,) = response.json()["refused"]
    assert (refused["name"], refused["project"]) == ("notes", "webdev")
    assert _state() == before


@pytest.mark.parametrize(
    ("body", "query", "field"),
    [
        ({"action": "set_priority", "memories": ["alpha"]}, {}, "priority"),
        ({"action": "set_priority", "priority": 101, "memories": ["alpha"]}, {}, "priority"),
        ({"action": "shift_priority", "shift": 1000, "memories": ["alpha"]}, {}, "shift"),
        ({"action": "shift_priority", "shift": "3", "memories": ["alpha"]}, {}, "shift"),
        ({"action": "set_load", "load": "always", "memories": ["alpha"]}, {}, "load"),
        ({"action": "add_tag", "tag": " ", "memories": ["alpha"]}, {}, "tag"),
        ({"action": "move", "memories": ["alpha"]}, {}, "to"),
        ({"action": "move", "to": " webdev", "memories": ["alpha"]}, {}, "to"),
        ({"action": "explode", "memories": ["alpha"]}, {}, "action"),
        ({"memories": ["alpha"]}, {}, "action"),
        ({"action": "verify"}, {}, "memories"),
        ({"action": "verify", "memories": []}, {}, "memories"),
        ({"action": "verify", "memories": "alpha"}, {}, "memories"),
        ({"action": "verify", "memories": [{"name": "alpha", "tier": ""}]}, {}, "memories"),
        ({"action": "verify", "memories": [{"name": "alpha", "project": 3}]}, {}, "memories"),
        ({"action": "verify", "memories": ["no such name!"]}, {}, "name"),
        ({"action": "verify", "memories": ["alpha"], "matching": True}, {}, "memories"),
        ({"action": "verify", "matching": "yes"}, {}, "matching"),
        ({"action": "verify", "memories": ["alpha"]}, {"tag": "infra"}, "tag"),
        ({"action": "verify", "matching": True}, {"unverified": "soon"}, "unverified"),
        ({"action": "verify", "matching": True}, {"limit": "5"}, "limit"),
        ({"action": "verify", "memories": ["alpha"], "priority_max": 3}, {}, "priority_max"),
        ({"action": "verify", "memories": ["alpha"], "reason": 5}, {}, "reason"),
        ({"action": "verify", "memories": ["alpha"], "reason": "a\x00b"}, {}, "reason"),
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_changes_nothing(store, api, body, query, field):
    before = _state()
    response = api("POST", "/v1/bulk", body, **query)
    assert response.status_code == 400, response.json()
    assert response.json()["field"] == field
    assert response.json()["error"]
    assert _state() == before


def test_a_memory_named_that_does_not_exist_refuses_them_all(store, api):
    response = api(
        "POST", "/v1/bulk", {"action": "set_priority", "priority": 1, "memories": ["alpha", "nope"]}
    )
    assert response.status_code == 404
    assert "nope" in response.json()["error"]
    assert _state()[("alpha", None)][0] == 5


def test_unknown_projects_are_404(store, api):
    unknown_filter = api("POST", "/v1/bulk", {"action": "verify", "matching": True}, project="nope")
    assert unknown_filter.status_code == 404
    unknown_tier = api(
        "POST", "/v1/bulk", {"action": "verify", "memories": [{"name": "a", "project": "nope"}]}
    )
    assert unknown_tier.status_code == 404
    move = api("POST", "/v1/bulk", {"action": "move", "to": "nope", "memories": ["alpha"]})
    assert move.status_code == 404
    assert _state()[("alpha", None)] == (5, "index", ["infra"])


def test_a_name_several_projects_hold_is_409(store, api, write, other_project):
    write("twin", project="webdev")
    write("twin", project="infra")
    response = api("POST", "/v1/bulk", {"action": "verify", "memories": ["twin"]})
    assert response.status_code == 409
    assert response.json()["projects"] == ["infra", "webdev"]


def test_more_matches_than_a_bulk_action_takes_are_refused(store, api, monkeypatch):
    monkeypatch.setattr(bulk, "BULK_LIMIT", 2)
    response = api("POST", "/v1/bulk", {"action": "verify", "matching": True})
    assert response.status_code == 400
    assert response.json()["error"].startswith("4 memories match; a bulk action takes at most 2")


def test_roles_and_scopes(store, read_api, anonymous, db):
    body = {"action": "verify", "memories": ["alpha"]}
    assert read_api("POST", "/v1/bulk", body).status_code == 403
    operator_reading = Api(tokens.create_token(make_user("olga", OPERATOR), "read")[1])
    assert operator_reading("POST", "/v1/bulk", body).status_code == 403
    assert anonymous("POST", "/v1/bulk", body).status_code == 401
    assert not Revision.objects.filter(door="bulk").exists()
