"""A description is at most MAX_DESCRIPTION_CHARS (memories.rules.fields), one limit at every
door: the write door, /v1, the page's form, the command and an import. The seed's note on a
description past 200 characters stays a note below it."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memadmin.accounts import tokens
from memories.models import Memory
from memories.rules import fields
from memories.rules.errors import ImportRefused, InvalidField
from memories.writes import doors, imports, snapshot
from tests.api.conftest import Api, make_user
from tests.cli.conftest import memory_file, write_snapshot
from tests.pages.conftest import signed_in

CAP = fields.MAX_DESCRIPTION_CHARS
TOO_LONG = "x" * (CAP + 1)
SENTENCE = f"A description is at most {CAP:,} characters, not {CAP + 1:,}"


def test_the_cap_sits_above_the_long_description_note():
    assert fields.LONG_DESCRIPTION < CAP == 1000


def test_the_write_door_refuses_past_the_cap_and_notes_past_200(db):
    with pytest.raises(InvalidField, match=SENTENCE):
        doors.write("long", description=TOO_LONG)
    result = doors.write("long", description="x" * CAP)
    assert len(result.memory.description) == CAP
    assert any("runs to 1000 characters" in note for note in result.notes)
    assert Memory.objects.count() == 1


def test_the_api_refuses_it_with_the_sentence(db):
    api = Api(tokens.create_token(make_user("ops", "operator"), "write")[1])
    response = api("PUT", "/v1/memories/long", {"description": TOO_LONG})
    assert response.status_code == 400
    assert response.json()["field"] == "description"
    assert SENTENCE in response.json()["error"]
    assert not Memory.objects.exists()


def test_the_page_form_refuses_it_and_draws_the_limit(db):
    operator = signed_in(make_user("olga", "operator"))
    page = operator.get("/memories/_new/").content.decode()
    assert f'data-max-chars="{CAP}"' in page  # counted as typed, never cut short
    response = operator.post(
        "/memories/_new/",
        {"name": "long", "project": "", "description": TOO_LONG, "priority": "5", "load": "index"},
    )
    assert response.status_code == 400
    assert f"at most {CAP} characters" in response.content.decode()
    assert not Memory.objects.exists()


def test_the_command_refuses_it(db):
    with pytest.raises(CommandError, match=SENTENCE):
        call_command("memory", "add", "long", "--description", TOO_LONG, stdout=io.StringIO())
    assert not Memory.objects.exists()


def test_an_import_refuses_it_naming_the_memory(db, tmp_path):
    root = write_snapshot(tmp_path / "snap", {"long.md": memory_file(TOO_LONG)})
    with pytest.raises(ImportRefused) as refused:
        imports.import_memories(snapshot.read_directory(root))
    assert SENTENCE in str(refused.value.refused)
    assert not Memory.objects.exists()
