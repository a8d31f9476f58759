"""`manage.py memory list|get|show|add|edit|remove|move|verify|embed`: each command and flag."""

import datetime as dt
import io
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from memories import embedding
from memories.models import Memory, MemoryVector
from memories.reads import backlinks, listing
from memories.reads.filters import MemoryFilters
from memories.writes import doors
from projects import writes as project_doors
from tests.cli.conftest import store_state
from tests.conftest import backdate


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def store(write):
    """A small store: two projects sharing a name, references, an expired and an old memory."""
    project_doors.add("webdev")
    project_doors.add("movie")
    write("deploy-host", body="host-7", tags=["infra"], priority=1, source="ops, in chat")
    write("runbook", references=["deploy-host", "docs/runbook.md"], tags=["infra", "process"])
    write("notes", project="webdev", body="web notes", load="search")
    write("notes", project="movie", body="movie notes", references=["deploy-host"])
    write("freeze", expires="2001-01-01", tags=["release"], priority=9)
    backdate(write("stale", load="inline", body="old").memory, days=200)


def _names(out: str) -> list[str]:
    return [line.split()[0] for line in out.splitlines()[1:-1]]


# --- list ---------------------------------------------------------------------------------


def test_list_is_a_table_in_index_order_with_a_project_column(run, store):
    out, _ = run("memory", "list")
    header, *rows, summary = out.splitlines()
    assert header.split() == [
        "NAME", "PROJECT", "PRI", "LOAD", "AGE", "VERIFIED", "READS", "DESCRIPTION"
    ]  # fmt: skip
    assert _names(out) == [m.name for m in listing.memories()]
    assert any(row.split()[:2] == ["notes", "movie"] for row in rows)
    assert any(row.split()[:2] == ["deploy-host", "(global)"] for row in rows)
    assert any("[expired] about freeze" in row for row in rows)
    assert summary == "6 memories, most important first."


@pytest.mark.parametrize(
    ("args", "names", "summary"),
    [
        (["--project", "webdev"], ["notes"], "1 memory in webdev"),
        (["--project", ""], ["deploy-host", "freeze", "runbook", "stale"], "in the global tier"),
        (["--referencing", "deploy-host"], ["notes", "runbook"], "referencing ‘deploy-host’"),
        (["--unverified", "90d"], ["stale"], "unverified for 90 days"),
        (["--expired"], ["freeze"], "1 memory expired"),
        (["--tag", "infra"], ["deploy-host", "runbook"], "tagged infra"),
        (["--load", "search"], ["notes"], "load search"),
        (["--tag", "infra", "--project", ""], ["deploy-host", "runbook"], "global tier, tagged"),
    ],
)
def test_list_filters(run, store, args, names, summary):
    out, _ = run("memory", "list", *args)
    assert sorted(_names(out)) == names
    assert summary in out.splitlines()[-1]


def test_list_as_json_gives_the_api_fields(run, store):
    out, _ = run("memory", "list", "--format", "json", "--project", "")
    data = json.loads(out)
    assert list(data) == ["memories"]
    expected = [m.to_dict() for m in listing.memories(MemoryFilters(project=None))]
    for row in expected:
        row.pop("expired")
    assert [{k: v for k, v in row.items() if k != "expired"} for row in data["memories"]] == (
        expected
    )
    assert {row["name"]: row["expired"] for row in data["memories"]}["freeze"] is True


def test_an_empty_list_says_so(run, store):
    out, _ = run("memory", "list", "--tag", "nothing-has-this")
    assert out == "0 memories tagged nothing-has-this, most important first.\n"


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["--unverified", "soon"], "unverified: 'soon' is not a period"),
        (["--project", "ghost"], "There is no project named 'ghost'"),
        (["--project", "bad name"], "project: A project starts with a letter"),
        (["--load", "sometimes"], "load: Select a valid choice"),
    ],
)
def test_list_refuses_bad_filters(run, store, args, match):
    with pytest.raises(CommandError, match=match):
        run("memory", "list", *args)


def test_list_is_cut_to_the_terminal_width_on_a_terminal(run, write, monkeypatch):
    write("long", description="word " * 80)
    monkeypatch.setenv("COLUMNS", "60")
    out = Terminal()
    call_command("memory", "list", stdout=out)
    assert all(len(line) <= 60 for line in out.getvalue().splitlines())
    piped, _ = run("memory", "list")
    assert any(len(line) > 300 for line in piped.splitlines())


