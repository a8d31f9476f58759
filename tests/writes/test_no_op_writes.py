"""A write that changes nothing is no change, through every door: no row written, no
updated_at moved, no revision, no change set; the answer says nothing changed."""

import pytest
from django.core.management import call_command

from memadmin.accounts import tokens
from memadmin.mcp.session import Session
from memadmin.mcp.tools import TOOLS
from memories.models import ChangeSet, Memory, Revision
from memories.writes import doors
from tests.api.conftest import Api
from tests.api.conftest import make_user as make_api_user
from tests.conftest import make_user
from tests.pages.conftest import signed_in
from tests.pages.test_detail import edit

NOTHING_CHANGED = "Nothing changed: 'note' already holds what was given."


@pytest.fixture
def note(db):
    doors.write(
        "note",
        description="a note",
        body="line one\nline two",
        tags=["ops"],
        references=["docs/runbook.md"],
        priority=5,
        expires="2031-05-01",
    )
    return Memory.objects.get()


def _untouched(note: Memory) -> None:
    after = Memory.objects.get()
    assert after.updated_at == note.updated_at
    assert Revision.objects.count() == 1  # the create
    assert ChangeSet.objects.count() == 0


def test_the_write_door_writes_nothing_for_the_same_values(note):
    result = doors.write(
        "note",
        description="a   note",  # collapsed to what is stored
        body="line one\nline two",
        tags=["ops"],
        references=["docs/runbook.md"],
        priority=5,
        load="index",
        expires="2031-05-01",
    )
    assert result.changed is False and result.notes == [NOTHING_CHANGED]
    _untouched(note)


def test_a_different_value_or_verified_is_still_a_change(note):
    assert doors.write("note", priority=6).changed
    assert doors.write("note", verified=True).changed
    assert Revision.objects.count() == 3


@pytest.mark.parametrize(("field", "value"), [("priority", "5"), ("load", "index")])
def test_an_inline_edit_to_the_same_value_records_nothing_and_says_so(note, field, value):
    operator = signed_in(make_user("bob", "operator"))
    response = operator.post("/memories/note/row/?project=", {field: value}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'class="notice"' in html and NOTHING_CHANGED.replace("'", "&#x27;") in html
    assert "is-saved" not in html
    _untouched(note)


def test_the_edit_form_with_the_same_values_records_nothing(note):
    operator = signed_in(make_user("bob", "operator"))
    response = edit(operator, note, description="a  note")  # collapsed to what is stored
    assert response.status_code == 302
    response = operator.get(response["Location"])
    assert NOTHING_CHANGED.replace("'", "&#x27;") in response.content.decode()
    _untouched(note)


def test_a_put_of_the_same_values_is_acknowledged_without_a_revision(note):
    api = Api(tokens.create_token(make_api_user("otto", "operator"), "write")[1])
    response = api("PUT", "/v1/memories/note", {"priority": 5, "tags": ["ops"]}, project="")
    assert response.status_code == 200
    body = response.json()
    assert body["priority"] == 5 and body["notes"] == [NOTHING_CHANGED]
    assert response["ETag"] == note.etag
    _untouched(note)


def test_an_api_edit_replacing_text_by_itself_records_nothing(note):
    api = Api(tokens.create_token(make_api_user("otto", "operator"), "write")[1])
    response = api(
        "POST", "/v1/memories/note/edit", {"old_string": "one", "new_string": "one"}, project=""
    )
    assert response.status_code == 200
    _untouched(note)


def test_mcp_write_and_edit_of_the_same_values_say_nothing_changed(note):
    write = TOOLS["memory_write"].call(Session(None), {"name": "note", "priority": 5})
    assert write == NOTHING_CHANGED
    edit = TOOLS["memory_edit"].call(
        Session(None), {"name": "note", "old_string": "two", "new_string": "two"}
    )
    assert edit.startswith("Nothing changed")
    _untouched(note)


def test_cli_add_force_and_move_to_the_same_tier_say_nothing_changed(note, capsys):
    call_command("memory", "add", "note", "--description", "a note", "--force")
    call_command("memory", "move", "note", "--to", "")
    assert capsys.readouterr().out.splitlines() == [NOTHING_CHANGED, NOTHING_CHANGED]
    _untouched(note)


def test_without_javascript_an_inline_no_op_says_so_in_a_message(note):
    operator = signed_in(make_user("bob", "operator"))
    response = operator.post("/memories/note/row/?project=", {"priority": "5"}, follow=True)
    assert NOTHING_CHANGED.replace("'", "&#x27;") in response.content.decode()
    assert "Saved &#x27;note&#x27;." not in response.content.decode()
    _untouched(note)
