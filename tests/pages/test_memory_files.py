"""One memory as a file from its page: the Markdown `memory export` writes for it, and the
JSON /v1 answers for it; neither counts as a read."""

import io
import json

import pytest
from django.core.management import call_command

from memadmin.accounts import roles, tokens
from memories.models import Memory
from memories.writes import doors
from tests.api.conftest import Api
from tests.conftest import make_user


@pytest.fixture
def note(db, project):
    doors.write("citer", project="webdev", description="Cites the note", references=["note"])
    return doors.write(
        "note",
        project="webdev",
        description="Deploy notes: go through bastion-2",
        body="# Deploys\n\nGo through **bastion-2**.\n",
        priority=3,
        tags=["ops"],
        references=["https://example.org/runbook"],
    ).memory


def test_the_markdown_is_what_memory_export_writes(auditor, note, tmp_path):
    response = auditor.get("/memories/note/", {"project": "webdev", "format": "md"})
    assert response.status_code == 200
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="note.md"'
    call_command("memory", "export", "--directory", str(tmp_path / "out"), stdout=io.StringIO())
    [exported] = list((tmp_path / "out").rglob("note.md"))
    assert response.content == exported.read_bytes()
    assert response.content.startswith(b"---\ndescription: ")


def test_the_json_is_what_v1_answers(auditor, note):
    response = auditor.get("/memories/note/", {"project": "webdev", "format": "json"})
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="note.json"'
    api = Api(tokens.create_token(make_user("script", roles.AUDITOR), "read")[1])
    assert json.loads(response.content) == api.get("/v1/memories/note", project="webdev").json()
    assert json.loads(response.content)["referenced_by"][0]["name"] == "citer"


def test_neither_counts_a_read(auditor, note):
    client = auditor
    for fmt in ("md", "json"):
        client.get("/memories/note/", {"project": "webdev", "format": fmt})
    assert Memory.objects.get(id=note.id).read_count == 0


def test_an_unknown_format_is_refused_in_a_sentence(auditor, note):
    response = auditor.get("/memories/note/", {"project": "webdev", "format": "pdf"})
    assert response.status_code == 400
    assert "format is md or json." in response.content.decode()


def test_the_page_links_both(auditor, note):
    page = auditor.get("/memories/note/", {"project": "webdev"}).content.decode()
    assert "project=webdev&amp;format=md" in page
    assert "project=webdev&amp;format=json" in page
