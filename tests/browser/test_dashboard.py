"""A person using the dashboard in Chromium: sign in, filter, share, edit, bulk, refusals."""

import datetime as dt
import re

import pytest
from django.utils import timezone

from memories.models import Memory
from memories.writes import doors
from projects import writes as project_doors
from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.browser


@pytest.fixture
def store(transactional_db):
    project_doors.add("webdev")
    past = (timezone.now() - dt.timedelta(days=3)).isoformat()
    doors.write("deploy-host", description="Production deploys go to host-7", priority=1)
    doors.write("freeze", description="No deploys this week", expires=past, priority=2)
    doors.write("runbook", description="The deploy runbook", references=["deploy-host"])
    doors.write(
        "pnpm", project="webdev", description="Uses pnpm", references=["deploy-host"], priority=3
    )
    doors.write("handbook", description="The team handbook", body="h" * 80, priority=6)


def names(page) -> list[str]:
    return page.locator("tbody.memory-row th.col-name a").all_inner_texts()


def test_filter_by_expired_and_referencing_and_share_the_url(sign_in, store, live_server):
    page = sign_in("auditor")
    assert "5 memories, most important first" in page.inner_text(".summary")
    page.select_option("#f-expired", "true")
    page.wait_for_url(re.compile(r"/memories/\?expired=true$"))
    assert names(page) == ["freeze"]
    assert "1 memory expired" in page.inner_text(".summary")

    page.select_option("#f-expired", "")
    page.fill("#f-referencing", "deploy-host")
    page.press("#f-referencing", "Enter")
    page.wait_for_url(re.compile(r"referencing=deploy-host"))
    assert names(page) == ["pnpm", "runbook"]
    shared = page.url
    assert shared.endswith("/memories/?referencing=deploy-host")

    other = sign_in("auditor", username="someone-else")
    other.goto(shared)
    assert names(other) == ["pnpm", "runbook"]
    assert other.input_value("#f-referencing") == "deploy-host"
    assert "2 memories referencing ‘deploy-host’" in other.inner_text(".summary")
    assert not page.errors and not other.errors


def test_back_restores_the_previous_filter(sign_in, store):
    page = sign_in()
    page.select_option("#f-project", "webdev")
    page.wait_for_url(re.compile(r"project=webdev"))
    assert names(page) == ["pnpm"]
    page.go_back()
    page.wait_for_url(re.compile(r"/memories/$"))
    page.wait_for_selector("text=5 memories")
    assert len(names(page)) == 5


def test_edit_a_priority_in_place_and_see_it_persist(sign_in, store):
    page = sign_in()
    row = page.locator("tbody.memory-row", has_text="runbook")
    row.locator("input[name=priority]").fill("0")
    row.locator("input[name=priority]").press("Enter")
    page.wait_for_selector("tbody.memory-row.is-saved")
    assert Memory.objects.get(name="runbook").priority == 0
    page.reload()
    assert names(page)[0] == "runbook"
    saved = page.locator("tbody.memory-row", has_text="runbook").locator("input[name=priority]")
    assert saved.input_value() == "0"
    assert not page.errors


def test_run_a_bulk_action(sign_in, store):
    page = sign_in()
    for name in ("runbook", "handbook"):
        page.locator("tbody.memory-row", has_text=name).locator("input[name=id]").check()
    page.select_option("#bulk-action", "set_priority")
    page.fill("#bulk-priority", "9")
    page.click("#bulk button[type=submit]")
    page.wait_for_selector("text=Set priority 9 on 2 memories.")
    changed = Memory.objects.filter(name__in=["runbook", "handbook"])
    assert {m.name: m.priority for m in changed} == {"runbook": 9, "handbook": 9}
    assert set(names(page)[-2:]) == {"runbook", "handbook"}  # redrawn in index order


