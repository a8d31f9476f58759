"""A memory's page in Chromium: the edit form folded behind Edit, its Load choice readable
whole, and the local backlink graph drawn on the page without scrolling to it."""

import pytest

from memories.writes import doors
from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

# Whether the chosen option's text fits its select: drawn in the select's font, plus the
# room its padding and the arrow take.
TEXT_FITS = """(select) => {
  const style = getComputedStyle(select);
  const context = document.createElement("canvas").getContext("2d");
  context.font = `${style.fontSize} ${style.fontFamily}`;
  const text = select.options[select.selectedIndex].text;
  const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  const room = select.clientWidth - padding - 20;
  return context.measureText(text).width <= room;
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_edit_unfolds_and_the_load_choice_is_readable(
    sign_in, live_server, transactional_db, width
):
    doors.write("host", description="Where deploys go")
    doors.write("runbook", description="The runbook", references=["host"], body="# Steps\n")
    page = sign_in("operator", width=width)
    page.goto(live_server.url + "/memories/runbook/?project=")
    # Right under the body, above the folded form: drawn once scrolled to (at once at 1280).
    if width < 1280:
        page.locator("#memory-graph").scroll_into_view_if_needed()
    page.wait_for_selector("#memory-graph [data-graph-state=drawn]")
    assert page.inner_text("#memory-graph [data-graph-summary]") == "2 nodes and 1 reference."
    assert not page.locator("#id_load").is_visible()
    page.get_by_role("link", name="Edit", exact=True).click()
    assert page.locator("#id_load").is_visible()
    for load in ("inline", "index", "search"):
        page.select_option("#id_load", load)
        assert page.locator("#id_load").evaluate(TEXT_FITS), load
    page.fill("#id_priority", "7")
    page.click("#edit-form button[type=submit]")
    page.wait_for_selector("text=Saved")
    assert not page.errors


@pytest.mark.parametrize("width", [1280, 390])
def test_unfolding_edit_loads_the_form_in_place_and_it_saves(
    sign_in, live_server, transactional_db, width
):
    doors.write("runbook", description="The runbook", body="# Steps\n", priority=4)
    page = sign_in("operator", width=width)
    page.goto(live_server.url + "/memories/runbook/?project=")
    assert page.locator("#edit-form").count() == 0  # not drawn until asked for
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"detail-edit-folded-{width}.png"), full_page=True)
    with page.expect_response(lambda response: "edit=1" in response.url) as loaded:
        page.click("#edit > summary")
    assert loaded.value.status == 200
    page.wait_for_selector("#id_load", state="visible")
    assert page.url == live_server.url + "/memories/runbook/?project="  # loaded in place
    assert page.input_value("#id_priority") == "4"
    page.screenshot(path=str(ARTIFACTS / f"detail-edit-unfolded-{width}.png"), full_page=True)
    page.fill("#id_priority", "8")
    page.click("#edit-form button[type=submit]")
    page.wait_for_selector("text=Saved")
    assert "priority 8" in page.inner_text(".memory-head")
    assert not page.errors


def test_a_name_pasted_too_long_is_kept_whole_counted_and_refused(sign_in, live_server):
    page = sign_in("operator")
    page.goto(live_server.url + "/memories/_new/")
    page.fill("#id_name", "n" * 360)
    page.fill("#id_description", "A note")
    assert page.input_value("#id_name") == "n" * 360  # not cut at 128
    counter = page.locator("#id_name ~ .char-count")
    assert counter.text_content() == "360 characters: 232 over the limit of 128"
    assert "over" in counter.get_attribute("class")
    assert page.locator("#id_description ~ .char-count").text_content() == ("6 of 1000 characters")
    page.screenshot(path=str(ARTIFACTS / "new-memory-too-long.png"), full_page=True)
    page.get_by_role("button", name="Save").first.click()
    page.wait_for_load_state()
    assert "at most 128 characters (it has 360)" in page.content()
    assert page.errors == []
