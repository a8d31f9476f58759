"""/v1 history: the API door recorded, a memory's history and the audit log as JSON."""

import pytest

from memadmin.accounts import tokens
from memadmin.accounts.roles import AUDITOR, OPERATOR
from memories.models import Revision, TrashedMemory
from memories.reads import history as history_reads
from memories.writes import doors, history, undo
from tests.api.conftest import Api, make_user


@pytest.fixture
def writer(db):
    token, secret = tokens.create_token(make_user("otto", OPERATOR), "write")
    api = Api(secret)
    api.token_row = token
    return api


@pytest.fixture
def reader(db):
    return Api(tokens.create_token(make_user("audrey", AUDITOR), "read")[1])


@pytest.fixture
def store(write, project):
    write("rule", priority=4, body="one\ntwo")
    write("notes", project="webdev", description="Notes of webdev")


def test_an_api_write_is_recorded_with_its_token_and_user(store, writer):
    assert writer("PUT", "/v1/memories/rule", {"priority": 1}).status_code == 200
    revision = Revision.objects.order_by("-id").first()
    token = writer.token_row
    assert (revision.door, revision.username, revision.token_id, revision.action) == (
        "api",
        "otto",
        token.id,
        "update",
    )
    assert revision.actor == f"otto (token {token.prefix}…)"


def test_the_delete_contract_is_unchanged_and_the_memory_goes_to_the_trash(store, writer):
    write_response = writer(
        "PUT", "/v1/memories/cites", {"description": "x", "references": ["rule"]}
    )
    assert write_response.status_code == 201
    response = writer("DELETE", "/v1/memories/rule")
    data = response.json()
    assert data["deleted"] == "rule"
    assert [m["name"] for m in data["referenced_by"]] == ["cites"]
    assert Revision.objects.order_by("-id").first().trashed is not None


def test_a_session_cookie_names_no_one_on_v1(store, writer, client):
    client.force_login(make_user("someone", OPERATOR))
    response = client.put(
        "/v1/memories/rule",
        '{"priority": 2}',
        content_type="application/json",
        headers={"Authorization": f"Bearer {writer.token}"},
    )
    assert response.status_code == 200
    assert Revision.objects.order_by("-id").first().username == "otto"


def test_a_memorys_history_newest_first_with_its_changes(store, writer, reader):
    writer("PUT", "/v1/memories/rule", {"priority": 1, "body": "one\n2"})
    response = reader.get("/v1/memories/rule/history")
    assert response.status_code == 200
    data = response.json()
    rule = Revision.objects.filter(name="rule").first()
    assert data["memory"] == {"id": rule.memory_id, "name": "rule", "project": None}
    assert (data["count"], data["older"], data["newer"]) == (2, None, None)
    latest, created = data["revisions"]
    assert (latest["action"], latest["door"], latest["user"]) == ("update", "api", "otto")
    assert {c["field"]: c for c in latest["changes"]} == {
        "body": {"field": "body", "diff": ["@@ -1,2 +1,2 @@", " one", "-two", "+2"]},
        "priority": {"field": "priority", "old": 4, "new": 1},
    }
    assert (created["action"], created["door"], created["user"]) == ("create", "direct", None)
    assert reader.get("/v1/memories/rule/history", door="api").json()["count"] == 1


def test_a_memorys_history_addresses_its_tier(store, reader):
    assert reader.get("/v1/memories/notes/history", project="webdev").json()["count"] == 1
    assert reader.get("/v1/memories/notes/history", project="").status_code == 404
    assert reader.get("/v1/memories/nothing/history").status_code == 404
    bad = reader.get("/v1/memories/rule/history", before="x")
    assert bad.status_code == 400
    assert bad.json()["field"] == "before"


def test_the_audit_log_filters_pages_and_matches_the_pages_export(store, writer, reader):
    for priority in range(5):
        writer("PUT", "/v1/memories/rule", {"priority": priority})
    everything = reader.get("/v1/audit").json()
    assert everything["count"] == 7
    assert everything["summary"] == "7 changes, newest first"
    by_otto = reader.get("/v1/audit", user="otto", limit=2).json()
    assert (by_otto["count"], len(by_otto["revisions"])) == (5, 2)
    older = reader.get("/v1/audit", user="otto", limit=2, before=by_otto["older"]).json()
    assert [r["id"] for r in older["revisions"]] == [
        by_otto["revisions"][-1]["id"] - 1,
        by_otto["revisions"][-1]["id"] - 2,
    ]
    newer = reader.get("/v1/audit", user="otto", limit=2, after=older["newer"]).json()
    assert newer["revisions"] == by_otto["revisions"]
    assert reader.get("/v1/audit", project="webdev").json()["count"] == 1
    assert reader.get("/v1/audit", project="").json()["count"] == 6
    assert reader.get("/v1/audit", memory="notes").json()["revisions"][0]["memory"] == {
        "id": Revision.objects.get(name="notes").memory_id,
        "name": "notes",
        "project": "webdev",
    }
    exported = [
        entry.to_dict()
        for entry in history_reads.export_rows(history_reads.AuditFilters(user="otto"))
    ]
    assert reader.get("/v1/audit", user="otto", limit=50).json()["revisions"] == exported


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"since": "last week"}, "since"),
        ({"until": "2026-02-30"}, "until"),
        ({"since": "9999-12-31T23:59:59-01:00"}, "since"),
        ({"until": "9999-12-31"}, "until"),
        ({"door": "window"}, "door"),
        ({"action": "explode"}, "action"),
        ({"change_set": str(2**63)}, "change_set"),
        ({"limit": "0"}, "limit"),
        ({"project": "no such name!"}, "project"),
        ({"before": ""}, "before"),
        ({"after": ""}, "after"),
    ],
)
def test_bad_audit_parameters_are_a_400_naming_the_field(store, reader, query, field):
    response = reader.get("/v1/audit", **query)
    assert response.status_code == 400
    assert response.json()["field"] == field
    assert response.json()["error"]


def test_a_number_sent_empty_is_refused_in_one_sentence(store, reader):
    """A page's form sends its blank fields; an API request leaves out what it does not give
    (schemathesis sends an object as an empty `before=`)."""
    response = reader.get("/v1/audit", before="")
    assert response.json()["error"] == "before must be a whole number, not empty."
    assert reader.get("/v1/memories", limit="").status_code == 400


def test_since_after_until_and_before_with_after_are_refused(store, reader):
    assert reader.get("/v1/audit", since="2026-03-02", until="2026-03-01").status_code == 400
    assert reader.get("/v1/audit", before=5, after=1).status_code == 400


def test_a_purged_memory_shows_that_its_content_is_gone(store, writer, reader):
    writer("DELETE", "/v1/memories/rule")
    with history.acting(door=history.PAGE, label="carol"):
        undo.purge(TrashedMemory.objects.get().id, admin=True)
    revisions = reader.get("/v1/audit", memory="rule").json()["revisions"]
    assert [(r["action"], r["purged"], r["changes"]) for r in revisions] == [
        ("purge", False, []),
        ("delete", True, []),
        ("create", True, []),
    ]
    doors.write("rule", description="a new rule")
    assert reader.get("/v1/memories/rule/history").json()["count"] == 1
