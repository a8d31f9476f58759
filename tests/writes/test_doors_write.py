"""The write door: omit-keeps, created_at, verified_at, validation, notes, tier moves."""

import contextlib
import datetime as dt
import json

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from memories.models import Memory
from memories.rules.errors import InvalidField, MemoryNotFound, NameClash, UnknownProject
from memories.writes import doors
from tests.conftest import backdate


def test_create_stamps_created_updated_and_verified_together(write):
    result = write("tz", body="UTC+8")
    memory = result.memory
    assert result.created
    assert memory.created_at == memory.updated_at == memory.verified_at
    assert memory.priority == 5 and memory.load == "index" and memory.read_count == 0


def test_update_keeps_created_at_and_moves_updated_at(write):
    first = backdate(write("tz", body="UTC+8").memory, days=30)
    second = doors.write("tz", description="K4YT3X is in UTC+9").memory
    assert second.created_at == first.created_at
    assert second.updated_at > first.updated_at
    assert second.verified_at == first.verified_at, "only verified=True moves verified_at"


def test_verified_true_moves_only_verified_at(write):
    first = backdate(write("tz").memory, days=30)
    second = doors.write("tz", verified=True).memory
    assert second.created_at == first.created_at
    assert second.verified_at > first.verified_at


def test_upsert_statement_itself_never_assigns_created_at_on_update(write):
    memory = backdate(write("tz").memory, days=10)
    later = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(
            doors.UPSERT,
            ["tz", None, "d", "b", "[]", "[]", 5, "index", "", later, later, later, None, None],
        )
    memory_after = Memory.objects.get(id=memory.id)
    assert memory_after.created_at == memory.created_at
    assert memory_after.description == "d"


def test_omitting_fields_keeps_them(write):
    write(
        "deploy",
        body="host-7",
        tags=["infra"],
        references=["runbook"],
        priority=2,
        load="inline",
        source="ops chat",
        expires="2099-01-01",
    )
    memory = doors.write("deploy", description="Where deploys go").memory
    assert memory.description == "Where deploys go"
    assert (memory.body, memory.tags, memory.references) == ("host-7", ["infra"], ["runbook"])
    assert (memory.priority, memory.load, memory.source) == (2, "inline", "ops chat")
    assert memory.expires_at is not None


def test_blank_fields_are_omitted_but_empty_body_expiry_and_lists_clear(write):
    write(
        "deploy",
        body="host-7",
        tags=["infra"],
        references=["r"],
        expires="2099-01-01",
        priority=3,
        load="inline",
        source="chat",
    )
    memory = doors.write(
        "deploy",
        description="  ",
        priority="",
        load="",
        source=" ",
        body="",
        expires="",
        tags=[],
        references=[],
    ).memory
    assert memory.description == "about deploy"
    assert (memory.priority, memory.load, memory.source) == (3, "inline", "chat")
    assert memory.body == "" and memory.expires_at is None
    assert memory.tags == [] and memory.references == []


def test_description_is_collapsed_to_one_line(write):
    memory = write("d", description="  line one\n\tline two\r\n  three ").memory
    assert memory.description == "line one line two three"


def test_new_memory_needs_a_description(db):
    with pytest.raises(InvalidField) as error:
        doors.write("x", body="no description")
    assert error.value.field == "description"
    assert not Memory.objects.exists()


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"priority": 101}, "priority"),
        ({"priority": -1}, "priority"),
        ({"priority": "high"}, "priority"),
        ({"priority": True}, "priority"),
        ({"load": "always"}, "load"),
        ({"references": [f"r{i}" for i in range(21)]}, "references"),
        ({"references": ["two\nlines"]}, "references"),
        ({"references": "not-a-list"}, "references"),
        ({"tags": [1]}, "tags"),
        ({"expires": "next tuesday"}, "expires"),
        ({"expires": "2026-02-30"}, "expires"),
        ({"expires": "2026-10-25T18:00:00"}, "expires"),
        ({"body": "nul\x00byte"}, "body"),
        ({"description": 5}, "description"),
    ],
)
def test_invalid_fields_are_refused_and_nothing_lands(db, values, field):
    with pytest.raises(InvalidField) as error:
        doors.write("m", **{"description": "d", **values})
    assert error.value.field == field
    assert not Memory.objects.exists()


