"""The way back in Chromium: change a priority, open History, restore the old one, and an
undo of a bulk action from its change set."""

import re

import pytest

from memories.models import Memory, Revision
from memories.writes import doors

pytestmark = pytest.mark.browser


@pytest.fixture
def store(transactional_db):
    doors.write("deploy-host", description="Production deploys go to host-7", priority=1)
    doors.write("runbook", description="The deploy runbook", priority=5)
    doors.write("handbook", description="The team handbook", priority=6)


def _priority_input(page, name: str):
    return page.locator("tbody.memory-row", has_text=name).locator("input[name=priority]")


def test_change_a_priority_open_history_restore_the_old_one(sign_in, store, live_server):
    page = sign_in("operator", username="olga")
    _priority_input(page, "runbook").fill("0")
    _priority_input(page, "runbook").press("Enter")
    page.wait_for_selector("tbody.memory-row.is-saved")
    assert Memory.objects.get(name="runbook").priority == 0

    page.click("tbody.memory-row >> text=runbook")
    page.wait_for_url(re.compile(r"/memories/runbook/"))
    page.click(".memory-tabs >> text=History")
    page.wait_for_url(re.compile(r"/memories/runbook/history/"))
    latest = page.locator("article.revision").first
    assert "olga" in latest.inner_text()
    assert latest.locator("del").inner_text() == "5"
    assert latest.locator("ins").inner_text() == "0"

    creation = page.locator("article.revision").nth(1)
    creation.locator("input[name=reason]").fill("0 was meant for deploy-host")
    creation.locator("button", has_text="Restore this version").click()
    page.wait_for_selector("text=Restored 'runbook' as revision")
    revert = page.locator("article.revision").first
    assert "restored a version" in revert.inner_text()
    assert "0 was meant for deploy-host" in revert.inner_text()

    page.goto(live_server.url + "/memories/")
    assert _priority_input(page, "runbook").input_value() == "5"
    assert Revision.objects.filter(name="runbook").count() == 3
    assert not page.errors


def test_undo_a_bulk_action_from_its_change_set(sign_in, store, live_server):
    page = sign_in()
    for name in ("runbook", "handbook"):
        page.locator("tbody.memory-row", has_text=name).locator("input[name=id]").check()
    page.select_option("#bulk-action", "set_priority")
    page.fill("#bulk-priority", "9")
    page.click("#bulk button[type=submit]")
    page.wait_for_selector("text=Set priority 9 on 2 memories.")

    page.click("nav.site-nav >> text=History")
    page.click(".tabs >> text=Change sets")
    page.locator("table.audit tr", has_text="Set priority 9 on 2 memories").locator(
        "a"
    ).first.click()
    page.wait_for_url(re.compile(r"/history/changes/\d+/$"))
    page.locator("button", has_text="Undo change set").click()
    page.wait_for_selector("text=Undid change set")
    assert {
        m.name: m.priority for m in Memory.objects.filter(name__in=["runbook", "handbook"])
    } == {
        "runbook": 5,
        "handbook": 6,
    }
    assert not page.errors
