"""edit (exact-once, compare-and-swap), delete (backlinks kept), read (the counted read)."""

import datetime as dt

import pytest
from django.utils import timezone

from memories.models import Memory
from memories.rules.errors import EditMismatch, PreconditionFailed, StaleBody
from memories.writes import doors
from tests.conftest import backdate


def test_edit_replaces_exactly_once_and_shows_context(write):
    write("notes", body="one\ntwo\nthree\nfour\nfive")
    result = doors.edit("notes", old_string="three", new_string="3")
    assert result.memory.body == "one\ntwo\n3\nfour\nfive"
    assert result.replacements == 1
    assert "two\n3\nfour" in result.context


def test_edit_refuses_an_ambiguous_match_unless_replace_all(write):
    write("notes", body="a-b-a")
    with pytest.raises(EditMismatch) as error:
        doors.edit("notes", old_string="a", new_string="x")
    assert error.value.details["matches"] == 2
    assert Memory.objects.get(name="notes").body == "a-b-a"
    assert doors.edit("notes", old_string="a", new_string="x", replace_all=True).memory.body == (
        "x-b-x"
    )


def test_edit_refuses_a_missing_match(write):
    write("notes", body="abc")
    with pytest.raises(EditMismatch):
        doors.edit("notes", old_string="zzz", new_string="x")


def test_edit_with_empty_new_string_deletes_the_text(write):
    write("notes", body="keep this, drop this")
    assert doors.edit("notes", old_string=", drop this", new_string="").memory.body == "keep this"


def test_edit_verifies_only_when_asked(write):
    memory = backdate(write("notes", body="abc").memory, days=5)
    edited = doors.edit("notes", old_string="b", new_string="B").memory
    assert edited.verified_at == memory.verified_at
    verified = doors.edit("notes", old_string="B", new_string="b", verified=True).memory
    assert verified.verified_at > memory.verified_at


def test_a_rewrite_against_a_changed_body_is_refused(write):
    write("notes", body="original")
    doors.write("notes", body="changed meanwhile")
    with pytest.raises(StaleBody) as error:
        doors.write("notes", body="my rewrite", expect_body="original")
    assert error.value.current_body == "changed meanwhile"
    assert Memory.objects.get(name="notes").body == "changed meanwhile"


def test_if_match_guards_writes_edits_and_deletes(write):
    memory = write("notes", body="abc").memory
    stale = memory.etag
    doors.write("notes", body="abcd", if_match=stale)
    for attempt in (
        lambda: doors.write("notes", body="x", if_match=stale),
        lambda: doors.edit("notes", old_string="a", new_string="b", if_match=stale),
        lambda: doors.delete("notes", if_match=stale),
    ):
        with pytest.raises(PreconditionFailed):
            attempt()
    assert Memory.objects.get(name="notes").body == "abcd"


def test_etag_changes_on_any_change(write):
    memory = write("notes").memory
    tagged = doors.write("notes", tags=["x"]).memory
    assert memory.etag != tagged.etag
    assert Memory.objects.get(name="notes").etag == tagged.etag


def test_delete_names_the_memories_still_referencing_and_keeps_their_references(write, project):
    write("deploy-host")
    write("runbook", references=["deploy-host", "/etc/hosts"])
    write("checklist", project="webdev", references=["deploy-host"])
    result = doors.delete("deploy-host")
    assert sorted(m.name for m in result.referenced_by) == ["checklist", "runbook"]
    assert Memory.objects.get(name="runbook").references == ["deploy-host", "/etc/hosts"]


def test_read_counts_and_captions(write):
    memory = backdate(write("tz", body="UTC+8").memory, days=47, verified_days=1)
    result = doors.read("tz")
    assert result.text == "UTC+8" and result.next_offset is None
    assert result.caption.startswith("Recorded 47 days ago, verified yesterday")
    assert Memory.objects.get(id=memory.id).read_count == 1
    doors.read("tz")
    assert Memory.objects.get(id=memory.id).read_count == 2


def test_read_caption_says_not_verified_since(write):
    backdate(write("tz").memory, days=47)
    assert doors.read("tz").caption.startswith("Recorded 47 days ago, not verified since")


def test_read_marks_an_expired_memory(write):
    write("freeze", expires=(timezone.now() - dt.timedelta(days=3)).isoformat())
    assert "expired" in doors.read("freeze").caption


def test_read_pages_long_bodies_by_characters(write):
    body = "é" * 16_000 + "tail"
    write("long", body=body)
    first = doors.read("long")
    assert len(first.text) == 16_000 and first.next_offset == 16_000
    second = doors.read("long", offset=first.next_offset)
    assert second.text == "tail" and second.next_offset is None


def test_only_the_read_door_counts(write):
    from memories.reads import lookup

    write("tz")
    lookup.locate("tz")
    doors.write("tz", body="x")
    assert Memory.objects.get(name="tz").read_count == 0