@pytest.mark.parametrize("name", ["", "../x", "-lead", "a b", "x" * 129, "nul\x00", "é", "a/b"])
def test_invalid_names_are_refused(db, name):
    with pytest.raises(InvalidField):
        doors.write(name, description="d")


def test_twenty_references_of_one_line_each_are_accepted(write):
    refs = [f"ref-{i}" for i in range(20)]
    assert write("m", references=refs).memory.references == refs


def test_expiry_date_means_the_whole_day_in_the_server_zone(write, settings):
    settings.TIME_ZONE = "Asia/Tokyo"
    memory = write("freeze", expires="2026-10-25").memory
    # The note stops applying when the 26th begins in Tokyo: 15:00 UTC on the 25th.
    assert memory.expires_at == dt.datetime(2026, 10, 25, 15, 0, tzinfo=dt.UTC)


def test_expiry_rfc3339_is_kept_as_the_instant(write):
    memory = write("freeze", expires="2026-10-25T18:30:00+02:00").memory
    assert memory.expires_at == dt.datetime(2026, 10, 25, 16, 30, tzinfo=dt.UTC)


def test_long_description_gets_a_note_and_is_saved(write):
    result = write("m", description="word " * 60)
    assert any("characters" in note for note in result.notes)
    assert Memory.objects.filter(name="m").exists()


def test_near_duplicate_description_is_named_in_a_note(write):
    write("alice-timezone", description="Alice works in the Europe/Berlin time zone")
    result = write("alice-tz", description="Alice works in the Europe/Berlin timezone")
    assert any("'alice-timezone' already says something very similar" in n for n in result.notes)
    unrelated = write("bob-food", description="Bob is vegetarian")
    assert unrelated.notes == []


def test_rewriting_an_expired_memory_keeps_it_expired_and_says_so(write):
    write("freeze", expires="2020-01-01")
    result = doors.write("freeze", body="still frozen")
    assert result.memory.is_expired()
    assert any("stays expired" in note for note in result.notes)


def test_move_between_tiers_keeps_created_at_body_and_everything_else(write, project):
    original = backdate(
        write("stack", body="pnpm", tags=["web"], priority=2, references=["x"]).memory, days=40
    )
    moved = doors.move("stack", to="webdev")
    memory = moved.memory
    assert moved.moved == "Moved from the global tier to project 'webdev'."
    assert memory.project_name == "webdev"
    assert memory.id == original.id and memory.created_at == original.created_at
    assert (memory.body, memory.tags, memory.priority) == ("pnpm", ["web"], 2)
    back = doors.write("stack", project="webdev", move_to=None).memory
    assert back.project_id is None and back.created_at == original.created_at


def test_move_into_a_tier_holding_the_name_is_refused(write, project, other_project):
    write("notes", project="webdev")
    write("notes", project="infra", body="infra notes")
    with pytest.raises(NameClash):
        doors.move("notes", project="infra", to="webdev")
    assert Memory.objects.get(project=other_project, name="notes").body == "infra notes"


def test_global_name_is_never_also_a_projects(write, project):
    write("tz")
    with pytest.raises(NameClash) as error:
        write("tz", project="webdev")
    assert "choose another name" in error.value.message
    write("stack", project="webdev")
    with pytest.raises(NameClash):
        write("stack", project=None)


def test_two_projects_may_hold_the_same_name(write, project, other_project):
    write("notes", project="webdev")
    write("notes", project="infra")
    assert Memory.objects.filter(name="notes").count() == 2


def test_an_unknown_project_is_refused(write):
    with pytest.raises(UnknownProject):
        write("m", project="nope")
    with pytest.raises(UnknownProject):
        write("m", move_to="nope")
    assert not Memory.objects.exists()