# --- get / show ---------------------------------------------------------------------------


def test_get_prints_every_stored_field_and_the_backlinks(run, store):
    Memory.objects.filter(name="deploy-host").update(read_count=4)
    out, _ = run("memory", "get", "deploy-host")
    lines = out.splitlines()
    field = {line[:15].strip(": "): line[15:] for line in lines if line[:15].strip()}
    assert field["name"] == "deploy-host"
    assert field["project"] == "(global)"
    assert field["description"] == "about deploy-host"
    assert (field["priority"], field["load"], field["tags"]) == ("1", "index", "infra")
    assert field["source"] == "ops, in chat"
    assert field["read_count"] == "4"
    assert field["verified"] == "not verified since it was created"
    assert field["expires"] == "-"
    assert field["referenced by"] == "notes (movie): about notes"
    assert " " * 15 + "runbook (global): about runbook" in lines
    assert field["body"] == "6 characters, 6 bytes"
    assert lines[-1] == "host-7"
    for stamp in ("created", "updated"):
        assert field[stamp].endswith("Z (today)")


def test_get_resolves_references_and_marks_an_expired_memory(run, store):
    out, _ = run("memory", "get", "runbook")
    assert "references:    deploy-host  (about deploy-host)" in out
    assert "docs/runbook.md  (names no memory)" in out
    out, _ = run("memory", "get", "freeze")
    assert "expires:       2001-01-02T00:00:00Z (" in out
    assert out.split("expires:")[1].splitlines()[0].endswith(", expired")


def test_get_as_json_adds_referenced_by(run, store):
    out, _ = run("memory", "get", "deploy-host", "--format", "json")
    data = json.loads(out)
    memory = Memory.objects.get(name="deploy-host")
    assert data == {**memory.to_dict(), "referenced_by": backlinks.backlink_dicts(memory)}
    assert [row["name"] for row in data["referenced_by"]] == ["notes", "runbook"]
    assert "body" not in data


def test_show_prints_the_body_exactly(run, write):
    body = "\r\nfirst\r\n\u200d\n\n"
    write("odd", body=body)
    out, _ = run("memory", "show", "odd")
    assert out == body


def test_show_writes_bytes_straight_to_a_binary_stdout(write):
    body = "line\r\nnext \U0001f468\u200d\U0001f469\n"
    write("odd", body=body)
    raw = io.BytesIO()
    stdout = io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
    call_command("memory", "show", "odd", stdout=stdout)
    assert raw.getvalue() == body.encode("utf-8")


def test_show_as_json_adds_the_body(run, store):
    out, _ = run("memory", "show", "deploy-host", "--format", "json")
    assert json.loads(out) == {
        **Memory.objects.get(name="deploy-host").to_dict(),
        "body": "host-7",
    }


@pytest.mark.parametrize("action", ["get", "show", "edit", "remove"])
def test_a_name_several_projects_hold_is_refused_until_project_names_one(
    run, store, action, monkeypatch
):
    monkeypatch.setenv("VISUAL", "true")
    before = store_state()
    with pytest.raises(
        CommandError,
        match=r"The name 'notes' is held by several projects \('movie', 'webdev'\); "
        r"name one with --project\.",
    ):
        run("memory", action, "notes")
    assert store_state() == before
    run("memory", action, "notes", "--project", "movie")
    if action == "remove":
        assert not Memory.objects.filter(name="notes", project__name="movie").exists()
        assert Memory.objects.filter(name="notes", project__name="webdev").exists()


@pytest.mark.parametrize("action", ["get", "show", "edit", "remove"])
def test_an_unknown_name_is_refused(run, store, action):
    with pytest.raises(CommandError, match="There is no memory named 'ghost'"):
        run("memory", action, "ghost")
    with pytest.raises(CommandError, match="There is no memory named 'deploy-host' in project"):
        run("memory", action, "deploy-host", "--project", "webdev")


# --- add ----------------------------------------------------------------------------------


