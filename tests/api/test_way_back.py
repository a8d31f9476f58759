"""The way back over /v1: change sets and their undo, the trash with restore and purge, one
revision and restoring its version; through the doors the history pages use."""

import pytest

from memadmin.accounts import tokens
from memadmin.accounts.roles import ADMIN
from memories.models import ChangeSet, Memory, Revision, TrashedMemory
from memories.writes import bulk, doors
from tests.api.conftest import Api, make_user


@pytest.fixture
def store(write, project):
    write("alpha", priority=5)
    write("beta", priority=7)
    write("gamma", priority=9)


@pytest.fixture
def admin_api(db):
    return Api(tokens.create_token(make_user("ada", ADMIN), "write")[1])


def _priorities() -> dict:
    return dict(Memory.objects.values_list("name", "priority"))


def _bulk(api, **body) -> dict:
    response = api("POST", "/v1/bulk", body)
    assert response.status_code == 200, response.json()
    return response.json()["change_set"]


# Change sets -------------------------------------------------------------------------------


def test_change_sets_newest_first_by_keyset_pages(store, api, read_api):
    first = _bulk(api, action="set_priority", priority=1, memories=["alpha"])
    second = _bulk(api, action="set_priority", priority=2, memories=["alpha", "beta"])
    page = read_api.get("/v1/change-sets", limit=1).json()
    assert [s["id"] for s in page["change_sets"]] == [second["id"]]
    assert page["change_sets"][0] == second
    older = read_api.get("/v1/change-sets", limit=1, before=page["older"]).json()
    assert ([s["id"] for s in older["change_sets"]], older["older"]) == ([first["id"]], None)


def test_a_change_set_with_its_revisions(store, api, read_api):
    change_set = _bulk(api, action="set_priority", priority=1, memories=["alpha", "beta"])
    response = read_api.get(f"/v1/change-sets/{change_set['id']}")
    assert response.status_code == 200
    data = response.json()
    assert data["change_set"] == change_set
    assert data["count"] == 2
    assert {r["memory"]["name"] for r in data["revisions"]} == {"alpha", "beta"}
    assert {c["field"] for r in data["revisions"] for c in r["changes"]} == {"priority"}


def test_undo_puts_the_set_back_in_a_change_set_of_its_own(store, api, read_api):
    before = _priorities()
    change_set = _bulk(api, action="set_priority", priority=1, memories=["alpha", "beta"])
    response = api("POST", f"/v1/change-sets/{change_set['id']}/undo", {"reason": "too soon"})
    assert response.status_code == 200
    data = response.json()
    assert _priorities() == before
    assert data["skipped"] == []
    assert data["undone"]["undone_by"] == data["change_set"]["id"]
    assert data["change_set"]["undoes"] == change_set["id"]
    assert (data["change_set"]["size"], data["change_set"]["reason"]) == (2, "too soon")
    again = api("POST", f"/v1/change-sets/{change_set['id']}/undo")
    assert again.status_code == 409
    assert "undone already" in again.json()["error"]


def test_undo_skips_a_row_changed_since_and_names_its_revision(store, api):
    change_set = _bulk(api, action="set_priority", priority=2, memories=["alpha", "beta", "gamma"])
    assert api("PUT", "/v1/memories/alpha", {"priority": 4}).status_code == 200
    changed_in = Revision.objects.filter(name="alpha").latest("id").id
    # Changed and changed back: its value is what the set left, so it is undone too.
    api("PUT", "/v1/memories/beta", {"priority": 9})
    api("PUT", "/v1/memories/beta", {"priority": 2})
    response = api("POST", f"/v1/change-sets/{change_set['id']}/undo")
    assert response.status_code == 200
    (skipped,) = response.json()["skipped"]
    assert (skipped["name"], skipped["project"], skipped["revision"]) == ("alpha", None, changed_in)
    assert f"revision {changed_in}" in skipped["reason"]
    assert _priorities() == {"alpha": 4, "beta": 7, "gamma": 9}


def test_an_undo_a_rule_refuses_undoes_nothing(store, api, write):
    change_set = _bulk(api, action="delete", memories=["alpha", "beta"])
    write("beta", description="a new beta")
    response = api("POST", f"/v1/change-sets/{change_set['id']}/undo")
    assert response.status_code == 409
    data = response.json()
    assert [(r["name"], r["project"]) for r in data["refused"]] == [("beta", None)]
    assert data["change_set"] == change_set["id"]
    assert TrashedMemory.objects.count() == 2
    assert not Memory.objects.filter(name="alpha").exists()
    assert not ChangeSet.objects.filter(undoes_id=change_set["id"]).exists()


