"""Hostile input over the API and the pages alike, one table: each case gets its clear 4xx
with a human sentence (or, for FTS syntax in a search, a calm answer), and leaves the store
exactly as it was, every row of it.

tests/api/test_hostile.py covers the API's refusals field by field (bad names of 129
characters, NUL in each field, each bad date and period, non-JSON bodies on every write
route, 413 on every write route); this table adds the names of a path, empty, 300 characters,
RTL and zero-width, FTS syntax, and the same hostile values through the pages' forms and
filters, which that file does not reach.
"""

import hashlib
import json
from dataclasses import dataclass, field
from urllib.parse import quote

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.db import connection
from django.test import Client

from memadmin.accounts import roles, tokens
from memories.writes import doors
from projects import writes as project_doors

TABLES = ["memories_memory", "projects_project", "memories_reference", "memories_tag"]
RTL = "\u202eevil"
ZERO_WIDTH = "zero\u200bwidth"
HOSTILE_NAMES = {
    "a path": "../x",
    "empty": "",
    "300 characters": "n" * 300,
    "NUL": "nul\x00name",
    "RTL override": RTL,
    "zero-width space": ZERO_WIDTH,
}
HTMX = {"HX-Request": "true"}
FTS_SYNTAX = ['"', "NEAR(deploy host, 2)", "body:deploy", "deploy*", "((", "AND OR NOT", "^x"]


def checksum() -> tuple[dict[str, int], str]:
    """Rows per table and one digest of every row of them."""
    digest = hashlib.sha256()
    counts = {}
    with connection.cursor() as cursor:
        for table in TABLES:
            cursor.execute(f"SELECT * FROM {table} ORDER BY id")  # noqa: S608  (our names)
            rows = cursor.fetchall()
            counts[table] = len(rows)
            digest.update(json.dumps([table, rows], default=str).encode())
    return counts, digest.hexdigest()


@dataclass
class Case:
    label: str
    surface: str  # "api" or "page"
    method: str
    path: str
    data: object = None  # JSON for the API, form fields for a page, or raw bytes
    status: int = 400
    says: str = ""  # a piece of the sentence the answer gives
    headers: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.surface}: {self.label}"


def _page_form(**values) -> dict:
    form = {"description": "d", "priority": "5", "load": "index", "project": ""}
    form.update(values)
    return form


def cases() -> list[Case]:
    table = []
    for label, name in HOSTILE_NAMES.items():
        url_name = quote(name, safe="")
        if name:
            table.append(
                Case(
                    f"memory named {label}",
                    "api",
                    "PUT",
                    f"/v1/memories/{url_name}",
                    {"description": "x"},
                    400 if "/" not in name else 404,
                )
            )
            table.append(
                Case(
                    f"get of {label}",
                    "api",
                    "GET",
                    f"/v1/memories/{url_name}",
                    None,
                    400 if "/" not in name else 404,
                )
            )
        table.append(
            Case(f"project named {label}", "api", "POST", "/v1/projects", {"name": name}, 400)
        )
        table.append(
            Case(f"rename to {label}", "api", "PATCH", "/v1/projects/webdev", {"name": name}, 400)
        )
        table.append(
            Case(
                f"move into a project named {label}",
                "api",
                "PUT",
                "/v1/memories/rule",
                {"project": name} if name else {"project": 7},
                400 if name else 400,
            )
        )
        table.append(
            Case(
                f"memory named {label}",
                "page",
                "POST",
                "/memories/_new/",
                _page_form(name=name),
                400,
            )
        )
        table.append(
            Case(f"project named {label}", "page", "POST", "/projects/", {"name": name}, 400)
        )
        table.append(
            Case(
                f"rename to {label}",
                "page",
                "POST",
                "/projects/webdev/rename/",
                {"new_name": name},
                400,
            )
        )
        table.append(
            Case(
                f"filter on project {label}",
                "page",
                "GET",
                "/memories/?project=" + quote(name, safe=""),
                None,
                400 if name else 200,
            )
        )
    for query in FTS_SYNTAX:
        for surface, path in (("api", "/v1/memories"), ("page", "/memories/")):
            table.append(
                Case(f"FTS syntax {query!r}", surface, "GET", f"{path}?q={quote(query)}", None, 200)
            )
    big = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    table += [
        Case(
            "an oversized form",
            "page",
            "POST",
            "/memories/_new/",
            _page_form(name="big", body=big),
            413,
            "larger than this server accepts",
        ),
        Case(
            "an oversized edit",
            "page",
            "POST",
            "/memories/rule/?project=",
            _page_form(description="rule", body=big),
            413,
            "larger than this server accepts",
        ),
        Case(
            "a bad date",
            "page",
            "POST",
            "/memories/_new/",
            _page_form(name="dated", expires="2026-02-30"),
            400,
        ),
        Case(
            "a date past year 9999",
            "page",
            "POST",
            "/memories/rule/?project=",
            _page_form(description="rule", expires="9999-12-31"),
            400,
        ),
        Case("a bad period", "page", "GET", "/memories/?unverified=90y", None, 400),
        Case("a period of nothing", "page", "GET", "/memories/?unverified=0d", None, 400),
        Case("a bad period", "api", "GET", "/v1/memories?unverified=soon", None, 400),
        Case(
            "an unknown project filter",
            "page",
            "GET",
            "/memories/?project=nowhere",
            None,
            404,
            "nowhere",
        ),
        Case(
            "an unknown project's tier view",
            "page",
            "GET",
            "/memories/_agent/?project=nowhere",
            None,
            404,
            "nowhere",
        ),
        Case(
            "a memory in an unknown project",
            "page",
            "POST",
            "/memories/_new/",
            _page_form(name="lost", project="nowhere"),
            400,
        ),
        Case(
            "an unknown project",
            "api",
            "PUT",
            "/v1/memories/lost?project=nowhere",
            {"description": "x"},
            404,
            "nowhere",
        ),
        Case(
            "a JSON body to a form",
            "page",
            "POST",
            "/memories/_new/",
            b'{"name": "json", "description": "d"}',
            400,
        ),
        Case(
            "a form body to the API",
            "api",
            "PUT",
            "/v1/memories/rule",
            b"description=x&priority=1",
            400,
            "not valid JSON",
        ),
        Case(
            "a bulk action on no rows",
            "page",
            "POST",
            "/memories/_bulk/",
            {"action": "set_priority", "priority": "1", "scope": "selected"},
            400,
        ),
        Case(
            "a bulk id that is not a number",
            "page",
            "POST",
            "/memories/_bulk/",
            {"action": "delete", "id": "1 OR 1=1", "scope": "selected", "confirm": "1"},
            400,
        ),
        Case("a forged cursor", "page", "GET", "/memories/?after=eyJ4Ijo1fQ", None, 400),
        Case(
            "a priority out of range inline",
            "page",
            "POST",
            "/memories/rule/row/?project=",
            {"priority": "-1"},
            400,
        ),
        Case(
            "a load that is no load",
            "page",
            "POST",
            "/memories/rule/row/?project=",
            {"load": "everything"},
            400,
        ),
    ]
    return table


