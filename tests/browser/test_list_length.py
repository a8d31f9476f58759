"""The list at length in Chromium: a long description held to a few lines with "more", the
bulk bar in view with its count down a long page, columns hidden for good, numbered pages."""

import re

import pytest
from playwright.sync_api import expect

from memories.writes import doors

pytestmark = pytest.mark.browser

SENTENCE = "The deploy goes out at night, after the backups, unless the on-call says otherwise. "
LONG = (SENTENCE * 13)[:1000]


@pytest.fixture
def store(transactional_db):
    doors.write("long-one", description=LONG, priority=0, tags=[f"tag-{n}" for n in range(14)])
    for number in range(60):
        doors.write(f"note-{number:02d}", description=f"note {number}", priority=5)


def row(page, name: str):
    return page.locator(f"tbody.memory-row:has(th.col-name a:text-is('{name}'))")


@pytest.mark.parametrize(("width", "bound"), [(1280, 130), (390, 560)])
def test_a_long_description_is_held_to_a_few_lines(sign_in, store, width, bound):
    page = sign_in("operator", width=width)
    long_row = row(page, "long-one")
    held = long_row.bounding_box()["height"]
    assert held < bound, held
    description = long_row.locator("td.col-description")
    description.locator("button.clamp-toggle", has_text="more").click()
    expect(description.locator("button.clamp-toggle")).to_have_text("less")
    assert long_row.bounding_box()["height"] > held + 100
    description.locator("button.clamp-toggle").click()
    expect(description.locator("button.clamp-toggle")).to_have_attribute("aria-expanded", "false")
    assert long_row.bounding_box()["height"] == pytest.approx(held, abs=1)
    # A short one has nothing more to show.
    assert row(page, "note-01").locator("button.clamp-toggle").count() == 0
    # The row drawn again after an inline edit is held as well.
    box = long_row.locator("input[name=priority]")
    box.fill("1")
    box.press("Enter")
    row(page, "long-one").locator("input[name=priority][value='1']").wait_for()
    expect(row(page, "long-one").locator("td.col-description button.clamp-toggle")).to_have_text(
        "more"
    )
    assert row(page, "long-one").bounding_box()["height"] < bound


@pytest.mark.parametrize("width", [1280, 390])
def test_the_bulk_bar_follows_the_selection_down_the_page(sign_in, store, width):
    page = sign_in("operator", width=width)
    count = page.locator("#bulk [data-bulk-count]")
    for name in ("note-59", "note-30"):
        row(page, name).locator("input[name=id]").check()
    expect(count).to_have_text("2 selected")
    page.locator("tbody.memory-row").last.scroll_into_view_if_needed()
    assert 0 <= page.locator("#bulk").bounding_box()["y"] <= 2
    page.locator("tbody.memory-row").last.locator("input[name=id]").check()
    expect(count).to_have_text("3 selected")
    page.check("#bulk input[name=scope][value=matching]")
    expect(count).to_have_text("every match")


def test_a_hidden_column_stays_hidden(sign_in, store, live_server):
    page = sign_in("auditor")
    tags = page.locator("thead th[data-col=tags]")
    expect(tags).to_be_visible()
    page.click(".columns-menu summary")
    with page.expect_response(re.compile(r"/memories/_columns/$")) as saved:
        page.uncheck(".columns-menu input[value=tags]")
    assert saved.value.status == 204
    expect(tags).to_be_hidden()
    expect(row(page, "long-one").locator("td[data-col=tags]")).to_be_hidden()
    page.reload()
    expect(page.locator("thead th[data-col=tags]")).to_be_hidden()
    expect(page.locator(".columns-menu summary")).to_have_text("Columns (1 hidden)")
    # Shown again from the menu, as it was.
    page.click(".columns-menu summary")
    page.check(".columns-menu input[value=tags]")
    expect(page.locator("thead th[data-col=tags]")).to_be_visible()


def test_numbered_pages(sign_in, store, live_server):
    page = sign_in("auditor", width=390)
    page.get_by_label("Page 2").click()
    page.wait_for_url(re.compile(r"/memories/\?offset=50$"))
    expect(page.locator(".pager-numbers [aria-current=page]")).to_have_text("2")
    assert row(page, "note-00").count() == 1
    page.locator("a[rel=prev]").click()
    page.wait_for_url(re.compile(r"before="))
    expect(page.locator(".pager-numbers [aria-current=page]")).to_have_text("1")
