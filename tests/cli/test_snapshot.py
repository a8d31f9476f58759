"""memory export / import: snapshots that restore exactly, and every refusal landing nothing."""

import datetime as dt
import io
import resource
import subprocess
import sys
import tracemalloc
import warnings
import zipfile

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memories.models import Memory
from memories.rules.errors import ImportRefused, SnapshotError
from memories.writes import imports, snapshot
from projects import writes as project_doors
from projects.models import Project
from tests.cli.conftest import (
    AWKWARD_BODIES,
    add_awkward,
    memory_file,
    store_state,
    tree,
    write_snapshot,
)
from tests.reliability.conftest import ROOT, manage, migrate, store_env


def _empty_the_store() -> None:
    Memory.objects.all().delete()
    Project.objects.all().delete()


def _everything() -> dict:
    return {
        (m.name, m.project_name): (
            m.description,
            m.body,
            m.tags,
            m.references,
            m.priority,
            m.load,
            m.source,
            m.created_at,
            m.verified_at,
            m.expires_at,
            m.read_count,
        )
        for m in Memory.objects.select_related("project")
    }


def test_round_trip_over_the_demo_store_and_awkward_bodies_is_byte_exact(run, tmp_path, settings):
    # The demo pushes one band past the budget behind the doors' back, as a lowered budget
    # would; the awkward writes and the import hold the budget, so they are given room.
    settings.MEMADMIN_INLINE_MAX_BYTES = 1 << 20
    call_command("seed_demo", stdout=io.StringIO())
    add_awkward()
    before = _everything()
    first, second = tmp_path / "first", tmp_path / "second"

    out, _ = run("memory", "export", "--directory", str(first))
    assert out == f"Exported {len(before)} memories to {first}.\n"

    _empty_the_store()
    for project in sorted(p.name for p in first.iterdir() if p.is_dir()):
        run("project", "add", project)
    out, _ = run("memory", "import", str(first))
    assert f"{len(before)} added, 0 overwritten" in out
    run("memory", "export", "--directory", str(second))

    assert _everything() == before, "created, verified, read_count and every field restored"
    first_tree, second_tree = tree(first), tree(second)
    assert first_tree == second_tree
    assert {mode for mode, content in first_tree.values() if content is None} == {0o700}
    assert {mode for mode, content in first_tree.values() if content is not None} == {0o600}
    for name, body in AWKWARD_BODIES.items():
        memory = Memory.objects.get(name=f"awkward-{name}")
        assert memory.body == body
        path = first / snapshot.relative_path(memory.name, memory.project_name)
        assert path.read_bytes().endswith(b"---\n" + body.encode("utf-8"))


def test_the_dashboard_zip_holds_the_same_snapshot(db, tmp_path, settings):
    settings.MEMADMIN_INLINE_MAX_BYTES = 1 << 20
    call_command("seed_demo", stdout=io.StringIO())
    add_awkward()
    before = _everything()
    snapshot.export_directory(tmp_path / "folder")
    archive = io.BytesIO()
    assert snapshot.export_zip(archive) == len(before)
    with zipfile.ZipFile(archive) as opened:
        for info in opened.infolist():
            expected = (tmp_path / "folder" / info.filename).stat().st_mode
            assert info.external_attr >> 16 == expected
            if not info.is_dir():
                assert opened.read(info) == (tmp_path / "folder" / info.filename).read_bytes()

    _empty_the_store()
    for name in sorted({project for _, project in before if project}):
        project_doors.add(name)
    archive.seek(0)
    imports.import_memories(snapshot.read_zip(archive))
    assert _everything() == before


def test_frontmatter_carries_only_what_differs_from_the_defaults(write, tmp_path):
    write("plain", body="text")
    memory = Memory.objects.get(name="plain")
    text = snapshot.render(memory).decode()
    created = memory.created_at.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    assert text == (f"---\ndescription: about plain\ncreated: {created}\nread_count: 0\n---\ntext")


