"""The states of each memory over time (memories.writes.states): those the history keeps as it
goes are those rebuilt from the revisions and the rows, which a store whose history was kept
before them is given by its migration."""

import datetime as dt

from django.utils import timezone

from memories.models import ChangeSet, Memory, MemoryState, Revision, TrashedMemory
from memories.writes import bulk, doors, history, imports, states, undo
from projects import writes as project_doors
from tests.conftest import restore

FIELDS = [f.attname for f in MemoryState._meta.concrete_fields if f.attname != "id"]


def kept() -> list[tuple]:
    return sorted(
        MemoryState.objects.values_list(*FIELDS),
        key=lambda row: (row[0], row[FIELDS.index("until")] is None, str(row)),
    )


def test_the_states_rebuilt_are_the_states_kept(write, db):
    project_doors.add("webdev")
    write("rule", load="inline", body="Answer in kind.", tags=["style"])
    write("deploys", description="Where deploys go", priority=3, tags=["ops"])
    write("deploys", priority=1)  # no tier, load or tag moved
    write("deploys", tags=["ops", "infra"])
    doors.edit("rule", old_string="kind", new_string="the user's language")
    doors.move("deploys", to="webdev")
    write("w-note", project="webdev", load="inline", body="Webdev")
    write("w-note", project="webdev", load="index")
    doors.delete("rule")
    undo.restore(TrashedMemory.objects.get(revision__name="rule").id)
    write("gone", description="to be purged", tags=["ops"])
    write("gone", priority=2)
    doors.delete("gone")
    undo.purge(TrashedMemory.objects.get(revision__name="gone").id, admin=True)
    with history.acting(door=history.BULK):
        bulk.set_priority(list(Memory.objects.values_list("id", flat=True)), 7)
    undo.undo(ChangeSet.objects.latest("id").id)
    restore({"name": "imported", "description": "came by import", "tags": ["ops"]})
    again = {"name": "imported", "project": None, "description": "imported again"}
    again |= {"tags": ["infra"], "created_at": timezone.now()}
    imports.import_memories([imports.ImportEntry(**again)], force=True)
    written = kept()
    standing = MemoryState.objects.filter(until=None)
    assert sorted(standing.values_list("memory_id", "tier", "load", "priority")) == sorted(
        Memory.objects.values_list("id", "tier", "load", "priority")
    )
    # Every revision that found a memory ended its state; the purged one's hold no text.
    assert MemoryState.objects.exclude(until=None).count() == (
        Revision.objects.exclude(before=None).count() + 2
    )
    assert MemoryState.objects.filter(purged=True, tags=[]).count() == 2

    assert states.rebuild() == len(written)
    assert kept() == written


def test_a_memory_written_past_the_doors_stood_since_before_the_history(write, db):
    """A row with no state (written before the history was kept, or past the doors) has the
    state its first revision's `before` holds, from no known moment."""
    then = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    Memory.objects.create(
        name="old", description="from before", created_at=then, updated_at=then, verified_at=then
    )
    assert not MemoryState.objects.exists()
    write("old", priority=2)
    first, second = MemoryState.objects.order_by("id")
    assert (first.since, first.priority, first.until) == (None, 5, second.since)
    assert (second.priority, second.until) == (2, None)
    assert states.rebuild() == 2


def test_a_prune_removes_the_states_that_ended_before_it(write, db):
    write("kept", description="first")
    write("kept", description="second")
    write("kept", description="third")
    first, second = MemoryState.objects.exclude(until=None).order_by("until")
    history.prune(days=1, now=first.until + dt.timedelta(days=1, microseconds=1))
    assert list(MemoryState.objects.order_by("id").values_list("until", flat=True)) == [
        second.until,
        None,
    ]