def test_change_set_routes_refuse_what_they_cannot_do(store, api, read_api):
    change_set = _bulk(api, action="verify", memories=["alpha"])
    undo = f"/v1/change-sets/{change_set['id']}/undo"
    assert read_api("POST", undo).status_code == 403
    assert api("POST", undo, {"why": "x"}).json()["field"] == "why"
    assert api("POST", undo, {"reason": ["x"]}).status_code == 400
    for missing in ("/v1/change-sets/999999", f"/v1/change-sets/{2**63}", "/v1/change-sets/0"):
        assert read_api.get(missing).status_code == 404
        assert api("POST", missing + "/undo").status_code == 404
    assert read_api.get("/v1/change-sets/abc").status_code == 404
    assert read_api.get("/v1/change-sets", before="x").json()["field"] == "before"
    assert read_api.get("/v1/change-sets", after="1").json()["field"] == "after"
    assert ChangeSet.objects.count() == 1


# The trash ---------------------------------------------------------------------------------


def test_the_trash_lists_and_restores_as_deleted(store, api, read_api):
    api("PUT", "/v1/memories/alpha", {"tags": ["keep"]})
    doors.read("alpha")
    alpha = Memory.objects.get(name="alpha")
    api("DELETE", "/v1/memories/alpha")
    api("DELETE", "/v1/memories/beta")
    listed = read_api.get("/v1/trash").json()
    assert listed["count"] == 2
    assert [t["name"] for t in listed["trash"]] == ["beta", "alpha"]
    entry = listed["trash"][1]
    assert (entry["tags"], entry["priority"], entry["user"], entry["door"]) == (
        ["keep"],
        5,
        "otto",
        "api",
    )
    first = read_api.get("/v1/trash", limit=1).json()
    assert first["older"] == listed["trash"][0]["id"]
    response = api("POST", f"/v1/trash/{entry['id']}/restore", {"reason": "needed"})
    assert response.status_code == 200
    restored = response.json()
    assert (restored["name"], restored["read_count"], restored["tags"]) == ("alpha", 1, ["keep"])
    assert restored["created_at"] == alpha.to_dict()["created_at"]
    assert response["ETag"] == Memory.objects.get(name="alpha").etag
    assert Revision.objects.latest("id").reason == "needed"
    assert read_api.get("/v1/trash").json()["count"] == 1


def test_a_restore_a_rule_refuses_leaves_it_in_the_trash(store, api, write):
    api("DELETE", "/v1/memories/alpha")
    write("alpha", description="taken meanwhile")
    entry = TrashedMemory.objects.get()
    response = api("POST", f"/v1/trash/{entry.id}/restore")
    assert response.status_code == 409
    assert response.json()["error"].startswith("'alpha' cannot come back from the trash")
    assert TrashedMemory.objects.filter(id=entry.id).exists()


def test_a_restore_past_the_budget_is_refused(store, api, write, small_budget):
    write("big", body="x" * 80, load="inline")
    api("DELETE", "/v1/memories/big")
    write("other", body="y" * 80, load="inline")
    response = api("POST", f"/v1/trash/{TrashedMemory.objects.get().id}/restore")
    assert response.status_code == 409
    assert response.json()["budget_bytes"] == 100
    assert not Memory.objects.filter(name="big").exists()


def test_only_an_admin_purges(store, api, admin_api, read_api):
    api("DELETE", "/v1/memories/alpha")
    entry = TrashedMemory.objects.get()
    assert read_api("DELETE", f"/v1/trash/{entry.id}").status_code == 403
    refused = api("DELETE", f"/v1/trash/{entry.id}")
    assert (refused.status_code, refused.json()["error"]) == (
        403,
        "Only an admin can purge a memory from the trash.",
    )
    assert admin_api("DELETE", f"/v1/trash/{entry.id}").json() == {"purged": "alpha"}
    assert not TrashedMemory.objects.exists()
    assert admin_api("DELETE", f"/v1/trash/{entry.id}").status_code == 404
    assert api("POST", f"/v1/trash/{entry.id}/restore").status_code == 404