def test_a_superseded_memory_comes_back_superseded_by_its_correction(write, tmp_path):
    write("db-host", body="db-1.internal")
    write("db-host-2", body="db-2.internal", supersedes="db-host")
    old = Memory.objects.get(name="db-host")
    assert "\nsuperseded_by: db-host-2\n" in snapshot.render(old).decode()
    assert "superseded_by" not in snapshot.render(Memory.objects.get(name="db-host-2")).decode()
    stood = {m.name: (m.superseded_by, m.expires_at) for m in Memory.objects.all()}
    snapshot.export_directory(tmp_path / "snap")
    _empty_the_store()
    imports.import_memories(snapshot.read_directory(tmp_path / "snap"))
    assert {m.name: (m.superseded_by, m.expires_at) for m in Memory.objects.all()} == stood


def test_a_successor_that_is_no_name_is_refused_by_the_import(db, tmp_path):
    folder = tmp_path / "snap"
    write_snapshot(folder, {"old.md": memory_file(superseded_by="no way")})
    plan = imports.preview_import(snapshot.read_directory(folder))
    assert [p.reason for p in plan.refused] == [
        "A superseded_by starts with a letter or digit and holds only letters, digits, "
        "'.', '_' and '-'."
    ]


def test_a_project_export_holds_that_tier_alone(run, awkward, tmp_path):
    run("memory", "export", "--directory", str(tmp_path / "odd"), "--project", "odd")
    files = sorted(
        p.relative_to(tmp_path / "odd").as_posix() for p in (tmp_path / "odd").rglob("*")
    )
    assert "export.toml" in files
    assert all(f.startswith("odd") or f == "export.toml" for f in files)
    assert (
        len([f for f in files if f.endswith(".md")])
        == Memory.objects.filter(project__name="odd").count()
    )
    run("memory", "export", "--directory", str(tmp_path / "global"), "--project", "")
    names = sorted(p.name for p in (tmp_path / "global").iterdir())
    assert "odd" not in names
    assert len(names) - 1 == Memory.objects.filter(project__isnull=True).count()


def test_an_existing_empty_directory_is_tightened(run, awkward, tmp_path):
    target = tmp_path / "empty"
    target.mkdir(mode=0o755)
    target.chmod(0o755)
    run("memory", "export", "--directory", str(target))
    assert target.stat().st_mode & 0o777 == 0o700


def test_hidden_entries_are_not_part_of_the_snapshot(run, awkward, tmp_path):
    run("memory", "export", "--directory", str(tmp_path / "snap"))
    (tmp_path / "snap" / ".git").mkdir()
    (tmp_path / "snap" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / "snap" / ".DS_Store").write_bytes(b"\x00\x01")
    entries = snapshot.read_directory(tmp_path / "snap")
    assert len(entries) == Memory.objects.count()


# --- export refusals ----------------------------------------------------------------------


def test_export_refuses_a_directory_that_is_not_empty(run, awkward, tmp_path):
    (tmp_path / "stale.md").write_text("from an older snapshot")
    with pytest.raises(CommandError, match="is not empty; an export goes into a new or empty"):
        run("memory", "export", "--directory", str(tmp_path))
    assert [p.name for p in tmp_path.iterdir()] == ["stale.md"]


def test_export_refuses_a_file_in_place_of_the_directory(run, awkward, tmp_path):
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(CommandError, match="is not a directory"):
        run("memory", "export", "--directory", str(tmp_path / "a-file"))