def test_add_with_every_flag(run, db, tmp_path):
    project_doors.add("webdev")
    out, _ = run(
        "memory",
        "add",
        "freeze",
        "--description",
        "No deploys this week",
        "--body",
        "Until the 25th.",
        "--priority",
        "2",
        "--tag",
        "release",
        "--tag",
        "ops",
        "--reference",
        "deploy-host",
        "--reference",
        "https://wiki.example.com/freeze",
        "--load",
        "inline",
        "--expires",
        "2099-10-25",
        "--source",
        "ops, in chat",
        "--project",
        "webdev",
    )
    assert out == "Saved memory 'freeze' in project 'webdev' (priority 2, load inline).\n"
    memory = Memory.objects.get(name="freeze")
    assert memory.project_name == "webdev"
    assert (memory.description, memory.body, memory.priority, memory.load) == (
        "No deploys this week",
        "Until the 25th.",
        2,
        "inline",
    )
    assert memory.tags == ["release", "ops"]
    assert memory.references == ["deploy-host", "https://wiki.example.com/freeze"]
    assert memory.source == "ops, in chat"
    assert memory.expires_at == dt.datetime(2099, 10, 26, tzinfo=dt.UTC)


def test_add_refuses_an_existing_name_without_force(run, store):
    before = store_state()
    with pytest.raises(
        CommandError,
        match="'deploy-host' is already a memory of the global tier; --force updates it",
    ):
        run("memory", "add", "deploy-host", "--description", "other")
    with pytest.raises(CommandError, match="'notes' is already a memory of project 'webdev'"):
        run("memory", "add", "notes", "--project", "webdev", "--description", "other")
    with pytest.raises(CommandError, match="'notes' is already a memory of several projects"):
        run("memory", "add", "notes", "--description", "other")
    assert store_state() == before


def test_add_force_keeps_what_it_does_not_mention(run, store):
    memory = backdate(Memory.objects.get(name="deploy-host"), days=40)
    out, _ = run("memory", "add", "deploy-host", "--force", "--description", "Deploys: host-9")
    assert out == "Updated memory 'deploy-host' in the global tier (priority 1, load index).\n"
    after = Memory.objects.get(name="deploy-host")
    assert after.description == "Deploys: host-9"
    assert (after.body, after.tags, after.priority, after.source) == (
        "host-7",
        ["infra"],
        1,
        "ops, in chat",
    )
    assert after.created_at == memory.created_at
    assert after.verified_at == memory.verified_at, "only --verified moves it"
    run("memory", "add", "deploy-host", "--force", "--verified")
    assert Memory.objects.get(name="deploy-host").verified_at > memory.verified_at


def test_add_force_clears_with_empty_values(run, store):
    run(
        "memory", "add", "freeze", "--force",
        "--body", "", "--expires", "", "--tag", "", "--reference", "",
    )  # fmt: skip
    memory = Memory.objects.get(name="freeze")
    assert (memory.body, memory.expires_at, memory.tags, memory.references) == ("", None, [], [])


def test_add_from_a_file_keeps_it_byte_for_byte(run, db, tmp_path):
    body = "# Notes\r\n\r\n\u200d trailing  \n\n"
    (tmp_path / "notes.md").write_bytes(body.encode("utf-8"))
    path = str(tmp_path / "notes.md")
    run("memory", "add", "notes", "--description", "Meeting notes", "--from-file", path)
    assert Memory.objects.get(name="notes").body == body


def test_add_from_stdin(run, db, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"from a pipe\r\n")))
    run("memory", "add", "piped", "--description", "From stdin", "--from-file", "-")
    assert Memory.objects.get(name="piped").body == "from a pipe\r\n"


def test_add_notes_a_near_duplicate(run, write):
    write("alice-timezone", description="Alice works in Europe/Berlin")
    out, _ = run("memory", "add", "alice-tz", "--description", "Alice works in Europe/Berlin")
    assert "Note: 'alice-timezone' already says something very similar" in out


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["new"], "A new memory needs a description"),
        (["new", "--description", "d", "--priority", "high"], "The priority must be a whole"),
        (["new", "--description", "d", "--priority", "101"], "The priority must be between"),
        (["new", "--description", "d", "--load", "always"], "The load must be inline, index"),
        (["new", "--description", "d", "--expires", "soon"], "'soon' is not an RFC 3339"),
        (["new", "--description", "d", "--project", "ghost"], "There is no project named"),
        (["bad name", "--description", "d"], "A name starts with a letter or digit"),
        (["new", "--description", "d", "--from-file", "/nonexistent"], "Could not read"),
        (["new", "--description", "d", "--body", "b", "--from-file", "f"], "not allowed with"),
        (["deploy-host", "--project", "webdev", "--description", "d"], "global name is never"),
    ],
)
def test_add_refusals_land_nothing(run, store, args, match):
    before = store_state()
    with pytest.raises(CommandError, match=match):
        run("memory", "add", *args)
    assert store_state() == before