def test_trash_routes_refuse_bad_input(store, api, read_api):
    assert read_api("POST", "/v1/trash/1/restore").status_code == 403
    assert api("POST", "/v1/trash/99/restore").status_code == 404
    assert api("POST", f"/v1/trash/{2**64}/restore").status_code == 404
    assert api("POST", "/v1/trash/1/restore", raw="{").status_code == 400
    assert read_api.get("/v1/trash", limit="0").json()["field"] == "limit"
    assert read_api.get("/v1/trash", q="x").json()["field"] == "q"


# Revisions ---------------------------------------------------------------------------------


def test_a_revision_and_its_version_restored(store, api, read_api):
    api("PUT", "/v1/memories/alpha", {"priority": 1, "body": "new"})
    created = Revision.objects.filter(name="alpha").earliest("id")
    response = read_api.get(f"/v1/revisions/{created.id}")
    assert response.status_code == 200
    data = response.json()
    assert (data["action"], data["restorable"], data["memory"]["name"]) == ("create", True, "alpha")
    etag = read_api.get("/v1/memories/alpha")["ETag"]
    restored = api(
        "POST",
        f"/v1/revisions/{created.id}/restore",
        {"reason": "back"},
        headers={"If-Match": etag},
    )
    assert restored.status_code == 200
    assert (restored.json()["priority"], restored.json()["body"]) == (5, "")
    assert restored["ETag"] == Memory.objects.get(name="alpha").etag
    latest = Revision.objects.latest("id")
    assert (latest.action, latest.reason, latest.username) == ("revert", "back", "otto")


def test_a_restore_with_a_stale_etag_is_412_and_changes_nothing(store, api, read_api):
    etag = read_api.get("/v1/memories/alpha")["ETag"]
    api("PUT", "/v1/memories/alpha", {"priority": 1})
    created = Revision.objects.filter(name="alpha").earliest("id")
    response = api("POST", f"/v1/revisions/{created.id}/restore", headers={"If-Match": etag})
    assert response.status_code == 412
    assert _priorities()["alpha"] == 1


def test_a_version_there_is_none_of_is_409(store, api, read_api):
    api("DELETE", "/v1/memories/alpha")
    deletion = Revision.objects.latest("id")
    assert read_api.get(f"/v1/revisions/{deletion.id}").json()["restorable"] is False
    response = api("POST", f"/v1/revisions/{deletion.id}/restore")
    assert response.status_code == 409
    assert response.json()["revision"] == deletion.id
    created = Revision.objects.filter(name="alpha").earliest("id")
    in_trash = api("POST", f"/v1/revisions/{created.id}/restore")
    assert in_trash.status_code == 409
    assert "in the trash" in in_trash.json()["error"]


def test_a_version_past_the_budget_is_refused(store, api, write, small_budget):
    write("big", body="x" * 80, load="inline")
    api("PUT", "/v1/memories/big", {"load": "index"})
    write("other", body="y" * 80, load="inline")
    created = Revision.objects.filter(name="big").earliest("id")
    response = api("POST", f"/v1/revisions/{created.id}/restore")
    assert response.status_code == 409
    assert response.json()["total_bytes"] == 160
    assert Memory.objects.get(name="big").load == "index"


def test_revision_routes_refuse_what_they_cannot_do(store, api, read_api):
    created = Revision.objects.filter(name="alpha").earliest("id")
    assert read_api("POST", f"/v1/revisions/{created.id}/restore").status_code == 403
    assert read_api.get("/v1/revisions/999999").status_code == 404
    assert read_api.get(f"/v1/revisions/{2**63}").status_code == 404
    assert api("POST", "/v1/revisions/999999/restore").status_code == 404
    bad = api("POST", f"/v1/revisions/{created.id}/restore", {"reason": "x", "force": True})
    assert (bad.status_code, bad.json()["field"]) == (400, "force")
    assert read_api.get(f"/v1/revisions/{created.id}", project="").json()["field"] == "project"


def test_bulk_undo_restores_deleted_memories_from_the_trash(store, api):
    result = bulk.delete([Memory.objects.get(name="gamma").id])
    response = api("POST", f"/v1/change-sets/{result.change_set_id}/undo")
    assert response.status_code == 200
    assert _priorities()["gamma"] == 9
    assert not TrashedMemory.objects.exists()