def test_export_refuses_an_unknown_project(run, awkward, tmp_path):
    with pytest.raises(CommandError, match="There is no project named 'nope'"):
        run("memory", "export", "--directory", str(tmp_path / "x"), "--project", "nope")
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    ("description", "problem"),
    [
        ("", "is blank once collapsed to one line"),
        ("\x85\u2028\u2029 \t", "is blank once collapsed to one line"),
        # PostgreSQL's text holds no NUL at all: only SQLite's row can.
        pytest.param("a\x00b", "holds a NUL character", marks=pytest.mark.engine("sqlite")),
    ],
)
def test_a_description_yaml_cannot_carry_refuses_the_whole_run_naming_it(
    run, awkward, tmp_path, description, problem
):
    # Only a row written past the doors can hold one: every door collapses descriptions.
    Memory.objects.filter(name="awkward-cjk").update(description=description)
    with pytest.raises(CommandError, match=rf"The description of 'awkward-cjk' \(odd\) {problem}"):
        run("memory", "export", "--directory", str(tmp_path / "snap"))
    assert not (tmp_path / "snap").exists()


def test_a_project_folder_sharing_a_root_file_name_is_refused(run, write, tmp_path):
    project_doors.add("notes.md")
    write("notes", body="global")
    write("inside", project="notes.md")
    with pytest.raises(CommandError, match="Project 'notes.md' would be written as a folder"):
        run("memory", "export", "--directory", str(tmp_path / "snap"))
    assert not (tmp_path / "snap").exists()


