"""A lead in Chromium opens last week's agent view of a project, then diffs it with today's."""

import datetime as dt
import re

import pytest
from django.utils import timezone

from memories.models import Memory, ProjectRevision, Revision
from memories.writes import doors, history, states
from projects import writes as project_doors
from tests.browser.conftest import ARTIFACTS
from tests.conftest import make_user

pytestmark = pytest.mark.browser


def _ten_days_pass() -> None:
    """What was written so far moved back ten days, as time passing would; the memories'
    states, which the history keeps as it is written, rebuilt from the history so moved."""
    ten_days_ago = timezone.now() - dt.timedelta(days=10)
    Revision.objects.update(at=ten_days_ago)
    ProjectRevision.objects.update(at=ten_days_ago)
    Memory.objects.update(created_at=ten_days_ago, updated_at=ten_days_ago)
    states.rebuild()


@pytest.fixture
def a_week_of_history(transactional_db):
    """A project written ten days ago (its history moved back, as time passing would), then
    changed today by bob: a rule reworded, a note removed, another added."""
    project_doors.add("webdev")
    doors.write("rule", description="answer in kind", body="Answer in kind.", load="inline")
    doors.write("old-deploys", project="webdev", description="Deploys go to host-3", priority=2)
    doors.write("stack", project="webdev", description="The stack is Django", priority=4)
    _ten_days_pass()
    bob = make_user("bob", "operator")
    with history.acting(door=history.PAGE, user=bob):
        doors.write("rule", body="Answer in the user's language.")
        doors.delete("old-deploys", project="webdev")
        doors.write("deploys", project="webdev", description="Deploys go to host-7", priority=2)


def _local(moment: dt.datetime) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%dT%H:%M:%S")


def test_last_weeks_view_then_what_changed_since(sign_in, a_week_of_history, live_server):
    page = sign_in("auditor", username="lena")
    page.goto(live_server.url + "/memories/_agent/?project=webdev")
    text = page.locator("#agent-text")
    assert "Deploys go to host-7" in text.inner_text()

    last_week = _local(timezone.now() - dt.timedelta(days=7))
    page.fill("#as-of-at", last_week)
    page.click("form.as-of button[type=submit]")
    page.wait_for_url(re.compile(r"at="))
    assert "As it stood at" in page.locator(".as-of-banner").inner_text()
    then = text.inner_text()
    assert "Deploys go to host-3" in then and "Answer in kind." in then
    assert "host-7" not in then
    assert page.locator("#as-of-at").input_value() == last_week

    # Today's view against last week's: "at" emptied is now.
    page.fill("#as-of-at", "")
    page.fill("#as-of-since", last_week)
    page.click("form.as-of button[type=submit]")
    page.wait_for_url(re.compile(r"since="))
    diff = page.locator("#view-diff")
    diff.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "agent-view-since-last-week.png"), full_page=True)
    changes = page.locator(".view-changes > li")
    assert changes.count() == 3
    entered, left, changed = (changes.nth(n).inner_text() for n in range(3))
    assert entered.startswith("deploys") and "created by bob" in entered
    assert left.startswith("old-deploys") and "deleted by bob" in left
    assert changed.startswith("rule") and "updated by bob" in changed
    assert diff.locator(".diff-del", has_text="Answer in kind.").count() == 1
    assert diff.locator(".diff-add", has_text="Answer in the user's language.").count() == 1

    # The memory that left was deleted: its name leads to its changes in the audit log.
    diff.locator(".view-changes a", has_text="old-deploys").click()
    page.wait_for_url(re.compile(r"/history/\?memory=old-deploys"))
    assert "deleted" in page.locator("main").inner_text()
    assert not page.errors


@pytest.fixture
def a_week_with_a_correction(transactional_db):
    """A project written ten days ago; today bob corrects its deploy host by a note that
    supersedes the old one."""
    project_doors.add("webdev")
    doors.write("old-deploys", project="webdev", description="Deploys go to host-3", priority=2)
    _ten_days_pass()
    bob = make_user("bob", "operator")
    with history.acting(door=history.PAGE, user=bob):
        doors.write(
            "deploys",
            project="webdev",
            description="Deploys go to host-7",
            priority=2,
            supersedes="old-deploys",
        )


def test_a_lead_diffs_last_week_with_today_and_follows_the_superseded_note_to_its_successor(
    sign_in, a_week_with_a_correction, live_server
):
    page = sign_in("auditor", username="lena")
    last_week = _local(timezone.now() - dt.timedelta(days=7))
    page.goto(live_server.url + "/memories/_agent/?project=webdev")
    page.fill("#as-of-at", last_week)
    page.click("form.as-of button[type=submit]")
    page.wait_for_url(re.compile(r"at="))
    then = page.locator("#agent-text").inner_text()
    assert "Deploys go to host-3" in then and "host-7" not in then

    page.fill("#as-of-at", "")
    page.fill("#as-of-since", last_week)
    page.click("form.as-of button[type=submit]")
    page.wait_for_url(re.compile(r"since="))
    changes = page.locator(".view-changes > li")
    texts = changes.all_inner_texts()
    assert [t.split()[0] for t in texts] == ["deploys", "old-deploys"], texts
    assert "created by bob" in texts[0]
    page.screenshot(path=str(ARTIFACTS / "agent-view-correction-since.png"), full_page=True)

    # The note that left the view is still there, superseded: its page leads to its successor.
    page.locator(".view-changes > li > a", has_text="old-deploys").click()
    page.wait_for_selector("#supersession")
    assert page.inner_text("#supersession .superseded").startswith("Superseded by deploys")
    page.click("#successor")
    page.wait_for_url(re.compile(r"/memories/deploys/\?project=webdev"))
    assert page.locator("#replaces a").all_inner_texts() == ["old-deploys"]
    assert not page.errors
