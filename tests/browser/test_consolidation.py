"""The consolidation review in Chromium: the plan read, one cluster applied by its button,
the receipt, the cluster undone from it; the page fits a phone; no script error."""

import io

import pytest
from django.core.management import call_command

from memories.models import Memory
from projects import writes as project_doors
from tests.browser.conftest import ARTIFACTS
from tests.conftest import write_duplicates, write_to_review

pytestmark = pytest.mark.browser


@pytest.fixture
def store(transactional_db):
    project_doors.add("webdev")
    write_duplicates()


def test_apply_a_cluster_then_undo_it(sign_in, store, live_server):
    page = sign_in("operator")
    page.goto(live_server.url + "/hygiene/")
    page.click("text=consolidation review")
    page.wait_for_url(live_server.url + "/hygiene/consolidation/")
    assert page.locator(".cluster").count() == 2
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "consolidation-plan.png"), full_page=True)

    cluster = page.locator(".cluster", has=page.locator("a", has_text="nightly-deploy"))
    assert "+ deploy" in cluster.inner_text()
    cluster.get_by_role("button", name="Apply this cluster").click()
    receipt = page.locator(".receipt")
    receipt.wait_for()
    assert "planned 1 · applied 1 · refused 0 · skipped 0" in receipt.inner_text()
    assert page.locator(".cluster").count() == 1
    page.screenshot(path=str(ARTIFACTS / "consolidation-receipt.png"), full_page=True)
    assert not Memory.objects.filter(name="nightly-deploy").exists()
    assert Memory.objects.get(name="cite-it").references == ["deploy-night", "tz"]

    receipt.get_by_role("button", name="Undo").click()
    page.wait_for_url("**/history/changes/*/")
    assert Memory.objects.get(name="cite-it").references == ["nightly-deploy", "tz"]
    assert Memory.objects.get(name="deploy-night").tags == ["ops"]
    assert Memory.objects.get(name="nightly-deploy").tags == ["deploy", "ops"]
    assert not page.errors


@pytest.mark.parametrize("width", [1280, 390])
def test_the_page_fits_the_screen(sign_in, store, live_server, width):
    page = sign_in("operator", width=width)
    page.goto(live_server.url + "/hygiene/consolidation/")
    scroll, client = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert scroll <= client
    page.screenshot(path=str(ARTIFACTS / f"consolidation-{width}.png"), full_page=True)
    page.select_option("#c-project", "webdev")  # redrawn in place, its address in the bar
    page.wait_for_url("**/hygiene/consolidation/?project=webdev")
    page.wait_for_function("document.querySelectorAll('.cluster').length === 1")
    assert "copy-b" in page.locator("#plan").inner_text()
    assert not page.errors


@pytest.fixture
def demo(transactional_db):
    call_command("seed_demo", stdout=io.StringIO())


def test_the_demo_store_offers_no_legacy_rule_to_one_click(sign_in, demo, live_server):
    page = sign_in("operator")
    page.goto(live_server.url + "/hygiene/consolidation/?project=legacy")
    page.locator("#plan .summary").wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "consolidation-demo-legacy.png"), full_page=True)
    assert "legacy-rule-" not in page.locator("#plan").inner_text()
    page.goto(live_server.url + "/hygiene/consolidation/")
    page.locator("#plan .summary").wait_for()
    page.screenshot(path=str(ARTIFACTS / "consolidation-demo.png"), full_page=True)
    # What one click would trash: the members the forms' keys name, none a legacy rule.
    keys = page.eval_on_selector_all(
        "form.apply-all input[name=key], .cluster form:not(.merge-form) input[name=key]",
        "inputs => inputs.map(i => i.value)",
    )
    named = {
        int(pair.split(".")[0]) for key in keys for pair in key.replace("-", ",").split(",") if pair
    }
    legacy = set(
        Memory.objects.filter(name__startswith="legacy-rule-").values_list("id", flat=True)
    )
    assert len(legacy) == 16 and not named & legacy
    assert not page.errors


def test_a_member_to_review_is_read_side_by_side_and_merged_by_hand(sign_in, store, live_server):
    write_to_review()
    page = sign_in("operator")
    page.goto(live_server.url + "/hygiene/consolidation/")
    review = page.locator("article.review")
    assert review.count() == 1
    assert "2 am" in review.locator(".member-side mark.changed").all_inner_texts()
    page.screenshot(path=str(ARTIFACTS / "consolidation-review.png"), full_page=True)
    page.get_by_role("button", name="Apply the whole plan").click()
    page.locator(".receipt").wait_for()
    assert Memory.objects.filter(name="deploy-at-two").exists()
    page.get_by_role("button", name="Merge deploy-at-two into deploy-night").click()
    page.wait_for_function("document.querySelectorAll('article.review').length === 0")
    assert "applied 1" in page.locator(".receipt").inner_text()
    assert not Memory.objects.filter(name="deploy-at-two").exists()
    assert not page.errors