@pytest.fixture
def store(db):
    project_doors.add("webdev")
    doors.write("rule", description="rule", body="Answer in kind.", references=["stack"])
    doors.write("stack", project="webdev", description="pnpm", tags=["tools"])


@pytest.fixture
def page_client(store):
    user = User.objects.create_user("hostile-operator")
    user.groups.add(Group.objects.get(name=roles.OPERATOR))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def api_token(store):
    user = User.objects.create_user("hostile-script")
    user.groups.add(Group.objects.get(name=roles.OPERATOR))
    return tokens.create_token(user, "write")[1]


def _send(case: Case, page_client: Client, api_token: str):
    if case.surface == "api":
        client = Client()
        body = case.data if isinstance(case.data, bytes) else json.dumps(case.data)
        kwargs = {"content_type": "application/json"} if case.data is not None else {}
        if case.data is not None:
            kwargs["data"] = body
        headers = {"Authorization": f"Bearer {api_token}", **case.headers}
        return getattr(client, case.method.lower())(case.path, headers=headers, **kwargs)
    if isinstance(case.data, bytes):
        return page_client.post(case.path, case.data, content_type="application/json")
    # The list's and the projects page's writes are htmx requests (without JavaScript they
    # redirect back with the refusal as a message); the memory forms are plain forms.
    plain_form = case.path.startswith(("/memories/_new/", "/memories/rule/?"))
    headers = HTMX if case.method == "POST" and not plain_form else {}
    method = getattr(page_client, case.method.lower())
    return method(case.path, case.data, headers={**headers, **case.headers})


@pytest.mark.parametrize("case", cases(), ids=str)
def test_hostile_input_gets_a_clear_answer_and_changes_nothing(case, page_client, api_token):
    before = checksum()
    response = _send(case, page_client, api_token)
    assert response.status_code == case.status, response.content[:500]
    text = response.content.decode("utf-8", "replace")
    if case.surface == "api":
        assert response["Content-Type"] == "application/json"
        if case.status >= 400:
            assert isinstance(response.json()["error"], str) and response.json()["error"]
    else:
        assert "Traceback" not in text and "Server Error" not in text
        if case.status >= 400:
            # A form's errors, the list's error line, or the flash and error pages' sentence.
            marks = ('class="errorlist', 'role="alert"', 'class="panel error-page"')
            assert any(mark in text for mark in marks), text[:800]
    assert case.says in text
    assert checksum() == before
