"""Who may call what: every route against every kind of caller."""

import pytest
from django.contrib.auth.models import Group

from memadmin.accounts import tokens
from memadmin.accounts.roles import AUDITOR, OPERATOR
from memories.models import ChangeSet, Memory, Revision, TrashedMemory
from memories.writes import bulk, doors
from projects import writes as project_doors
from projects.models import Project

from .conftest import Api, make_user

READS = [
    ("GET", "/v1/memories", None, 200),
    ("GET", "/v1/memories/rule", None, 200),
    ("POST", "/v1/memories/rule/read", None, 200),
    ("GET", "/v1/projects", None, 200),
    ("GET", "/v1/budget", None, 200),
    ("GET", "/v1/memories/rule/history", None, 200),
    ("GET", "/v1/audit", None, 200),
    ("GET", "/v1/change-sets", None, 200),
    ("GET", "/v1/change-sets/{change_set}", None, 200),
    ("GET", "/v1/trash", None, 200),
    ("GET", "/v1/revisions/{revision}", None, 200),
]
WRITES = [
    ("PUT", "/v1/memories/new", {"description": "A new memory"}, 201),
    ("PUT", "/v1/memories/rule", {"priority": 1}, 200),
    ("POST", "/v1/memories/rule/edit", {"old_string": "one", "new_string": "two"}, 200),
    ("DELETE", "/v1/memories/rule", None, 200),
    ("POST", "/v1/projects", {"name": "added"}, 201),
    ("PATCH", "/v1/projects/webdev", {"name": "renamed"}, 200),
    ("DELETE", "/v1/projects/empty", None, 200),
    ("POST", "/v1/bulk", {"action": "verify", "memories": ["rule"]}, 200),
    ("POST", "/v1/change-sets/{change_set}/undo", None, 200),
    ("POST", "/v1/trash/{trashed}/restore", None, 200),
    ("POST", "/v1/revisions/{revision}/restore", None, 200),
]
ADMIN_WRITES = [("DELETE", "/v1/trash/{trashed}", None, 200)]
ROUTES = READS + WRITES + ADMIN_WRITES


def _demoted(role: str | None) -> str:
    """A write token whose user has since lost the right to write (or every role)."""
    user = make_user(f"demoted-{role}", OPERATOR)
    _, secret = tokens.create_token(user, "write")
    user.groups.set(Group.objects.filter(name=role))
    return secret


def _revoked() -> str:
    token, secret = tokens.create_token(make_user("gone", OPERATOR), "write")
    tokens.revoke(token)
    return secret


def _inactive() -> str:
    user = make_user("left", OPERATOR)
    _, secret = tokens.create_token(user, "write")
    user.is_active = False
    user.save()
    return secret


CALLERS = {
    "anonymous": lambda: None,
    "garbage": lambda: "mem_not-a-token",
    "revoked": _revoked,
    "inactive user": _inactive,
    "read token": lambda: tokens.create_token(make_user("reader", AUDITOR), "read")[1],
    "read token of an operator": lambda: tokens.create_token(make_user("op", OPERATOR), "read")[1],
    "write token": lambda: tokens.create_token(make_user("writer", OPERATOR), "write")[1],
    "write token of an admin": lambda: tokens.create_token(make_user("boss", "admin"), "write")[1],
    "write token of an auditor": lambda: _demoted(AUDITOR),
    "token of a user with no role": lambda: _demoted(None),
}
UNAUTHENTICATED = {"anonymous", "garbage", "revoked", "inactive user"}
READ_ONLY = {"read token", "read token of an operator", "write token of an auditor"}
NO_ROLE = {"token of a user with no role"}


def _snapshot():
    return (
        list(Memory.objects.order_by("id").values()),
        list(Project.objects.order_by("id").values_list("name", flat=True)),
        list(TrashedMemory.objects.order_by("id").values_list("id", flat=True)),
        ChangeSet.objects.count(),
    )


@pytest.fixture
def store(write):
    """The ids the way back's routes name: a change set, a trash entry, a version to restore."""
    project_doors.add("webdev")
    project_doors.add("empty")
    rule = write("rule", body="one").memory
    write("gone")
    doors.delete("gone")
    return {
        "change_set": bulk.set_priority([rule.id], 3).change_set_id,
        "trashed": TrashedMemory.objects.get().id,
        "revision": Revision.objects.filter(name="rule").earliest("id").id,
    }


@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize(("method", "path", "body", "success"), ROUTES)
def test_authorization_matrix(store, caller, method, path, body, success):
    api = Api(CALLERS[caller]())
    before = _snapshot()
    response = api(method, path.format(**store), body)
    route = (method, path, body, success)
    write_route = route in WRITES or route in ADMIN_WRITES
    if caller in UNAUTHENTICATED:
        expected = 401
    elif (
        caller in NO_ROLE
        or (write_route and caller in READ_ONLY)
        or (route in ADMIN_WRITES and caller != "write token of an admin")
    ):
        expected = 403
    else:
        expected = success
    assert response.status_code == expected, response.json()
    assert response["Content-Type"] == "application/json"
    if expected == 401:
        assert response["WWW-Authenticate"] == 'Bearer realm="memadmin"'
    if expected >= 400:
        assert response.json()["error"]
        assert _snapshot() == before


@pytest.mark.parametrize("caller", CALLERS)
def test_the_openapi_document_needs_no_token(db, caller):
    response = Api(CALLERS[caller]())("GET", "/v1/openapi.json")
    assert response.status_code == 200
    assert response.json()["openapi"].startswith("3.1")


@pytest.mark.parametrize(
    "header",
    ["Bearer", "Bearer ", "Basic dXNlcjpwdw==", "mem_x", "Bearer a b", "Bearer " + "x" * 500],
)
def test_malformed_authorization_headers_are_401(db, header):
    response = Api(None)("GET", "/v1/memories", headers={"Authorization": header})
    assert response.status_code == 401


def test_the_scheme_is_case_insensitive(auditor):
    _, secret = tokens.create_token(auditor, "read")
    response = Api(None)("GET", "/v1/memories", headers={"Authorization": f"bearer {secret}"})
    assert response.status_code == 200


def test_a_session_cookie_is_no_credential_and_csrf_does_not_apply(operator):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(operator)
    assert client.get("/v1/memories").status_code == 401
    _, secret = tokens.create_token(operator, "write")
    response = client.put(
        "/v1/memories/x",
        '{"description": "x"}',
        content_type="application/json",
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert response.status_code == 201
