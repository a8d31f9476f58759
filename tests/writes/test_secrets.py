"""No secrets in the store, through every write door: the new-memory form, /v1 PUT, MCP
memory_write, `memory add` and the import. Each refuses the 40 credentials of
tests/secret_cases.py in one sentence naming field, kind and line, none of the credential in
it, and lands nothing; each lets the 40 look-alikes through; an admin's allowance is recorded
in the history, which keeps the credential masked; hygiene lists it masked."""

import html
import io
import logging

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from memadmin.accounts import roles, tokens
from memadmin.mcp.session import Session
from memadmin.mcp.tools import TOOLS
from memories.models import Memory, Revision
from memories.reads import hygiene
from memories.rules.errors import DomainError
from memories.writes import doors, history, imports, undo
from tests.api.conftest import Api
from tests.conftest import make_user
from tests.rules.test_secrets import leaks
from tests.secret_cases import LINE, LOOKALIKES, SHAPES

DOORS = ("page", "api", "mcp", "cli", "import")
AWS = SHAPES[0]


class Doors:
    """One write of a new memory through a door, as its user makes it: the refusal's sentence,
    or None when the memory was saved."""

    def __init__(self):
        self.operator = make_user("otto", roles.OPERATOR)
        self.admin = make_user("ada", roles.ADMIN)

    def _client(self, user) -> Client:
        client = Client()
        client.force_login(user)
        return client

    def page(self, name, body, *, admin=False, allow=False) -> str | None:
        data = {"name": name, "description": "Payments notes", "body": body}
        data.update(priority="5", load="index", project="")
        if allow:
            data["allow_secret"] = "on"
        response = self._client(self.admin if admin else self.operator).post(
            reverse("memories:new"), data
        )
        if response.status_code == 302:
            return None
        assert response.status_code in (400, 403)
        page = html.unescape(response.content.decode())
        beside_the_field = page.find('<p class="field-error" role="alert">')
        if beside_the_field < 0:  # a refusal of no field of the form: above it
            start = page.index('<div class="form-errors" role="alert"><p>') + 41
        else:
            start = beside_the_field + len('<p class="field-error" role="alert">')
        return page[start : page.index("</p>", start)]

    def api(self, name, body, *, admin=False, allow=None) -> str | None:
        token = tokens.create_token(self.admin if admin else self.operator, "write")[1]
        data = {"description": "Payments notes", "body": body}
        if allow is not None:
            data["allow_secret"] = allow
        response = Api(token)("PUT", f"/v1/memories/{name}", data)
        if response.status_code in (200, 201):
            return None
        assert response.status_code in (400, 403), response.content
        return response.json()["error"]

    def mcp(self, name, body, *, admin=False, allow=None) -> str | None:
        arguments = {"name": name, "description": "Payments notes", "body": body}
        if allow is not None:
            arguments["allow_secret"] = allow
        user = self.admin if admin else self.operator
        try:
            with history.acting(door=history.MCP, user=user):  # as /mcp's endpoint sets it
                TOOLS["memory_write"].call(Session(None, admin=admin), arguments)
        except DomainError as refusal:
            return refusal.message
        return None

    def cli(self, name, body, *, allow=False) -> str | None:
        args = ["memory", "add", name, "--description", "Payments notes", "--body", body]
        try:
            call_command(*args, *(["--allow-secret"] if allow else []), stdout=io.StringIO())
        except CommandError as refusal:
            return str(refusal)
        return None

    def import_(self, name, body) -> str | None:
        entry = imports.ImportEntry(
            name=name, project=None, description="Payments notes", created_at=timezone.now()
        )
        entry.body = body
        try:
            imports.import_memories([entry])
        except DomainError as refusal:
            return refusal.message
        return None

    def write(self, door: str, name: str, body: str) -> str | None:
        return getattr(self, "import_" if door == "import" else door)(name, body)


@pytest.fixture
def through(db):
    return Doors()


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("case", SHAPES, ids=lambda case: case.id)
def test_every_door_refuses_each_credential_naming_field_kind_and_line(through, door, case):
    refusal = through.write(door, "payments-notes", case.body)
    assert refusal is not None, f"{door} let {case.id} in"
    assert f"The body holds what looks like {case.kind} on line {LINE};" in refusal
    assert not leaks(case.secret, refusal)
    assert not Memory.objects.exists()
    assert not Revision.objects.exists()


@pytest.mark.parametrize("door", DOORS)
def test_every_door_lets_the_lookalikes_through(through, door):
    for number, text in enumerate(LOOKALIKES.values()):
        assert through.write(door, f"lookalike-{number}", text) is None, text
    assert Memory.objects.count() == len(LOOKALIKES)


@pytest.mark.parametrize(
    ("field", "value", "line"),
    [
        ("description", f"Deploy key {AWS.secret}", 1),
        ("source", f"curl -H 'Authorization: Bearer {SHAPES[23].secret}'", 1),
        ("references", ["runbook", f"https://deploy:{SHAPES[27].secret}@git.internal/"], 2),
    ],
)
def test_the_description_source_and_references_are_held_to_the_rule(db, field, value, line):
    with pytest.raises(DomainError) as refused:
        doors.write("notes", **{"description": "Notes", field: value})
    assert refused.value.details["field"] == field
    assert f"The {field} holds what looks like" in refused.value.message
    assert f"on line {line};" in refused.value.message
    assert not Memory.objects.exists()


