"""Supersession at the write door: the old memory leaves the band and the index, names its
successor, is recorded in one change set with the write, and comes back with its undo."""

import datetime as dt

import pytest
from django.utils import timezone

from memories.models import ChangeSet, Memory, Revision
from memories.reads.agent_view import agent_view
from memories.rules.errors import InlineBudgetExceeded, InvalidField
from memories.writes import doors, undo


def test_a_write_that_supersedes_takes_the_old_memory_out_of_force(write):
    write("db-host", description="The database is on db-1", load="inline", body="db-1:5432")
    write("deploy-note", description="Deploys go out at night")
    result = write(
        "db-host-2",
        description="The database is on db-2",
        load="inline",
        body="db-2:5432",
        supersedes="db-host",
    )
    old = Memory.objects.get(name="db-host")
    assert old.superseded_by == "db-host-2"
    assert old.is_expired()
    text = agent_view(None).text()
    assert "db-1:5432" not in text and "db-2:5432" in text
    assert "- deploy-note" in text
    assert any("'db-host' is superseded by 'db-host-2'" in note for note in result.notes)


def test_the_supersession_is_one_change_set_with_a_revision_naming_the_successor(write):
    write("db-host", description="The database is on db-1")
    write("db-host-2", description="The database is on db-2", supersedes="db-host")
    group = ChangeSet.objects.get()
    assert group.summary == "'db-host-2' supersedes 'db-host'"
    revisions = {r.name: r for r in group.revisions.all()}
    assert set(revisions) == {"db-host", "db-host-2"}
    marked = revisions["db-host"]
    assert marked.reason == "Superseded by 'db-host-2'."
    assert marked.before["superseded_by"] is None and marked.before["expires_at"] is None
    assert marked.after["superseded_by"] == "db-host-2"
    assert marked.after["expires_at"] is not None


def test_undoing_the_change_set_puts_the_old_memory_back_in_force(write):
    write("db-host", description="The database is on db-1", load="inline", body="db-1:5432")
    write("db-host-2", description="The database is on db-2", supersedes="db-host")
    undo.undo(ChangeSet.objects.get().id)
    old = Memory.objects.get(name="db-host")
    assert old.superseded_by is None and old.expires_at is None
    assert not Memory.objects.filter(name="db-host-2").exists(), "the new memory goes to the trash"
    assert "db-1:5432" in agent_view(None).text()


def test_an_existing_memory_may_supersede_another_without_other_changes(write):
    write("db-host", description="The database is on db-1")
    write("db-host-2", description="The database is on db-2")
    result = doors.write("db-host-2", supersedes="db-host")
    assert result.changed
    assert Memory.objects.get(name="db-host").superseded_by == "db-host-2"
    assert Revision.objects.filter(name="db-host-2").count() == 1, "db-host-2 itself unchanged"


def test_an_expiry_already_past_is_kept(write):
    past = timezone.now() - dt.timedelta(days=3)
    write("old", expires=past.isoformat())
    write("new", supersedes="old")
    assert abs(Memory.objects.get(name="old").expires_at - past) < dt.timedelta(seconds=1)


def test_moving_or_clearing_the_expiry_puts_a_superseded_memory_back_in_force(write):
    write("old")
    write("new", supersedes="old")
    doors.write("old", body="edited, still superseded")
    assert Memory.objects.get(name="old").superseded_by == "new"
    doors.write("old", expires="")
    old = Memory.objects.get(name="old")
    assert old.superseded_by is None and old.expires_at is None


@pytest.mark.parametrize(
    ("supersedes", "sentence"),
    [
        ("same", "'same' cannot supersede itself."),
        ("nowhere", "There is no memory named 'nowhere' in the global tier to supersede"),
        ("in-webdev", "There is no memory named 'in-webdev' in the global tier"),
        ("bad name!", "A supersedes starts with a letter or digit"),
    ],
)
def test_refusals_name_the_field_and_land_nothing(write, project, supersedes, sentence):
    write("in-webdev", project="webdev")
    with pytest.raises(InvalidField) as refused:
        write("same", supersedes=supersedes)
    assert refused.value.field == "supersedes"
    assert sentence in refused.value.message
    assert not Memory.objects.filter(name="same").exists()
    assert not ChangeSet.objects.exists()


def test_a_superseded_memory_cannot_supersede_its_successor(write):
    write("old")
    write("new", supersedes="old")
    with pytest.raises(InvalidField, match="'old' is itself superseded by 'new'"):
        doors.write("old", supersedes="new")
    assert Memory.objects.get(name="new").superseded_by is None


def test_the_budget_counts_the_superseded_body_as_leaving(write, small_budget):
    write("big", load="inline", body="x" * 90)
    with pytest.raises(InlineBudgetExceeded):
        write("bigger", load="inline", body="y" * 95)
    write("bigger", load="inline", body="y" * 95, supersedes="big")
    assert Memory.objects.get(name="big").superseded_by == "bigger"
