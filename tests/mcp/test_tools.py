"""The five tools on their own: the seed's result lines and notes, marks and tiers, in words."""

import datetime as dt

import pytest
from django.utils import timezone

from memadmin.mcp.session import Session
from memadmin.mcp.tools import TOOLS
from memories.models import Memory
from memories.rules.errors import DomainError, NotPermitted
from memories.writes import doors
from tests.conftest import backdate


def call(tool: str, session: Session | None = None, **arguments) -> str:
    return TOOLS[tool].call(session or Session(None), arguments)


def refusal(tool: str, session: Session | None = None, **arguments) -> str:
    with pytest.raises(DomainError) as raised:
        call(tool, session, **arguments)
    return raised.value.message


def test_a_write_names_a_near_duplicate_and_a_long_description(db):
    call("memory_write", name="alice-timezone", description="Alice is in the UTC+8 time zone")
    text = call("memory_write", name="alice-tz", description="Alice is in UTC+8 time zone")
    assert text == (
        "Saved memory 'alice-tz' (priority 5). It is in your memory store from the next turn "
        "on, and `memory_search` will find it whatever the index has room to list.\n\n"
        "Note: 'alice-timezone' already says something very similar. If this is the same "
        "fact, write to 'alice-timezone' instead and delete 'alice-tz'. Two near-copies both "
        "stay in the index for ever and neither supersedes the other."
    )
    text = call("memory_write", name="essay", description="word " * 50)
    assert "\n\nNote: The description runs to 249 characters." in text


def test_omitting_a_field_keeps_it_and_a_blank_clears_body_and_expiry(db):
    call(
        "memory_write",
        name="kept",
        description="Kept",
        body="the body",
        tags=["a"],
        priority=2,
        expires="2999-01-01",
    )
    call("memory_write", name="kept", description="Reworded")
    memory = Memory.objects.get(name="kept")
    assert (memory.body, memory.tags, memory.priority) == ("the body", ["a"], 2)
    assert memory.expires_at is not None
    call("memory_write", name="kept", body="", expires="", tags=[])
    memory.refresh_from_db()
    assert (memory.body, memory.tags, memory.expires_at) == ("", [], None)


def test_verified_moves_the_stamp_and_the_marks_say_so(db):
    call("memory_write", name="checked", description="Checked fact", body="short")
    backdate(Memory.objects.get(name="checked"), days=47)
    call("memory_edit", name="checked", old_string="short", new_string="brief", verified=True)
    text = call("memory_read", name="checked")
    assert "Recorded 47 days ago, verified today. This is what you recorded then" in text
    found = call("memory_search", queries=["checked"])
    assert "- checked: priority 5, recorded 47 days ago, 1 read, verified; matched by" in found


def test_an_expired_memory_is_marked_where_it_is_found_and_read(db):
    doors.write("freeze", description="No deploys this week", expires="2030-01-01")
    Memory.objects.filter(name="freeze").update(expires_at=timezone.now() - dt.timedelta(days=2))
    found = call("memory_search", queries=["deploys"])
    assert "recorded today, 0 reads, expired; matched by word" in found
    assert "expired 2 days ago, it no longer applies" in call("memory_read", name="freeze")
    assert "- freeze: " in call("memory_search", expired=True)
    assert "freeze" not in call("memory_search", expired=False)
    text = call("memory_write", name="freeze", description="No deploys until the 26th")
    assert "Note: 'freeze' has expired and stays expired" in text


