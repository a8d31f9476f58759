"""The main menu: grouped into one row at 1280 px, folded behind Menu at 390 px, opened and
followed by keyboard, and usable without script."""

import pytest

from tests.conftest import PASSWORD, make_user

pytestmark = pytest.mark.browser

TOP_LEVEL = ".nav-bar > li > a, .nav-bar > li > details > summary"


def rows_of(page, selector: str) -> int:
    """How many distinct rows the elements matching `selector` are drawn on."""
    return page.evaluate(
        "(selector) => new Set([...document.querySelectorAll(selector)]"
        ".map((e) => Math.round(e.getBoundingClientRect().top))).size",
        selector,
    )


@pytest.mark.parametrize("role", ["admin", "operator", "auditor"])
def test_the_menu_is_one_row_at_1280(sign_in, role):
    page = sign_in(role)
    assert rows_of(page, TOP_LEVEL) == 1
    header = page.locator(".site-header").bounding_box()
    assert header["height"] < 70
    labels = page.locator(TOP_LEVEL).all_inner_texts()
    assert labels[:4] == ["Overview", "Memories", "Insights", "History"]
    assert labels[4] == ("Admin" if role == "admin" else "API tokens")


def test_a_group_opens_and_is_followed_by_keyboard(sign_in, live_server):
    page = sign_in("operator")
    summary = page.locator("summary", has_text="Insights")
    summary.focus()
    page.keyboard.press("Enter")
    assert page.locator("a", has_text="Budget").is_visible()
    page.keyboard.press("Escape")
    assert not page.locator("a", has_text="Budget").is_visible()
    assert page.evaluate("document.activeElement.textContent") == "Insights"
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Budget"
    page.keyboard.press("Enter")
    page.wait_for_url(live_server.url + "/budget/")
    # The page's group is marked, and its own link in it.
    assert page.locator("summary.is-current").inner_text() == "Insights"
    page.locator("summary", has_text="Insights").click()
    assert page.locator(".site-nav a[aria-current=page]").inner_text() == "Budget"
    # One group open at a time.
    page.locator("summary", has_text="Memories").click()
    assert page.locator(".site-nav details[open]").count() == 1


def test_the_menu_folds_at_390(sign_in, live_server):
    page = sign_in("admin", width=390)
    assert not page.locator(".nav-bar").is_visible()
    header = page.locator(".site-header").bounding_box()
    assert header["height"] < 100
    # The live indicator's longest words (the stream down) do not fold the header either.
    page.evaluate(
        "() => { const live = document.getElementById('live');"
        " live.dataset.state = 'polling'; live.textContent = 'polling every 30 s'; }"
    )
    assert page.locator(".site-header").bounding_box()["height"] < 100
    page.get_by_role("button", name="Menu").click()
    assert page.get_by_role("button", name="Menu").get_attribute("aria-expanded") == "true"
    assert page.locator(".nav-bar").is_visible()
    page.locator("summary", has_text="Admin").click()
    page.get_by_role("link", name="Snapshots").click()
    page.wait_for_url(live_server.url + "/snapshots/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_menu_without_script(chromium, live_server, transactional_db):
    make_user("reader", "auditor")
    context = chromium.new_context(
        viewport={"width": 390, "height": 900}, java_script_enabled=False
    )
    try:
        page = context.new_page()
        page.goto(live_server.url + "/sign-in/")
        page.fill("#id_username", "reader")
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(live_server.url + "/")
        assert not page.get_by_role("button", name="Menu").is_visible()
        assert page.locator(".nav-bar").is_visible()
        page.locator("summary", has_text="Memories").click()
        page.get_by_role("link", name="Projects").click()
        page.wait_for_url(live_server.url + "/projects/")
    finally:
        context.close()