def _raw_insert(name, project_id):
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    # A savepoint of its own: PostgreSQL aborts the transaction a refused statement is in.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO memories_memory (name, project_id, description, body, tags, refs, "
            "priority, load, source, created_at, updated_at, verified_at, read_count) "
            "VALUES (%s, %s, 'd', '', '[]', '[]', 5, 'index', '', %s, %s, %s, 0)",
            [name, project_id, now, now, now],
        )


def test_cross_tier_rule_holds_in_the_database_past_the_doors(write, project):
    write("tz")
    with pytest.raises(IntegrityError, match="choose another name"):
        _raw_insert("tz", project.id)


def test_cross_tier_rule_holds_for_an_update_past_the_doors(write, project):
    write("tz")
    memory = write("stack", project="webdev").memory
    with pytest.raises(IntegrityError, match="choose another name"):
        Memory.objects.filter(id=memory.id).update(name="tz")


def test_a_name_once_per_tier_in_the_database(write, project):
    write("tz")
    with pytest.raises(IntegrityError):
        _raw_insert("tz", None)
    write("stack", project="webdev")
    with pytest.raises(IntegrityError):
        _raw_insert("stack", project.id)


def test_name_shape_is_checked_by_the_database(db):
    with pytest.raises(IntegrityError):
        _raw_insert("../etc", None)


def test_single_name_routes_refuse_a_name_several_projects_hold(write, project, other_project):
    from memories.rules.errors import AmbiguousName

    write("notes", project="webdev")
    write("notes", project="infra")
    with pytest.raises(AmbiguousName) as error:
        doors.delete("notes")
    assert error.value.details["projects"] == ["infra", "webdev"]
    assert doors.delete("notes", project="infra").project == "infra"


def test_tags_and_references_keep_their_order_in_json(write):
    memory = write("m", tags=["b", "a", "b"], references=["z", "y"]).memory
    with connection.cursor() as cursor:
        cursor.execute("SELECT tags, refs FROM memories_memory WHERE id = %s", [memory.id])
        tags, refs = cursor.fetchone()
    assert json.loads(tags) == ["b", "a"] and json.loads(refs) == ["z", "y"]


def test_delete_of_missing_memory_is_refused(db):
    with pytest.raises(MemoryNotFound):
        doors.delete("ghost")


CHANGED = 1  # PostgreSQL's NOTIFY beside a change's entry in the feed


@pytest.mark.parametrize(
    ("door", "queries"),
    [
        # savepoint; the name in any tier; the name across tiers; the upsert; the row read
        # back; its vector; its wording key; the revision; the state it begins; its entry in
        # the change feed (and on PostgreSQL the NOTIFY that wakes the other servers:
        # CHANGED); release (no inline bytes added: the bands unread)
        (lambda: doors.write("fresh", description="a thing apart"), 11),
        # + the bands' totals, for the inline bytes it adds
        (lambda: doors.write("fresh", description="apart", body="x", load="inline"), 12),
        # as a create, without the name across tiers; the text unchanged: no new vector or
        # key; + the state it ends (and the one for a row with none, which finds one)
        (lambda: doors.write("deploy", priority=1), 10),
        # + the target project, the name in its tier and across tiers; an UPDATE by id
        (lambda: doors.write("deploy", move_to="webdev"), 13),
        # savepoint; the name; rollback and release: nothing else is asked
        (lambda: doors.write("deploy", description="again", must_create=True), 4),
    ],
    ids=["create", "inline create", "update", "move", "refused"],
)
def test_each_write_runs_a_fixed_number_of_queries(
    write, project, door, queries, django_assert_num_queries
):
    write("deploy", description="where deploys go", body="host-7")
    if queries > 4 and connection.vendor == "postgresql":  # every case but the refusal lands
        queries += CHANGED
    with django_assert_num_queries(queries), contextlib.suppress(NameClash):
        door()


def test_the_notes_search_the_band_once_and_only_when_asked(write, django_assert_num_queries):
    write("deploy", description="Production deploys go to host-7 through the bastion")
    result = write("deploy-2", description="Production deploys go to host-7 via the bastion")
    notes = result.notes
    assert "'deploy' already says something very similar" in notes[0]
    with django_assert_num_queries(0):
        assert result.notes == notes
