"""Retention: keep everything by default; `history prune` removes what is older."""

import datetime as dt
import io

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from memories.models import ChangeSet, Revision, TrashedMemory
from memories.writes import doors, history, undo


def _age(days: int) -> None:
    """Move every revision and change set recorded so far `days` into the past."""
    then = timezone.now() - dt.timedelta(days=days)
    Revision.objects.update(at=then)
    ChangeSet.objects.update(at=then)


@pytest.fixture
def old_and_new(write):
    write("kept")
    write("binned")
    with history.change_set("Raise both") as group:
        doors.write("kept", priority=1)
        doors.write("binned", priority=1)
    undo.undo(undo.undo(group.id).change_set.id)
    doors.delete("binned")
    _age(100)
    doors.write("kept", priority=2)
    return group


def test_retention_keeps_everything_by_default(old_and_new):
    assert history.prune() is None
    out = io.StringIO()
    call_command("history", "prune", stdout=out)
    assert "nothing was removed" in out.getvalue()
    assert Revision.objects.count() == 10


def test_prune_removes_what_is_older_and_keeps_what_the_trash_needs(old_and_new, settings):
    settings.MEMADMIN_HISTORY_RETENTION_DAYS = 30
    pruned = history.prune()
    remaining = list(Revision.objects.order_by("id"))
    # The latest write, and the deletion behind the trash entry.
    assert [(r.name, r.action) for r in remaining] == [("binned", "delete"), ("kept", "update")]
    assert TrashedMemory.objects.get().revision == remaining[0]
    assert not ChangeSet.objects.exists()
    assert (pruned.revisions, pruned.change_sets) == (8, 3)
    # The trash entry still restores.
    assert undo.restore(TrashedMemory.objects.get().id).name == "binned"


def test_the_command_prunes_with_a_days_override(old_and_new):
    out = io.StringIO()
    call_command("history", "prune", "--days", "200", stdout=out)
    assert out.getvalue().startswith("Removed 0 revisions and 0 change sets older than")
    call_command("history", "prune", "--days", "50", stdout=out)
    assert "Removed 8 revisions and 3 change sets" in out.getvalue()
    with pytest.raises(CommandError):
        call_command("history", "prune", "--days", "0")
