"""The change feed: every committed change is one entry (kind, tier, name, revision, actor),
in commit order; a change refused or rolled back leaves none."""

import pytest
from django.db import transaction

from memories.models import Change, Revision
from memories.reads import changes
from memories.rules.errors import InlineBudgetExceeded
from memories.writes import bulk, doors, history, imports, undo
from projects import writes as project_doors


def _kinds() -> list[tuple]:
    return [(e.kind, e.name, e.project) for e in changes.after(0)]


def test_each_door_write_is_one_event_in_order(project):
    with history.acting(label="agent-7"):
        doors.write("deploy", description="how we deploy", body="steps", tags=["ops"])
        doors.edit("deploy", old_string="steps", new_string="the steps")
        doors.move("deploy", to="webdev")
        doors.delete("deploy", project="webdev")
    events = changes.after(0)
    assert [(e.kind, e.name, e.project) for e in events] == [
        ("project-add", "webdev", "webdev"),
        ("create", "deploy", None),
        ("edit", "deploy", None),
        ("move", "deploy", "webdev"),
        ("delete", "deploy", "webdev"),
    ]
    revisions = list(Revision.objects.order_by("id").values_list("id", flat=True))
    assert [e.revision for e in events[1:]] == revisions
    assert all(e.actor == "agent-7" for e in events[1:])
    moved = events[3]
    assert moved.tier == project.id and moved.previous_tier == 0
    assert events[1].tags == ("ops",)
    assert [e.id for e in events] == sorted(e.id for e in events)


def test_project_changes_are_events(db):
    project_doors.add("alpha")
    project_doors.rename("alpha", "beta")
    project_doors.remove("beta")
    events = changes.after(0)
    assert [(e.kind, e.name, e.previous_name) for e in events] == [
        ("project-add", "alpha", ""),
        ("project-rename", "beta", "alpha"),
        ("project-remove", "beta", ""),
    ]
    assert len({e.tier for e in events}) == 1


def test_bulk_import_restore_and_undo_are_events(db):
    a = doors.write("a", description="first").memory
    b = doors.write("b", description="second").memory
    with history.change_set("Set priority 3", door=history.BULK) as group:
        bulk.set_priority([a.id, b.id], 3)
    undo.undo(group.id)
    imports.import_memories(
        [imports.ImportEntry(name="c", project=None, description="third", created_at=a.created_at)]
    )
    doors.delete("c")
    undo.restore(Revision.objects.get(name="c", action="delete").trashed.id)
    assert [k for k, _, _ in _kinds()] == [
        "create",
        "create",
        "update",
        "update",
        "undo",
        "undo",
        "import",
        "delete",
        "restore",
    ]
    imported = Change.objects.get(kind="import")
    assert imported.revision_id == Revision.objects.get(name="c", action="import").id


def test_a_refused_write_is_no_event(db, small_budget):
    with pytest.raises(InlineBudgetExceeded):
        doors.write("big", description="too big", body="x" * 200, load="inline")
    assert changes.after(0) == []


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_transaction_is_no_event_and_a_committed_one_is():
    with pytest.raises(RuntimeError), transaction.atomic():
        doors.write("lost", description="rolled back")
        raise RuntimeError
    doors.write("kept", description="committed")
    assert [e.name for e in changes.after(0)] == ["kept"]


def test_the_read_door_is_no_event(db):
    doors.write("note", description="a note", body="text")
    last = changes.latest_id()
    doors.read("note")
    assert changes.latest_id() == last


def test_a_backlog_past_what_is_kept_is_stale(db):
    for n in range(3):
        doors.write(f"m{n}", description="x")
    first, *_, last = changes.after(0)
    assert changes.backlog(first.id, last.id).events[-1].id == last.id
    assert not changes.backlog(first.id, last.id).stale
    Change.objects.filter(id__lte=first.id + 1).delete()
    assert changes.backlog(first.id, last.id).stale
