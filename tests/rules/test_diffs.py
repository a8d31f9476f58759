"""Field-level differences: a line diff for the body, old and new values for the rest."""

import pytest

from memories.models import Revision
from memories.rules import diffs
from memories.writes import doors, history


def _changes(revision: Revision) -> dict[str, diffs.FieldChange]:
    return {change.field: change for change in diffs.revision_changes(revision)}


def _last() -> Revision:
    return Revision.objects.order_by("-id").first()


def test_the_body_is_a_line_diff_with_context(write):
    write("notes", body="one\ntwo\nthree\nfour\nfive\nsix\nseven\n")
    doors.edit("notes", old_string="four", new_string="FOUR")
    (change,) = diffs.revision_changes(_last())
    assert change.kind == diffs.TEXT
    assert change.to_dict() == {
        "field": "body",
        "diff": ["@@ -2,5 +2,5 @@", " two", " three", "-four", "+FOUR", " five", " six"],
    }


def test_a_changed_final_newline_still_shows(write):
    write("notes", body="a\nb")
    doors.write("notes", body="a\nb\n")
    assert _changes(_last())["body"].to_dict()["diff"] == ["@@ -1,2 +1,2 @@", " a", "-b", "+b"]


@pytest.mark.parametrize(
    ("field", "kind", "first", "second", "old", "new"),
    [
        ("description", diffs.VALUE, {}, {"description": "new words"}, "about n", "new words"),
        ("priority", diffs.VALUE, {"priority": 3}, {"priority": 0}, 3, 0),
        ("load", diffs.VALUE, {}, {"load": "inline"}, "index", "inline"),
        ("source", diffs.VALUE, {}, {"source": "a talk"}, "", "a talk"),
        (
            "expires_at",
            diffs.TIME,
            {},
            {"expires": "2030-05-01T10:00:00Z"},
            None,
            "2030-05-01T10:00:00Z",
        ),
        # A date expires when the next day begins (the test settings' zone is UTC).
        (
            "expires_at",
            diffs.TIME,
            {"expires": "2030-05-01"},
            {"expires": ""},
            "2030-05-02T00:00:00Z",
            None,
        ),
    ],
)
def test_each_value_field_shows_old_and_new(write, field, kind, first, second, old, new):
    write("n", **first)
    doors.write("n", **second)
    change = _changes(_last())[field]
    assert change.kind == kind
    assert change.to_dict() == {"field": field, "old": old, "new": new}


def test_a_list_shows_what_was_added_and_removed(write):
    write("n", tags=["a", "b"], references=["x"])
    doors.write("n", tags=["b", "c"], references=[])
    changes = _changes(_last())
    assert changes["tags"].to_dict() == {
        "field": "tags",
        "old": ["a", "b"],
        "new": ["b", "c"],
        "added": ["c"],
        "removed": ["a"],
    }
    assert changes["references"].to_dict() == {
        "field": "references",
        "old": ["x"],
        "new": [],
        "added": [],
        "removed": ["x"],
    }


def test_a_move_shows_the_project_and_a_verification_its_time(write, project):
    write("n")
    doors.write("n", move_to="webdev", verified=True)
    changes = _changes(_last())
    assert changes["project"].to_dict() == {"field": "project", "old": None, "new": "webdev"}
    verified = changes["verified_at"]
    assert verified.new_time > verified.old_time
    assert "updated_at" not in changes


def test_a_creation_lists_what_it_set_and_a_deletion_what_it_removed(write):
    write("n", body="text", tags=["t"])
    created = _changes(_last())
    assert list(created) == [
        "description",
        "body",
        "tags",
        "priority",
        "load",
        "verified_at",
        "created_at",
        "read_count",
    ]
    assert created["body"].to_dict()["diff"] == ["@@ -0,0 +1 @@", "+text"]
    doors.delete("n")
    removed = _changes(_last())
    assert removed["tags"].to_dict()["removed"] == ["t"]
    assert removed["body"].to_dict()["diff"] == ["@@ -1 +0,0 @@", "-text"]


def test_a_revision_that_changes_nothing_shows_no_field(write):
    memory = write("n").memory
    assert doors.write("n").changed is False  # the doors record no such revision now
    history.record(history.UPDATE, before=memory, after=memory)  # as older stores hold
    assert diffs.revision_changes(_last()) == []