@pytest.mark.parametrize("fault", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_failure_partway_removes_what_was_written(run, awkward, tmp_path, monkeypatch, fault):
    real_write, calls = snapshot._write_file, []

    def failing(path, data):
        calls.append(path)
        if len(calls) == 4:
            raise fault
        real_write(path, data)

    monkeypatch.setattr(snapshot, "_write_file", failing)
    new = tmp_path / "parent" / "snap"
    with pytest.raises((CommandError, KeyboardInterrupt)):
        run("memory", "export", "--directory", str(new))
    assert not (tmp_path / "parent").exists(), "the folders it created went too"
    calls.clear()
    existing = tmp_path / "existing"
    existing.mkdir()
    with pytest.raises((CommandError, KeyboardInterrupt)):
        run("memory", "export", "--directory", str(existing))
    assert list(existing.iterdir()) == []


def test_a_disk_error_is_refused_in_a_sentence(run, awkward, tmp_path, monkeypatch):
    def full(path, data):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(snapshot, "_write_file", full)
    with pytest.raises(CommandError, match="No space left on device; what the export had written"):
        run("memory", "export", "--directory", str(tmp_path / "snap"))


# --- import refusals ----------------------------------------------------------------------


def _refused(run, path, *args, match):
    before = store_state()
    with pytest.raises(CommandError, match=match):
        run("memory", "import", str(path), *args)
    assert store_state() == before, "nothing of a refused import lands"


@pytest.mark.parametrize(
    ("manifest", "match"),
    [
        (None, "There is no export.toml beside the memory files"),
        ("format_version = 2\n", "This snapshot is format_version 2; this memadmin reads"),
        ('format_version = "1"\n', "This snapshot is format_version 1; this memadmin reads"),
        ("title = 'no version'\n", "export.toml carries no format_version"),
        ("format_version = \n", "export.toml is not valid TOML"),
    ],
)
def test_the_manifest_is_read_first(run, awkward, tmp_path, manifest, match):
    root = write_snapshot(tmp_path / "snap", {"broken.md": "no frontmatter"}, version=None)
    if manifest is not None:
        (root / "export.toml").write_text(manifest)
    _refused(run, root, match=match)


def test_import_refuses_what_is_not_a_directory(run, db, tmp_path):
    _refused(run, tmp_path / "missing", match="is not a directory")


@pytest.mark.parametrize(
    ("files", "match"),
    [
        ({"a.md": "no frontmatter\n"}, "'a.md' does not start with YAML frontmatter"),
        ({"a.md": "---\ndescription: [unclosed\n---\n"}, "'a.md': the frontmatter is not valid"),
        ({"a.md": "---\n- a list\n---\n"}, "'a.md': the frontmatter is not a set of fields"),
        ({"a.md": memory_file(prority=3)}, "'a.md': unknown field 'prority'"),
        ({"a.md": "---\ncreated: 2024-01-02T03:04:05Z\n---\n"}, "'a.md' has no description"),
        ({"a.md": "---\ndescription: x\n---\n"}, "'a.md' has no created"),
        ({"a.md": memory_file(created="2024-01-02 03:04:05")}, "'a.md': created must be an"),
        ({"a.md": memory_file(created="yesterday")}, "'a.md': created must be an RFC 3339"),
        ({"a.md": memory_file(priority="high")}, "'a.md': priority must be a whole number"),
        ({"a.md": memory_file(read_count="true")}, "'a.md': read_count must be a whole number"),
        ({"a.md": memory_file(tags="[1, 2]")}, "'a.md': tags must be a list of text lines"),
        ({"a.md": memory_file(description="[x]")}, "'a.md': description must be text"),
        ({"a.md": memory_file(project="odd")}, "'a.md' says project 'odd' but sits at the root"),
        ({"odd/a.md": memory_file()}, "'odd/a.md' says no project but sits in 'odd'"),
        ({"odd/deep/a.md": memory_file()}, "'odd/deep/a.md' is not where a snapshot keeps"),
        ({"notes.txt": "hello"}, "'notes.txt' is not where a snapshot keeps a memory"),
        ({"a.md": b"---\ndescription: x\ncreated: 2024-01-02T03:04:05Z\n---\n\xff"}, "not UTF-8"),
    ],
)
def test_a_file_that_is_not_a_memory_refuses_the_import_naming_it(
    run, awkward, tmp_path, files, match
):
    good = {f"good-{n}.md": memory_file(f"good {n}") for n in range(3)}
    _refused(run, write_snapshot(tmp_path / "snap", {**good, **files}), match=match)


def test_an_unknown_project_is_refused_and_nothing_lands(run, db, tmp_path):
    files = {f"n{n}.md": memory_file() for n in range(5)}
    files |= {f"ghost/g{n}.md": memory_file(project="ghost") for n in range(4)}
    _refused(
        run,
        write_snapshot(tmp_path / "snap", files),
        match=r"4 of the snapshot's 9 memories are refused\. There is no project named 'ghost'; "
        r"add it first: 'g0' \(ghost\), 'g1' \(ghost\), 'g2' \(ghost\) and 1 more\.",
    )


def test_a_memory_already_in_the_tier_is_refused_by_name_unless_force(run, write, tmp_path):
    project_doors.add("odd")
    write("kept", body="in the store", project="odd", priority=2)
    files = {
        "odd/kept.md": memory_file(
            "from the file",
            body="from the file\r\n",
            project="odd",
            created="2020-05-06T07:08:09.123456Z",
            verified="2021-01-01T00:00:00Z",
            read_count=41,
        ),
        "fresh.md": memory_file("new one"),
    }
    root = write_snapshot(tmp_path / "snap", files)
    _refused(
        run,
        root,
        match=r"'kept' \(odd\)",
    )
    out, _ = run("memory", "import", str(root), "--force")
    assert out == f"Imported 2 memories from {root}: 1 added, 1 overwritten.\n"
    kept = Memory.objects.get(name="kept")
    assert (kept.description, kept.body, kept.priority, kept.read_count) == (
        "from the file",
        "from the file\r\n",
        5,
        41,
    )
    assert kept.created_at == dt.datetime(2020, 5, 6, 7, 8, 9, 123456, tzinfo=dt.UTC)
    assert kept.verified_at == dt.datetime(2021, 1, 1, tzinfo=dt.UTC)
    assert kept.updated_at > kept.verified_at


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_a_global_and_project_name_clash_is_refused_outright(run, write, tmp_path, force):
    project_doors.add("odd")
    write("shared", body="global")
    write("theirs", project="odd")
    root = write_snapshot(
        tmp_path / "snap",
        {"odd/shared.md": memory_file(project="odd"), "theirs.md": memory_file()},
    )
    _refused(run, root, *force, match="'shared' is also a memory of the global tier")
    _refused(run, root, *force, match="'theirs' is also a memory of project 'odd'")


def test_a_clash_within_the_snapshot_itself_is_refused(run, db, tmp_path):
    project_doors.add("odd")
    root = write_snapshot(
        tmp_path / "snap", {"both.md": memory_file(), "odd/both.md": memory_file(project="odd")}
    )
    _refused(run, root, match=r"2 of the snapshot's 2 memories are refused")


def test_the_inline_budget_holds_over_the_whole_import(run, db, tmp_path, small_budget):
    body = "x" * 60  # each fits the 100-byte budget alone; together they do not
    root = write_snapshot(
        tmp_path / "snap",
        {f"rule-{n}.md": memory_file(body=body, load="inline") for n in range(2)},
    )
    _refused(
        run,
        root,
        match=r"The whole would pass the inline budget: inline memories would total 0\.1 KiB",
    )


def test_a_field_no_memory_may_hold_is_refused_naming_the_memory(run, db, tmp_path):
    root = write_snapshot(
        tmp_path / "snap",
        {
            "ok.md": memory_file(),
            "loud.md": memory_file(priority=500),
            "Bad name.md": memory_file(),
        },
    )
    _refused(run, root, match=r"The priority must be between 0 \(most important\) and 100: 'loud'")


def test_expired_and_day_expiries_come_back_as_written(run, db, tmp_path, settings):
    settings.TIME_ZONE = "Europe/Berlin"
    root = write_snapshot(
        tmp_path / "snap",
        {
            "day.md": memory_file(expires="2026-10-25"),
            "gone.md": memory_file(expires="2001-01-01T00:00:00+02:00"),
        },
    )
    run("memory", "import", str(root))
    day = Memory.objects.get(name="day")
    assert day.expires_at == dt.datetime(2026, 10, 25, 23, 0, tzinfo=dt.UTC)
    assert Memory.objects.get(name="gone").is_expired()


def test_a_dry_run_lands_nothing_and_says_what_would_happen(run, write, tmp_path):
    write("kept")
    root = write_snapshot(tmp_path / "snap", {"kept.md": memory_file(), "new.md": memory_file()})
    before = store_state()
    out, _ = run("memory", "import", str(root), "--dry-run", "--force")
    assert out == (
        "would overwrite 'kept' (global)\n"
        "2 memories in the snapshot: 1 would be added, 1 overwritten, 0 refused.\n"
        "Nothing was imported (a dry run).\n"
    )
    with pytest.raises(CommandError, match="overwriting needs force"):
        run("memory", "import", str(root), "--dry-run")
    assert store_state() == before


def test_the_preview_is_what_the_import_then_does(write, tmp_path):
    project_doors.add("odd")
    write("kept")
    write("shared")
    root = write_snapshot(
        tmp_path / "snap",
        {
            "kept.md": memory_file(),
            "new.md": memory_file(),
            "ghost/g.md": memory_file(project="ghost"),
            "odd/shared.md": memory_file(project="odd"),
        },
    )
    entries = snapshot.read_directory(root)
    before = store_state()
    plan = imports.preview_import(entries, force=True)
    assert store_state() == before
    assert [p.entry.label for p in plan.added] == ["'new' (global)"]
    assert [p.entry.label for p in plan.overwritten] == ["'kept' (global)"]
    assert {p.entry.label: p.reason for p in plan.refused} == {
        "'g' (ghost)": "There is no project named 'ghost'; add it first.",
        "'shared' (odd)": "'shared' is also a memory of the global tier, and a global name is "
        "never also a project's: choose another name.",
    }
    with pytest.raises(ImportRefused) as refused:
        imports.import_memories(entries, force=True)
    assert refused.value.details["refused"] == [p.to_dict() for p in plan.refused]
    assert store_state() == before


def test_an_empty_snapshot_imports_nothing(run, db, tmp_path):
    root = write_snapshot(tmp_path / "snap", {})
    out, _ = run("memory", "import", str(root))
    assert out.startswith("Imported 0 memories")


# --- the zip ------------------------------------------------------------------------------


def _zip(files: dict[str, bytes]) -> io.BytesIO:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as opened:
        for name, data in files.items():
            opened.writestr(name, data)
    archive.seek(0)
    return archive


def test_a_zip_of_the_snapshot_folder_reads_as_the_snapshot(db):
    archive = _zip(
        {
            "backup/export.toml": b"format_version = 1\n",
            "backup/a.md": memory_file().encode(),
            "__MACOSX/backup/._a.md": b"\x00",
        }
    )
    assert [entry.name for entry in snapshot.read_zip(archive)] == ["a"]


@pytest.mark.parametrize(
    ("archive", "match"),
    [
        (io.BytesIO(b"not a zip"), "The upload is not a zip archive"),
        (_zip({"export.toml": b"format_version = 1\n", "../a.md": b""}), "an unsafe path"),
        (_zip({"a.md": memory_file().encode()}), "There is no export.toml"),
    ],
)
def test_a_zip_that_is_not_a_snapshot_is_refused(db, archive, match):
    with pytest.raises(SnapshotError, match=match):
        snapshot.read_zip(archive)


def test_an_export_cut_short_by_the_file_size_limit_leaves_no_truncated_file(tmp_path):
    """The file being written when the limit hits is removed with the rest, in an existing
    empty directory too (the outside test left zz-big.md cut at 64 KiB)."""
    store = tmp_path / "store"
    migrate(store)
    body = tmp_path / "body.txt"
    body.write_text("x" * 200_000)
    manage(store, "memory", "add", "a-small", "--description", "small", "--body", "ok")
    manage(store, "memory", "add", "zz-big", "--description", "big", "--from-file", str(body))
    target = tmp_path / "export"
    target.mkdir()

    def limit_file_size():
        hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, hard))

    result = subprocess.run(
        [sys.executable, "manage.py", "memory", "export", "--directory", str(target)],
        cwd=ROOT,
        env=store_env(store),
        preexec_fn=limit_file_size,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode != 0
    assert "File too large; what the export had written was removed." in result.stderr
    assert list(target.iterdir()) == []


def test_a_zip_bomb_is_refused_without_being_unpacked(db):
    """One honest entry far past any memory file (64 MiB of zeros, 64 KiB zipped): refused
    naming it, without its bytes ever being held."""
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as opened:
        opened.writestr("export.toml", b"format_version = 1\n")
        with opened.open("bomb.md", "w") as entry:
            zeros = bytes(1024 * 1024)
            for _ in range(64):
                entry.write(zeros)
    archive.seek(0)
    tracemalloc.start()
    try:
        with pytest.raises(SnapshotError, match="'bomb.md' is larger than a memory file can be"):
            snapshot.read_zip(archive)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024


def test_a_file_is_read_no_further_than_its_limit(db):
    """Whatever a header claims, reading stops once a file passes what a memory file can be."""
    endless = io.BytesIO(b"x" * (snapshot.MAX_FILE_BYTES + snapshot.READ_CHUNK * 3))
    with pytest.raises(SnapshotError, match="'a.md' is larger than a memory file can be"):
        snapshot._read_bounded(endless, "a.md")
    assert endless.tell() <= snapshot.MAX_FILE_BYTES + snapshot.READ_CHUNK


def test_an_entry_held_twice_in_a_zip_is_refused_naming_it(db):
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as opened, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile's "Duplicate name"
        opened.writestr("export.toml", b"format_version = 1\n")
        opened.writestr("dup-z.md", memory_file(description="first").encode())
        opened.writestr("dup-z.md", memory_file(description="second").encode())
    archive.seek(0)
    with pytest.raises(SnapshotError, match="The archive holds 'dup-z.md' more than once"):
        snapshot.read_zip(archive)