def test_add_refuses_a_file_that_is_not_utf8(run, db, tmp_path):
    (tmp_path / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(CommandError, match="is not UTF-8 text"):
        run("memory", "add", "x", "--description", "d", "--from-file", str(tmp_path / "latin1.txt"))
    assert not Memory.objects.exists()


def test_add_refuses_past_the_inline_budget(run, db, small_budget):
    run("memory", "add", "rule", "--description", "r", "--load", "inline", "--body", "x" * 80)
    before = store_state()
    with pytest.raises(CommandError, match=r"inline memories would total 0\.2 KiB against"):
        run("memory", "add", "more", "--description", "m", "--load", "inline", "--body", "y" * 80)
    assert store_state() == before


# --- edit ---------------------------------------------------------------------------------


def _editor(tmp_path, code: str) -> str:
    script = tmp_path / "editor.py"
    script.write_text("import pathlib, sys\npath = pathlib.Path(sys.argv[1])\n" + code)
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def test_edit_opens_visual_on_the_body_and_saves_it(run, write, tmp_path, monkeypatch):
    memory = backdate(write("notes", body="first\r\n").memory, days=10)
    monkeypatch.setenv("VISUAL", _editor(tmp_path, "path.write_bytes(path.read_bytes() + b'more')"))
    monkeypatch.setenv("EDITOR", "false")
    out, _ = run("memory", "edit", "notes")
    assert out == "Saved the new body of 'notes' in the global tier.\n"
    after = Memory.objects.get(name="notes")
    assert after.body == "first\r\nmore"
    assert after.verified_at == memory.verified_at


def test_edit_falls_back_to_editor_and_verified_stamps(run, write, tmp_path, monkeypatch):
    memory = backdate(write("notes", body="a").memory, days=10)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", _editor(tmp_path, "path.write_text('b')"))
    run("memory", "edit", "notes", "--verified")
    after = Memory.objects.get(name="notes")
    assert after.body == "b"
    assert after.verified_at > memory.verified_at


def test_edit_with_no_change_saves_nothing_unless_verified(run, write, monkeypatch):
    memory = backdate(write("notes", body="same").memory, days=10)
    monkeypatch.setenv("VISUAL", "true")
    before = store_state()
    out, _ = run("memory", "edit", "notes")
    assert out == "No change to 'notes'; nothing was saved.\n"
    assert store_state() == before
    out, _ = run("memory", "edit", "notes", "--verified")
    assert out == "Verified 'notes' in the global tier.\n"
    assert Memory.objects.get(name="notes").verified_at > memory.verified_at


@pytest.mark.parametrize(
    ("visual", "match"),
    [
        (None, r"Set \$VISUAL or \$EDITOR"),
        ("false", "The editor exited with status 1; nothing was saved"),
        ("/nonexistent/editor", "Could not start the editor '/nonexistent/editor'"),
    ],
)
def test_edit_refusals_land_nothing(run, write, monkeypatch, visual, match):
    write("notes", body="kept")
    monkeypatch.delenv("EDITOR", raising=False)
    if visual is None:
        monkeypatch.delenv("VISUAL", raising=False)
    else:
        monkeypatch.setenv("VISUAL", visual)
    before = store_state()
    with pytest.raises(CommandError, match=match):
        run("memory", "edit", "notes")
    assert store_state() == before


def test_edit_refuses_to_land_over_a_body_that_changed_meanwhile(run, write, monkeypatch):
    write("notes", body="original")

    def editor_while_someone_else_writes(command, check):
        doors.write("notes", body="changed meanwhile")
        path = command[-1]
        with open(path, "w") as handle:
            handle.write("my edit")
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setenv("VISUAL", "vi")
    monkeypatch.setattr(subprocess, "run", editor_while_someone_else_writes)
    with pytest.raises(CommandError) as refused:
        run("memory", "edit", "notes")
    message = str(refused.value)
    assert message.startswith("The body of 'notes' changed while you were editing it; nothing")
    kept = message.rsplit("Your text is kept in ", 1)[1].rstrip(".")
    with open(kept) as handle:
        assert handle.read() == "my edit"
    shutil.rmtree(Path(kept).parent)
    assert Memory.objects.get(name="notes").body == "changed meanwhile"


def test_edit_keeps_the_text_when_the_budget_refuses_it(
    run, write, tmp_path, small_budget, monkeypatch
):
    write("rule", load="inline", body="short")
    monkeypatch.setenv("VISUAL", _editor(tmp_path, "path.write_text('x' * 200)"))
    with pytest.raises(
        CommandError, match="inline memories would total .* Your text is kept in"
    ) as refused:
        run("memory", "edit", "rule")
    assert Memory.objects.get(name="rule").body == "short"
    kept = Path(str(refused.value).rsplit("Your text is kept in ", 1)[1].rstrip("."))
    assert kept.read_text() == "x" * 200
    shutil.rmtree(kept.parent)


# --- remove -------------------------------------------------------------------------------


def test_remove_names_what_still_references_it(run, store):
    out, _ = run("memory", "remove", "deploy-host")
    assert out == (
        "Removed memory 'deploy-host' from the global tier.\n"
        "Still referenced by 'notes' (movie), 'runbook' (global); their references are left in "
        "place, as markers of a fact to revisit.\n"
    )
    assert Memory.objects.get(name="runbook").references[0] == "deploy-host"
    out, _ = run("memory", "remove", "stale")
    assert out == "Removed memory 'stale' from the global tier.\n"


# --- verify -------------------------------------------------------------------------------


SOUND_VECTORS_AND_KEYS = (
    f"Every memory has a vector of {embedding.MODEL_VERSION}.\n"
    "Every memory's wording key is its description's.\n"
)


def test_verify_reports_drift_and_rebuild_mends_it(run, store):
    out, _ = run("memory", "verify")
    assert out == (
        "The search index is sound and holds 6 documents for 6 memories.\n" + SOUND_VECTORS_AND_KEYS
    )
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM memories_reference")
    with pytest.raises(CommandError, match="memories_reference does not match"):
        run("memory", "verify")
    out, _ = run("memory", "verify", "--rebuild")
    assert out.endswith(
        "The search index is sound and holds 6 documents for 6 memories.\n" + SOUND_VECTORS_AND_KEYS
    )


def test_verify_reports_missing_and_other_version_vectors_and_rebuild_mends_them(run, store):
    ids = list(Memory.objects.order_by("id").values_list("id", flat=True))
    MemoryVector.objects.filter(memory_id=ids[0]).delete()
    MemoryVector.objects.filter(memory_id__in=ids[1:3]).update(model="wordllama-0.0/old")
    with pytest.raises(CommandError) as refused:
        run("memory", "verify")
    assert str(refused.value) == (
        "The vectors are out of step: 1 of 6 memories without a vector; 2 of 6 memories with "
        f"a vector of another model than {embedding.MODEL_VERSION}. Run `manage.py memory "
        "verify --rebuild` (or `memory embed`) to mend them."
    )
    out, _ = run("memory", "verify", "--rebuild")
    assert "Embedded again: 1 of 6 memories without a vector; 2 of 6" in out
    assert out.endswith(SOUND_VECTORS_AND_KEYS)
    assert MemoryVector.objects.filter(model=embedding.MODEL_VERSION).count() == 6


def test_embed_backfills_what_lacks_a_vector_and_rebuild_embeds_everything(run, store):
    MemoryVector.objects.all().delete()
    out, _ = run("memory", "embed")
    assert out == f"Embedded 6 of 6 memories with {embedding.MODEL_VERSION}.\n"
    first = set(MemoryVector.objects.values_list("id", flat=True))
    out, _ = run("memory", "embed")
    assert out == f"Embedded 0 of 6 memories with {embedding.MODEL_VERSION}.\n"
    out, _ = run("memory", "embed", "--rebuild")
    assert out == f"Embedded 6 of 6 memories with {embedding.MODEL_VERSION}.\n"
    assert not first & set(MemoryVector.objects.values_list("id", flat=True))


# --- progress -----------------------------------------------------------------------------


def test_long_runs_draw_a_bar_on_a_terminal_and_stay_quiet_when_piped(db, tmp_path, settings):
    settings.MEMADMIN_INLINE_MAX_BYTES = 1 << 20
    terminal = Terminal()
    call_command("seed_demo", stdout=io.StringIO(), stderr=terminal)
    assert "\rSeeding [" in terminal.getvalue()
    runs = [
        ("Exporting", ["memory", "export", "--directory", str(tmp_path / "a")]),
        ("Reading", ["memory", "import", str(tmp_path / "a"), "--force"]),
        ("Importing", ["memory", "import", str(tmp_path / "a"), "--force"]),
        ("Rebuilding", ["memory", "verify", "--rebuild"]),
        ("Embedding", ["memory", "embed", "--rebuild"]),
    ]
    for label, args in runs:
        terminal = Terminal()
        call_command(*args, stdout=io.StringIO(), stderr=terminal)
        drawn = terminal.getvalue()
        assert f"\r{label} [" in drawn
        assert drawn.endswith("\r"), "the bar is erased when done"
    piped = io.StringIO()
    call_command(
        "memory", "export", "--directory", str(tmp_path / "b"), stderr=piped, stdout=io.StringIO()
    )
    call_command(
        "memory", "import", str(tmp_path / "b"), "--force", stderr=piped, stdout=io.StringIO()
    )
    assert piped.getvalue() == ""


# --- move ---------------------------------------------------------------------------------


def test_move_refiles_a_memory_and_keeps_the_rest(run, store):
    before = Memory.objects.get(name="runbook")
    out, _ = run("memory", "move", "runbook", "--to", "webdev")
    assert out == "Moved memory 'runbook' to project 'webdev'.\n"
    moved = doors.locate("runbook", "webdev")
    assert (moved.id, moved.body, moved.tags, moved.created_at) == (
        before.id,
        before.body,
        before.tags,
        before.created_at,
    )
    out, _ = run("memory", "move", "runbook", "--project", "webdev", "--to", "")
    assert out == "Moved memory 'runbook' to the global tier.\n"
    assert doors.locate("runbook", None).project is None


def api_refusal(data: dict, **query) -> str:
    from django.contrib.auth.models import Group, User
    from django.test import Client

    from memadmin.accounts import tokens

    user, _ = User.objects.get_or_create(username="mover")
    user.groups.add(Group.objects.get(name="operator"))
    token = tokens.create_token(user, "write")[1]
    path = "/v1/memories/" + query.pop("name") + "".join(f"?project={p}" for p in query.values())
    response = Client().put(
        path, data, content_type="application/json", headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code >= 400, response.content
    return response.json()["error"]


@pytest.mark.parametrize(
    ("name", "project", "to"),
    [
        ("notes", "webdev", "nowhere"),  # no such project
        ("notes", "webdev", "bad name"),  # not a project's name
        ("notes", "webdev", None),  # movie holds 'notes' too: a global name is no project's
    ],
)
def test_move_refuses_as_the_api_project_key_does(run, store, name, project, to):
    before = store_state()
    args = [name, "--to", to or ""] + (["--project", project] if project else [])
    with pytest.raises(CommandError) as refused:
        run("memory", "move", *args)
    assert store_state() == before
    query = {"name": name} | ({"project": project} if project else {})
    assert str(refused.value) == api_refusal({"project": to}, **query)
    assert store_state() == before


def test_move_of_a_memory_no_tier_holds(run, store):
    with pytest.raises(CommandError, match="There is no memory named 'absent'."):
        run("memory", "move", "absent", "--to", "webdev")
    with pytest.raises(CommandError, match="held by several projects .* name one with --project"):
        run("memory", "move", "notes", "--to", "")


def test_move_refuses_past_the_inline_budget(run, db, small_budget):
    project_doors.add("webdev")
    doors.write("rule", description="r", load="inline", body="x" * 60)
    doors.write("big", project="webdev", description="b", load="inline", body="y" * 30)
    project_doors.add("infra")
    doors.write("other", project="infra", description="o", load="inline", body="z" * 30)
    before = store_state()
    # Into webdev's band it would join 60 + 30 = 90 with 30 more: past the 100 bytes.
    with pytest.raises(CommandError, match=r"inline memories would total 0\.1 KiB against"):
        run("memory", "move", "other", "--project", "infra", "--to", "webdev")
    assert store_state() == before
