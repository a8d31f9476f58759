"""The consolidation review in Chromium: the plan read, one cluster applied by its button,
the receipt, the cluster undone from it; the page fits a phone; no script error."""

import pytest

from memories.models import Memory
from projects import writes as project_doors
from tests.browser.conftest import ARTIFACTS
from tests.conftest import write_duplicates

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
