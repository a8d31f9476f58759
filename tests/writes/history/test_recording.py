"""Every door records exactly one revision, in its own transaction, with who acted."""

import io
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from memories.models import ChangeSet, Memory, Revision, TrashedMemory
from memories.rules.errors import InlineBudgetExceeded, NameClash
from memories.writes import doors, history, undo


def _set_up(write, project):
    write("keep", body="one\ntwo", tags=["a"], priority=3, source="chat")
    write("gone", body="bye")
    doors.delete("gone")


DOORS = {
    "create": lambda: doors.write("fresh", description="a new one"),
    "update": lambda: doors.write("keep", priority=1),
    "move": lambda: doors.move("keep", to="webdev"),
    "edit": lambda: doors.edit("keep", old_string="two", new_string="2"),
    "delete": lambda: doors.delete("keep"),
    "restore": lambda: undo.restore(TrashedMemory.objects.get().id),
    "revert": lambda: undo.restore_version(Revision.objects.filter(name="keep").first().id),
    "purge": lambda: undo.purge(TrashedMemory.objects.get().id, admin=True),
}


@pytest.mark.parametrize("action", DOORS)
def test_each_door_records_exactly_one_revision_with_its_actor(
    action, write, project, operator, revisions
):
    _set_up(write, project)
    if action == "revert":
        doors.write("keep", priority=9)
    already = Revision.objects.count()
    with history.acting(door=history.PAGE, user=operator):
        DOORS[action]()
    recorded = revisions(id__gt=Revision.objects.order_by("id")[already - 1].id)
    assert len(recorded) == 1
    revision = recorded[0]
    assert revision.action == action
    assert (revision.door, revision.username, revision.user_id) == ("page", "olga", operator.id)
    assert revision.actor == "olga"


def test_a_write_without_context_is_direct_and_has_no_user(write, revisions):
    write("plain")
    (revision,) = revisions()
    assert (revision.door, revision.actor, revision.username, revision.user_id) == (
        "direct",
        "direct",
        "",
        None,
    )


def test_snapshots_hold_every_field(write, project, revisions):
    created = write(
        "full",
        project="webdev",
        body="text",
        tags=["t"],
        references=["other"],
        priority=2,
        load="inline",
        source="a talk",
        expires="2099-01-01",
    ).memory
    Memory.objects.filter(id=created.id).update(read_count=4)
    doors.write("full", project="webdev", priority=3)
    update = revisions()[-1]
    assert update.before == {
        "id": created.id,
        "name": "full",
        "project": "webdev",
        "project_id": project.id,
        "description": "about full",
        "body": "text",
        "tags": ["t"],
        "references": ["other"],
        "priority": 2,
        "load": "inline",
        "source": "a talk",
        "created_at": history.rfc3339(created.created_at),
        "updated_at": history.rfc3339(created.updated_at),
        "verified_at": history.rfc3339(created.verified_at),
        "expires_at": history.rfc3339(created.expires_at),
        "read_count": 4,
        "last_read_at": None,
        "superseded_by": None,
    }
    assert update.after["priority"] == 3
    assert update.after["created_at"] == update.before["created_at"]
    assert (update.tier, update.project_name) == (project.id, "webdev")
    assert update.memory_id == created.id


def test_a_move_records_the_tier_it_left(write, project, revisions):
    write("note")
    doors.move("note", to="webdev")
    move = revisions()[-1]
    assert (move.action, move.tier, move.previous_tier) == ("move", project.id, 0)
    assert (move.before["project"], move.after["project"]) == (None, "webdev")


def test_an_edit_is_one_revision_not_two(write, revisions):
    write("note", body="abc")
    doors.edit("note", old_string="b", new_string="B")
    assert [r.action for r in revisions()] == ["create", "edit"]


def test_the_agents_read_records_nothing(write, revisions):
    write("note", body="abc")
    doors.read("note")
    assert len(revisions()) == 1


def test_a_refused_write_records_nothing(write, project, small_budget, revisions):
    write("big", body="x" * 60, load="inline")
    with pytest.raises(InlineBudgetExceeded):
        write("bigger", body="y" * 60, load="inline")
    with pytest.raises(NameClash):
        write("big", project="webdev")
    assert [r.name for r in revisions()] == ["big"]


def test_an_api_token_and_a_command_are_named(write, operator, revisions):
    token = SimpleNamespace(pk=7, prefix="ab12cd")
    with history.acting(door=history.API, user=operator, token=token):
        write("by-api")
    with history.acting(door=history.COMMAND, label="manage.py memory import"):
        write("by-command")
    api, command = revisions()
    assert (api.door, api.actor, api.token_id, api.username) == (
        "api",
        "olga (token ab12cd…)",
        7,
        "olga",
    )
    assert (command.door, command.actor, command.username) == (
        "command",
        "manage.py memory import",
        "",
    )


def test_a_nested_context_adds_a_reason_and_keeps_the_actor(write, operator, revisions):
    with history.acting(door=history.PAGE, user=operator):
        with history.acting(reason="  the old\nfigure was a typo "):
            write("note")
        write("other")
    first, second = revisions()
    assert (first.actor, first.door, first.reason) == ("olga", "page", "the old figure was a typo")
    assert second.reason == ""


def test_the_label_survives_the_users_deletion(write, revisions):
    user = User.objects.create_user("temp")
    with history.acting(door=history.PAGE, user=user):
        write("note")
    user.delete()
    (revision,) = revisions()
    assert (revision.actor, revision.username) == ("temp", "temp")


def test_a_change_set_groups_its_revisions(write, operator, revisions):
    write("a")
    write("b")
    with (
        history.acting(door=history.PAGE, user=operator),
        history.change_set("Set priority 1 on 2 memories", door=history.BULK) as group,
    ):
        doors.write("a", priority=1)
        with history.change_set("inner joins the outer") as inner:
            doors.write("b", priority=1)
    assert inner == group
    grouped = revisions(change_set=group)
    assert [r.name for r in grouped] == ["a", "b"]
    assert {(r.door, r.actor) for r in grouped} == {("bulk", "olga")}
    assert (group.door, group.actor, group.summary) == ("bulk", "olga", group.summary)


def test_an_empty_change_set_is_not_kept(db):
    with history.change_set("nothing"):
        pass
    assert not ChangeSet.objects.exists()


def test_a_refused_change_set_leaves_nothing(write, small_budget):
    write("a")
    with pytest.raises(InlineBudgetExceeded), history.change_set("too much"):
        doors.write("a", priority=1)
        doors.write("b", description="b", body="z" * 200, load="inline")
    assert not ChangeSet.objects.exists()
    assert Memory.objects.get(name="a").priority == 5
    assert Revision.objects.count() == 1


def test_an_unknown_door_or_a_long_reason_is_refused(db):
    with pytest.raises(ValueError), history.acting(door="window"):
        pass
    with pytest.raises(history.InvalidField), history.acting(reason="x" * 1001):
        pass


def test_the_demo_store_is_recorded_as_its_command_on_the_dates_it_shows(db):
    call_command("seed_demo", stdout=io.StringIO())
    memory = Memory.objects.select_related("project").order_by("id").first()
    (revision,) = Revision.objects.filter(memory_id=memory.id)
    assert (revision.door, revision.actor, revision.action) == (
        "command",
        "manage.py seed_demo",
        "create",
    )
    assert revision.at == memory.created_at
    assert revision.after == history.snapshot(memory)
    dates = list(Revision.objects.order_by("id").values_list("at", flat=True))
    assert dates == sorted(dates), "the log, newest first by id, is newest first by date"