def test_a_bulk_delete_asks_first_and_names_who_cites_it(sign_in, store):
    page = sign_in()
    page.locator("tbody.memory-row", has_text="deploy-host").locator("input[name=id]").check()
    page.select_option("#bulk-action", "delete")
    page.click("#bulk button[type=submit]")
    confirm = page.locator("section.confirm")
    confirm.wait_for()
    assert "Still referenced by: pnpm, runbook" in confirm.inner_text()
    confirm.locator("button[type=submit]").click()
    page.wait_for_selector("text=Deleted 1 memory.")
    assert not Memory.objects.filter(name="deploy-host").exists()


def test_a_budget_refusal_shows_beside_its_row(sign_in, store, settings):
    settings.MEMADMIN_INLINE_MAX_BYTES = 50
    page = sign_in()
    row = page.locator("tbody.memory-row", has_text="handbook")
    row.locator("select[name=load]").select_option("inline")
    refusal = page.locator("tbody.memory-row.is-refused tr.refusal")
    refusal.wait_for()
    text = refusal.inner_text()
    assert "inline memories would total 0.1 KiB against the 0.0 KiB inline budget" in text
    assert "handbook" in page.locator("tbody.memory-row.is-refused").inner_text()
    assert Memory.objects.get(name="handbook").load == "index"


def test_open_a_detail_page_and_toggle_the_raw_body(sign_in, store):
    doors.write("handbook", project=None, body="# Handbook\n\nRead **this** first.")
    page = sign_in("auditor")
    page.click("text=handbook")
    page.wait_for_url(re.compile(r"/memories/handbook/\?project=$"))
    assert page.inner_text("h1") == "handbook"
    assert page.locator(".markdown strong").inner_text() == "this"
    page.click(".toggle >> text=Raw")
    page.wait_for_url(re.compile(r"view=raw"))
    assert page.inner_text("#raw-body").startswith("# Handbook")
    page.click("text=Rendered")
    page.wait_for_selector(".markdown h1")


def test_an_auditor_finds_no_edit_control(sign_in, store, live_server):
    page = sign_in("auditor")
    assert page.locator("tbody input[name=priority], tbody select[name=load], #bulk").count() == 0
    assert page.get_by_text("New memory").count() == 0
    page.goto(live_server.url + "/memories/runbook/?project=")
    assert page.locator("form[method=post]").count() == 1  # sign out, and nothing else
    assert page.locator("#edit").count() == 0
    assert page.get_by_text("Delete").count() == 0
    status = page.evaluate(
        """async () => {
            const token = JSON.parse(document.body.getAttribute('hx-headers'))['X-CSRFToken'];
            const r = await fetch('/memories/runbook/row/?project=', {
                method: 'POST', headers: {'X-CSRFToken': token,
                'Content-Type': 'application/x-www-form-urlencoded'}, body: 'priority=0'});
            return r.status;
        }"""
    )
    assert status == 403
    assert Memory.objects.get(name="runbook").priority == 5


def test_search_as_you_type_and_say_how_each_was_found(sign_in, store):
    page = sign_in("auditor")
    page.fill("#f-q-more", "handbook")
    page.wait_for_url(re.compile(r"q=handbook"))
    found = names(page)
    assert found[0] == "handbook"
    assert page.locator(".badge-sense").inner_text() == "word match"
    # Words and meaning by default: what the words did not find is marked as a guess.
    assert page.locator(".badge-meaning").count() == len(found) - 1
    assert f"{len(found)} memories matching ‘handbook’, best first" in page.inner_text(".summary")
    page.select_option("#f-mode", "words")
    page.wait_for_url(re.compile(r"mode=words"))
    assert names(page) == ["handbook"]
    assert "1 memory matching ‘handbook’, best first" in page.inner_text(".summary")


def test_a_paraphrase_is_found_by_meaning_and_marked_so(sign_in, store):
    page = sign_in("auditor")
    # No word of the question, nor a word's start, is in deploy-host.
    page.fill("#f-q-more", "which server receives our releases")
    page.wait_for_url(re.compile(r"q=which"))
    assert names(page)[0] == "deploy-host"
    first = page.locator("tbody.memory-row").first
    assert first.locator(".badge-meaning").inner_text() == "similar in meaning"
    assert first.locator(".badge-meaning").get_attribute("title").startswith("similarity 0.")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "paraphrase-found.png"))
    assert not page.errors
