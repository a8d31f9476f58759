"""Undo of a change set: compensating revisions for every row that can be put back (a row
changed since is left and said), or nothing at all when a rule refuses one."""

import pytest

from memories.models import ChangeSet, Memory, Revision, TrashedMemory
from memories.rules.errors import ChangeSetNotFound, UndoRefused
from memories.writes import bulk, doors, history, undo
from tests.conftest import backdate
from tests.writes.history.conftest import state_without_updated_at


@pytest.fixture
def store(write, project):
    """Four memories, one old and verified long ago, one read by the agent."""
    write("alpha", body="a", priority=2, tags=["x"])
    write("beta", body="b", load="inline", source="chat")
    backdate(write("gamma", project="webdev", body="c").memory, days=40, verified_days=30)
    write("delta", body="d")
    doors.read("delta")
    return {m.name: state_without_updated_at(m) for m in Memory.objects.select_related("project")}


def _bulk(operator=None):
    """A bulk action touching every kind of change, as one change set."""
    with history.change_set("Everything at once", door=history.BULK) as group:
        doors.write("alpha", priority=7, tags=["y"])
        doors.write("beta", source="", body="B", load="index")
        doors.write("gamma", project="webdev", verified=True)
        doors.move("delta", to="webdev")
        doors.delete("alpha")
        doors.write("epsilon", description="made by the bulk")
    return group


def _states():
    return {m.name: state_without_updated_at(m) for m in Memory.objects.select_related("project")}


def test_undoing_a_bulk_change_restores_every_row(store):
    group = _bulk()
    assert _states() != store
    undo_set = undo.undo(group.id).change_set
    assert _states() == store
    assert undo_set.undoes == group
    compensations = list(undo_set.revisions.order_by("id"))
    assert {r.action for r in compensations} == {"undo"}
    assert sorted(r.name for r in compensations) == ["alpha", "beta", "delta", "epsilon", "gamma"]
    # The memory the bulk made is in the trash, restorable; the one it deleted is back.
    assert list(TrashedMemory.objects.values_list("revision__name", flat=True)) == ["epsilon"]


def test_undo_keeps_the_reads_made_since(store):
    group = _bulk()
    doors.read("gamma")
    doors.read("gamma")
    undo.undo(group.id)
    assert Memory.objects.get(name="gamma").read_count == 2


def test_an_undo_can_itself_be_undone(store):
    group = _bulk()
    after_bulk = _states()
    undo_set = undo.undo(group.id).change_set
    undo.undo(undo_set.id)
    assert _states() == after_bulk


def test_undo_leaves_a_row_changed_since_and_puts_back_the_rest(store):
    group = _bulk()
    doors.write("beta", priority=50)
    change = Revision.objects.order_by("-id").first()
    undone = undo.undo(group.id, reason="too eager")
    assert undone.skipped == [
        {
            "name": "beta",
            "project": None,
            "reason": f"it changed since, in revision {change.id} (updated by direct)",
            "revision": change.id,
        }
    ]
    states = _states()
    beta = Memory.objects.get(name="beta")
    assert (beta.priority, beta.body, beta.load) == (50, "B", "index")  # left as it is now
    assert {name: states[name] for name in ("alpha", "gamma", "delta")} == {
        name: store[name] for name in ("alpha", "gamma", "delta")
    }
    assert "epsilon" not in states
    assert undone.change_set.reason == "too eager"


def test_a_row_changed_since_and_changed_back_is_put_back(store):
    with history.change_set("Raise alpha", door=history.BULK) as group:
        doors.write("alpha", priority=7)
    doors.write("alpha", priority=9)
    doors.write("alpha", priority=7)
    doors.read("alpha")
    undone = undo.undo(group.id)
    assert undone.skipped == []
    assert Memory.objects.get(name="alpha").priority == 2


def test_undo_refuses_when_every_row_changed_since(store):
    with history.change_set("Raise alpha", door=history.BULK) as group:
        doors.write("alpha", priority=7)
    doors.write("alpha", priority=9)
    before = _states()
    with pytest.raises(UndoRefused) as refused:
        undo.undo(group.id)
    assert "nothing of it was" in refused.value.message
    assert _states() == before
    assert ChangeSet.objects.count() == 1


def test_undo_refuses_as_a_whole_when_the_budget_would_be_passed(store, small_budget):
    doors.write("wide", description="a standing rule", body="w" * 60, load="inline")
    with history.change_set("Index the wide one, raise alpha") as group:
        doors.write("alpha", priority=1)
        doors.write("wide", load="index")
    doors.write("filler", description="fills the band", body="f" * 50, load="inline")
    before = _states()
    with pytest.raises(UndoRefused) as refused:
        undo.undo(group.id)
    (row,) = refused.value.details["refused"]
    assert row["name"] == "wide"
    assert "inline budget" in row["reason"]
    assert _states() == before
    assert not ChangeSet.objects.filter(undoes=group).exists()


def test_undo_refuses_a_name_taken_meanwhile(store):
    with history.change_set("Delete alpha") as group:
        doors.delete("alpha")
    doors.write("alpha", description="a new alpha")
    with pytest.raises(UndoRefused) as refused:
        undo.undo(group.id)
    assert "already holds a memory named 'alpha'" in refused.value.details["refused"][0]["reason"]
    assert Memory.objects.get(name="alpha").description == "a new alpha"


def test_a_change_set_is_undone_once(store):
    group = _bulk()
    undo_set = undo.undo(group.id).change_set
    with pytest.raises(UndoRefused) as refused:
        undo.undo(group.id)
    assert refused.value.message == (
        f"Change set {group.id} was undone already, by change set {undo_set.id}."
    )


def test_undo_of_a_purged_row_is_refused(store):
    with history.change_set("Delete alpha") as group:
        doors.delete("alpha")
    undo.purge(TrashedMemory.objects.get().id, admin=True)
    with pytest.raises(UndoRefused) as refused:
        undo.undo(group.id)
    assert refused.value.details["refused"][0]["reason"] == "it was purged from the trash"


def test_an_unknown_change_set(db):
    with pytest.raises(ChangeSetNotFound):
        undo.undo(999)
    with pytest.raises(ChangeSetNotFound):
        undo.undo("not-a-number")


def test_a_bulk_action_is_one_change_set_and_undoing_it_restores_every_row(store):
    ids = list(
        Memory.objects.filter(name__in=["alpha", "beta", "gamma"]).values_list("id", flat=True)
    )
    result = bulk.set_priority(ids, 0)
    assert result.applied
    (group,) = ChangeSet.objects.all()
    assert (group.summary, group.door) == ("Set priority 0 on 3 memories", "bulk")
    assert group.revisions.count() == 3
    undo.undo(group.id)
    assert _states() == store


def test_a_refused_bulk_action_leaves_no_change_set(store, small_budget):
    ids = list(Memory.objects.values_list("id", flat=True))
    doors.write("wide", description="wide", body="w" * 99, load="index")
    ids.append(Memory.objects.get(name="wide").id)
    result = bulk.set_load(ids, "inline")
    assert not result.applied
    assert not ChangeSet.objects.exists()


def test_rows_the_change_set_left_as_they_were_need_no_undo(store):
    with history.change_set("Two writes, one of them changing nothing") as group:
        doors.write("alpha", priority=2)
        doors.write("beta", priority=9)
    undo_set = undo.undo(group.id).change_set
    assert [r.name for r in undo_set.revisions.all()] == ["beta"]
    assert _states() == store