def test_a_listing_without_queries_is_in_index_order_and_says_so(db, project):
    doors.write("deploy-host", description="Where we deploy")
    doors.write("runbook", description="Runbook", priority=1, references=["deploy-host"])
    doors.write("stack", description="Stack", project="webdev", references=["deploy-host"])
    doors.write("elsewhere", description="Other", references=["deploy-host"], priority=0)
    Memory.objects.filter(name="elsewhere").update(
        verified_at=timezone.now() - dt.timedelta(days=100)
    )
    text = call("memory_search", Session(project), referencing="deploy-host")
    assert text.splitlines()[0] == "3 memories referencing ‘deploy-host’, most important first."
    assert [line.split(":")[0] for line in text.splitlines() if line.startswith("- ")] == [
        "- elsewhere (global)",
        "- runbook (global)",
        "- stack",
    ]
    assert call("memory_search", referencing="deploy-host").startswith("2 memories")
    text = call("memory_search", Session(project), unverified="90d")
    assert text.splitlines()[0] == "1 memory unverified for 90 days, most important first."
    paged = call("memory_search", Session(project), referencing="deploy-host", limit=2)
    assert "Showing 1 to 2. Pass offset 2 for more." in paged
    assert "Showing 3 to 3." in call(
        "memory_search", Session(project), referencing="deploy-host", limit=2, offset=2
    )


def test_a_listing_counts_the_sessions_band_alone(db, project, other_project):
    """Counted from the tallies, as the list is: once they counted every tier's memories."""
    doors.write("global-note", description="Global")
    doors.write("stack", description="Stack", project="webdev")
    for number in range(3):
        doors.write(f"infra-{number}", description="Infra", project="infra")
    text = call("memory_search", Session(project))
    assert text.splitlines()[0] == "2 memories, most important first."
    assert "Showing" not in text
    assert call("memory_search").startswith("1 memory, most important first.")


def test_the_sense_that_answered_is_named(db):
    doors.write("deploys", description="Deploys run nightly")
    doors.write("tokyo", description="Office in 東京都")
    assert "matched by prefix" in call("memory_search", queries=["deployment"])
    assert "found as text: 東京" in call("memory_search", queries=["東京"])
    text = call("memory_search", queries=["ightl"])
    assert text.splitlines()[:2] == [
        "1 memory matching ‘ightl’, best first.",
        "Nothing matched as words; the whole query was scanned as text.",
    ]
    assert "- deploys: priority 5, recorded today, 0 reads; found as text: ightl" in text


def test_a_write_moves_between_the_sessions_tiers(db, project):
    session = Session(project)
    call("memory_write", session, name="tz", description="Alice is in UTC+8")
    assert Memory.objects.get(name="tz").project_name == "webdev"
    text = call("memory_write", session, name="tz", tier="global")
    assert text.startswith(
        "Saved memory 'tz' in the global tier (priority 5). It moved there from project 'webdev'."
    )
    # Written again without a tier, it stays where it is.
    assert call("memory_write", session, name="tz", priority=3).startswith(
        "Saved memory 'tz' in the global tier (priority 3)."
    )
    assert Memory.objects.get(name="tz").project_name is None


def test_a_session_that_may_not_write_is_refused_before_the_door(db):
    reader = Session(None, write_refusal="This token is read-only; writing needs a write token.")
    with pytest.raises(NotPermitted, match="read-only"):
        call("memory_write", reader, name="x", description="x")
    assert not Memory.objects.exists()
    assert call("memory_search", reader).startswith("0 memories")


def test_an_ambiguous_edit_is_refused_unless_replace_all(db):
    doors.write("list", description="A list", body="- a\n- b\n- a\n- c\n- d\n- e")
    assert refusal("memory_edit", name="list", old_string="- a", new_string="- z") == (
        "old_string occurs 2 times in the body of 'list'; give more of the surrounding text, "
        "or set replace_all."
    )
    text = call("memory_edit", name="list", old_string="- a", new_string="- z", replace_all=True)
    assert text.startswith("Edited memory 'list' (2 replacements).")
    text = call("memory_edit", name="list", old_string="- d\n", new_string="")
    assert text.endswith("\n\n- z\n- c\n- e")  # the lines around the deleted text
    assert Memory.objects.get(name="list").body == "- z\n- b\n- z\n- c\n- e"


def test_an_unknown_argument_is_named_in_a_sentence_of_bounded_length(db):
    text = refusal("memory_read", **{"name": "x", "k" * 5000: 1})
    assert text.startswith("memory_read has no argument 'kkk")
    assert text.endswith("'; it takes name, offset.") and len(text) < 200