def test_an_edit_and_a_putting_back_are_held_to_the_rule_too(db):
    doors.write("notes", description="Notes", body="the key is in the vault")
    with pytest.raises(DomainError, match="on line 1;"):
        doors.edit("notes", old_string="in the vault", new_string=AWS.secret)
    assert Memory.objects.get(name="notes").body == "the key is in the vault"


def _allowed_revision(name: str) -> Revision:
    revision = Revision.objects.get(name=name)
    assert f"secret allowed by an admin: {AWS.kind} in the body, line {LINE}" in revision.reason
    assert not leaks(AWS.secret, str(revision.after))
    assert "[masked: an AWS access key]" in revision.after["body"]
    return revision


@pytest.mark.parametrize("door", ("page", "api", "mcp"))
def test_an_admin_allows_one_write_recorded_in_history_as_by_whom(through, door):
    assert getattr(through, door)("kept-key", AWS.body, admin=True, allow=True) is None
    assert Memory.objects.get(name="kept-key").body == AWS.body, "the store keeps it whole"
    assert _allowed_revision("kept-key").username == "ada"


def test_the_command_allows_one_write_with_allow_secret(through):
    assert through.cli("kept-key", AWS.body) is not None
    assert through.cli("kept-key", AWS.body, allow=True) is None
    assert Memory.objects.get(name="kept-key").body == AWS.body
    assert _allowed_revision("kept-key").door == "command"


def test_an_operator_may_not_allow(through):
    only = "Only an admin can allow a write that holds a secret."
    assert through.api("kept-key", AWS.body, allow=True) == only
    assert through.mcp("kept-key", AWS.body, allow=True) == only
    assert through.api("kept-key", AWS.body, admin=True, allow="yes") == (
        "allow_secret is true or false."
    )
    # The operator's form has no such box: ticking it anyway is the plain refusal.
    refusal = through.page("kept-key", AWS.body, allow=True)
    assert refusal.startswith("The body holds what looks like an AWS access key on line 3;")
    assert not Memory.objects.exists()


def test_the_box_is_on_the_admins_forms_alone(through):
    for user, shown in ((through.operator, False), (through.admin, True)):
        page = through._client(user).get(reverse("memories:new")).content.decode()
        assert ('name="allow_secret"' in page) is shown


def test_the_history_never_holds_the_credential_and_putting_back_puts_back_the_mask(db):
    first = doors.write(
        "kept-key", description="Payments notes", body=AWS.body, allow_secret=True
    ).memory
    doors.write("kept-key", priority=3)
    for revision in Revision.objects.filter(memory_id=first.id):
        assert not leaks(AWS.secret, str(revision.before) + str(revision.after))
    allowed = Revision.objects.filter(memory_id=first.id).earliest("id")
    undo.restore_version(allowed.id)
    assert "[masked: an AWS access key]" in Memory.objects.get(id=first.id).body


def test_a_refused_write_logs_nothing_of_the_credential(through, caplog):
    with caplog.at_level(logging.DEBUG):
        assert through.api("payments-notes", AWS.body) is not None
        assert through.mcp("payments-notes", AWS.body) is not None
    assert caplog.records, "the refusal was logged"
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert not leaks(AWS.secret, logged)


def test_hygiene_lists_the_memories_holding_one_with_the_line_masked(through):
    doors.write("kept-key", description="Payments notes", body=AWS.body, allow_secret=True)
    doors.write("clean", description="Nothing here", body=LOOKALIKES["sha256"])
    # A memory written before the rule, its credential in a reference.
    doors.write("older", description="Deploy")
    Memory.objects.filter(name="older").update(references=["runbook", f"token={SHAPES[35].secret}"])
    found = hygiene.holding_secrets()
    listed = [(h.memory.name, [(x.field, x.line) for x in h.found]) for h in found.items]
    assert sorted(listed) == [
        ("kept-key", [("body", LINE)]),
        ("older", [("references", 2)]),
    ]
    page = through._client(through.operator).get(
        reverse("insights:hygiene-section", args=["secrets"])
    )
    text = html.unescape(page.content.decode())
    assert page.status_code == 200
    assert "kept-key" in text and "older" in text and "clean" not in text
    assert "[masked: an AWS access key]" in text
    assert "token=[masked: a secret assigned to a key name]" in text
    assert not leaks(AWS.secret, text) and not leaks(SHAPES[35].secret, text)
    token = tokens.create_token(through.operator, "read")[1]
    listed = Api(token).get("/v1/hygiene", section="secrets")
    assert listed.status_code == 200
    body = listed.json()["secrets"]
    assert body["count"] == 2
    assert sorted((i["memory"]["name"], i["found"][0]["field"]) for i in body["items"]) == [
        ("kept-key", "body"),
        ("older", "references"),
    ]
    assert "[masked: an AWS access key]" in listed.content.decode()
    assert not leaks(AWS.secret, listed.content.decode())


def test_the_demo_store_holds_no_credential(db):
    call_command("seed_demo", stdout=io.StringIO())
    assert Memory.objects.count() > 250
    assert hygiene.holding_secrets().count == 0
