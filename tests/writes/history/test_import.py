"""An import is one change set of the history: inspected, and undone as a whole."""

import datetime as dt
import io

import pytest
from django.core.management import call_command

from memories.models import ChangeSet, Memory, Revision, TrashedMemory
from memories.rules.errors import ImportRefused
from memories.writes import doors, imports, undo
from tests.conftest import backdate
from tests.writes.history.conftest import state_without_updated_at

CREATED = dt.datetime(2023, 3, 4, 5, 6, 7, tzinfo=dt.UTC)


def _entry(name, **values) -> imports.ImportEntry:
    values.setdefault("project", None)
    values.setdefault("description", f"imported {name}")
    return imports.ImportEntry(name=name, created_at=CREATED, **values)


def test_an_import_is_one_change_set_with_what_it_overwrote(write):
    kept = backdate(write("note", body="mine", priority=3).memory, days=9)
    Memory.objects.filter(id=kept.id).update(read_count=7)
    before = state_without_updated_at(Memory.objects.select_related("project").get(id=kept.id))
    imports.import_memories(
        [_entry("note", body="theirs", read_count=2), _entry("new", read_count=5)], force=True
    )
    (group,) = ChangeSet.objects.all()
    assert (group.summary, group.door) == ("Import of 2 memories", "import")
    overwrite, added = group.revisions.order_by("id")
    assert (overwrite.action, overwrite.name, added.action, added.name) == (
        "import",
        "note",
        "import",
        "new",
    )
    assert overwrite.before["body"] == "mine" and overwrite.after["body"] == "theirs"
    assert overwrite.after["created_at"] == "2023-03-04T05:06:07Z"
    assert added.before is None and added.after["read_count"] == 5

    undo.undo(group.id)
    note = Memory.objects.select_related("project").get(name="note")
    assert state_without_updated_at(note) == before, "created_at and read_count put back"
    assert not Memory.objects.filter(name="new").exists()
    assert TrashedMemory.objects.get().revision.name == "new"


def test_a_refused_import_records_nothing(write):
    write("note")
    with pytest.raises(ImportRefused):
        imports.import_memories([_entry("note"), _entry("other")])
    assert not ChangeSet.objects.exists()
    assert Revision.objects.count() == 1


def test_the_import_command_is_named_in_the_history(db, tmp_path):
    doors.write("exported", description="goes out and comes back", body="b")
    call_command("memory", "export", "--directory", str(tmp_path / "snap"), stdout=io.StringIO())
    doors.delete("exported")
    call_command(
        "memory", "import", str(tmp_path / "snap"), stdout=io.StringIO(), stderr=io.StringIO()
    )
    revision = Revision.objects.order_by("-id").first()
    assert (revision.action, revision.door, revision.actor) == (
        "import",
        "import",
        "manage.py memory import",
    )
    assert revision.change_set.actor == "manage.py memory import"
