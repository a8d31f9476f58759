"""Restore this version: a new revision through the write door, its rules and created_at kept."""

import pytest

from memories.models import Memory, Revision
from memories.rules.errors import (
    InlineBudgetExceeded,
    NameClash,
    RevisionNotFound,
    VersionUnavailable,
)
from memories.writes import doors, undo
from tests.conftest import backdate


def _version(name: str, index: int) -> Revision:
    return Revision.objects.filter(name=name).order_by("id")[index]


def test_an_old_priority_comes_back_as_a_new_revision(write):
    memory = backdate(write("rule", priority=4).memory, days=20)
    doors.write("rule", priority=40)
    result = undo.restore_version(_version("rule", 0).id)
    assert result.memory.priority == 4
    assert result.memory.created_at == memory.created_at
    assert result.memory.verified_at == memory.verified_at
    revert = Revision.objects.order_by("-id").first()
    assert (revert.action, revert.before["priority"], revert.after["priority"]) == ("revert", 40, 4)
    assert revert.reason == f"the version of revision {_version('rule', 0).id}"


def test_every_field_comes_back_a_blank_source_and_no_expiry_included(write):
    write("note", body="one", tags=["a"], references=["x"], load="search")
    doors.write(
        "note",
        description="changed",
        body="two",
        tags=["b"],
        references=[],
        load="index",
        source="someone",
        expires="2099-01-01",
        priority=9,
    )
    undo.restore_version(_version("note", 0).id)
    memory = Memory.objects.get(name="note")
    assert (memory.description, memory.body, memory.tags, memory.references) == (
        "about note",
        "one",
        ["a"],
        ["x"],
    )
    assert (memory.load, memory.source, memory.expires_at, memory.priority) == (
        "search",
        "",
        None,
        5,
    )


def test_a_version_in_another_tier_moves_it_back_unless_the_name_is_taken(
    write, project, other_project
):
    write("note", project="webdev")
    doors.move("note", project="webdev", to=None)
    undo.restore_version(_version("note", 0).id)
    assert Memory.objects.get(name="note").project_name == "webdev"
    doors.move("note", project="webdev", to="infra")
    write("note", project="webdev", body="a new one")
    with pytest.raises(NameClash) as refused:
        undo.restore_version(_version("note", 0).id)
    assert "'webdev' already holds a memory named 'note'" in refused.value.message
    assert Memory.objects.get(name="note", project__name="infra")


def test_a_version_past_the_budget_is_refused(write, small_budget):
    write("rule", body="r" * 80, load="inline")
    doors.write("rule", body="short")
    write("other", body="o" * 50, load="inline")
    with pytest.raises(InlineBudgetExceeded):
        undo.restore_version(_version("rule", 0).id)
    assert Memory.objects.get(name="rule").body == "short"


def test_what_cannot_be_restored_says_why(write):
    write("note")
    doors.delete("note")
    creation, deletion = Revision.objects.order_by("id")
    with pytest.raises(VersionUnavailable) as refused:
        undo.restore_version(deletion.id)
    assert "restore the memory from the trash instead" in refused.value.message
    with pytest.raises(VersionUnavailable) as refused:
        undo.restore_version(creation.id)
    assert refused.value.message == (
        "'note' is in the trash: restore it from there first, then this version."
    )
    with pytest.raises(RevisionNotFound):
        undo.restore_version(10_000)
