"""Delete to the trash, restore (or be told why not), purge for good."""

import pytest

from memories.models import Memory, Revision, TrashedMemory
from memories.reads import listing
from memories.reads.filters import MemoryFilters
from memories.rules.errors import (
    InlineBudgetExceeded,
    NameClash,
    NotInTrash,
    NotPermitted,
    UnknownProject,
    VersionUnavailable,
)
from memories.writes import doors, history, undo
from projects import writes as project_doors
from tests.conftest import backdate
from tests.writes.history.conftest import state_without_updated_at


def _trash(name: str) -> TrashedMemory:
    return TrashedMemory.objects.select_related("revision").get(revision__name=name)


def test_delete_puts_the_memory_in_the_trash_with_who_and_when(write, operator):
    write("cited", body="x")
    write("citing", references=["cited"])
    with history.acting(door=history.PAGE, user=operator):
        result = doors.delete("cited")
    assert [m.name for m in result.referenced_by] == ["citing"]
    entry = _trash("cited")
    assert (entry.revision.action, entry.revision.actor) == ("delete", "olga")
    assert entry.revision.before["body"] == "x"
    assert not Memory.objects.filter(name="cited").exists()


def test_restore_brings_it_back_whole(write, project):
    memory = write("notes", project="webdev", body="text", tags=["t"], references=["other"]).memory
    memory = backdate(memory, days=30, verified_days=10)
    Memory.objects.filter(id=memory.id).update(read_count=12)
    memory.refresh_from_db()
    kept = state_without_updated_at(memory)
    doors.delete("notes")
    restored = undo.restore(_trash("notes").id)
    assert state_without_updated_at(restored) == kept
    assert restored.id == memory.id
    assert not TrashedMemory.objects.exists()
    # The triggers rebuilt its search entry and its reference and tag rows.
    referencing = listing.memories(MemoryFilters(referencing="other"))
    assert [m.name for m in referencing] == ["notes"]
    assert [m.name for m in listing.memories(MemoryFilters(tag="t"))] == ["notes"]
    assert [r.action for r in Revision.objects.filter(memory_id=memory.id).order_by("id")] == [
        "create",
        "delete",
        "restore",
    ]


def test_restore_is_refused_when_the_name_was_taken_in_its_tier(write):
    write("notes", body="old")
    doors.delete("notes")
    write("notes", body="new one")
    with pytest.raises(NameClash) as refused:
        undo.restore(_trash("notes").id)
    assert refused.value.message == (
        "'notes' cannot come back from the trash: 'the global tier' already holds a memory "
        "named 'notes'; choose another name or delete that one first."
    )
    assert Memory.objects.get(name="notes").body == "new one"
    assert TrashedMemory.objects.count() == 1


def test_restore_is_refused_across_the_global_and_project_line(write, project):
    write("notes", project="webdev")
    doors.delete("notes")
    write("notes", project=None)
    with pytest.raises(NameClash) as refused:
        undo.restore(_trash("notes").id)
    assert "a global name is never also a project's" in refused.value.message


def test_restore_is_refused_past_the_inline_budget(write, small_budget):
    write("rule", body="r" * 60, load="inline")
    doors.delete("rule")
    write("other", body="o" * 60, load="inline")
    with pytest.raises(InlineBudgetExceeded) as refused:
        undo.restore(_trash("rule").id)
    assert refused.value.details["total_bytes"] == 120
    assert TrashedMemory.objects.count() == 1


def test_restore_follows_a_rename_and_is_refused_when_the_project_is_gone(write, project):
    write("a", project="webdev")
    write("b", project="webdev")
    doors.delete("a")
    doors.delete("b")
    project_doors.rename("webdev", "web")
    assert undo.restore(_trash("a").id).project_name == "web"
    doors.delete("a")
    project_doors.remove("web")
    with pytest.raises(UnknownProject):
        undo.restore(_trash("b").id)


def test_purge_is_for_admins_and_erases_the_content(write):
    write("secret", body="the password is hunter2")
    doors.write("secret", body="the password is hunter3")
    doors.delete("secret")
    entry = _trash("secret")
    with pytest.raises(NotPermitted):
        undo.purge(entry.id, admin=False)
    assert undo.purge(entry.id, admin=True) == "secret"
    revisions = list(Revision.objects.filter(name="secret").order_by("id"))
    assert [r.action for r in revisions] == ["create", "update", "delete", "purge"]
    assert all(r.before is None and r.after is None for r in revisions)
    assert [r.purged for r in revisions] == [True, True, True, False]
    assert not TrashedMemory.objects.exists()
    with pytest.raises(NotInTrash):
        undo.restore(entry.id)
    with pytest.raises(VersionUnavailable):
        undo.restore_version(revisions[0].id)


def test_an_unknown_trash_entry(db):
    with pytest.raises(NotInTrash):
        undo.restore(404)
    with pytest.raises(NotInTrash):
        undo.purge("x", admin=True)
