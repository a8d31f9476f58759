"""The day of an operator and of a lead, walked in Chromium at 1280 and 390 px: a bulk action
on 200 rows from the bar that stays in view, its undo leaving the row changed since, a single
delete undone from its banner; a hygiene comparison, the graph, one memory as files. No
console error on any page (the sign_in fixture fails the test on one)."""

import json
import re

import pytest
from playwright.sync_api import expect

from memories.models import Memory
from memories.writes import doors
from projects import writes as project_doors
from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

WIDTHS = [1280, 390]


@pytest.fixture
def store(transactional_db):
    project_doors.add("movie")
    project_doors.add("webdev")
    for number in range(200):
        doors.write(
            f"scene-{number:03d}",
            project="movie",
            description=f"Scene {number} is shot on location",
            priority=5,
            references=["scene-000"] if number % 20 == 1 else [],
        )
    doors.write("answer-in-kind", description="Answer in the language the user wrote in",
                priority=13, tags=["style"])  # fmt: skip
    doors.write("answer-in-the-language", project="webdev", priority=15, tags=["style", "tone"],
                description="Answer in the language the user wrote in")  # fmt: skip


def shot(page, name: str) -> None:
    """The window as it is. caret="initial": Playwright hides the caret by giving inputs a
    style attribute, which htmx then copies onto their redrawn selves: a CSP violation of
    the test's own making."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), caret="initial")


def row(page, name: str):
    return page.locator(f"tbody.memory-row:has(th.col-name a:text-is('{name}'))")


def priorities() -> dict[str, int]:
    return dict(Memory.objects.filter(project__name="movie").values_list("name", "priority"))


@pytest.mark.parametrize("width", WIDTHS)
def test_an_operators_day(sign_in, store, live_server, width):
    page = sign_in("operator", width=width)
    # 200 writes through the doors, and their undo, on a machine shared by the whole suite.
    page.set_default_timeout(60_000)
    page.goto(live_server.url + "/memories/?project=movie&limit=200")
    bar = page.locator("#bulk")
    expect(bar.locator("[data-bulk-count]")).to_have_text("0 selected")
    page.check("[data-select-all]")
    expect(bar.locator("[data-bulk-count]")).to_have_text("200 selected")
    # Down at the last row, the bar is still at the top of the window, counting.
    page.locator("tbody.memory-row").last.scroll_into_view_if_needed()
    box = bar.bounding_box()
    assert 0 <= box["y"] <= 2 and box["height"] < 200, box
    shot(page, f"walk-bulk-bar-{width}")
    page.select_option("#bulk-action", "set_priority")
    page.fill("#bulk-priority", "7")
    bar.locator("button[type=submit]").click()
    banner = page.locator("#flash .flash-success", has_text="Set priority 7 on 200 memories.")
    banner.wait_for()
    assert set(priorities().values()) == {7}
    expect(bar.locator("[data-bulk-count]")).to_have_text("0 selected")

    # One row changed since, by hand; the undo of the set leaves it and says so.
    box = row(page, "scene-004").locator("input[name=priority]")
    box.fill("9")
    box.press("Enter")
    row(page, "scene-004").locator("input[name=priority][value='9']").wait_for()
    banner.locator("a.undo-link").click()
    page.wait_for_url(re.compile(r"/history/changes/\d+/#undo-heading$"))
    page.click("button:text('Undo change set')")
    undone = page.locator(".flash-success", has_text="Left as they are now")
    undone.wait_for()
    assert "scene-004" in undone.inner_text()
    assert undone.locator("a[href*='/history/revisions/']").count() == 1
    shot(page, f"walk-undo-skipped-{width}")
    after = priorities()
    assert after.pop("scene-004") == 9 and set(after.values()) == {5}

    # A single delete from the memory's page, undone from its banner.
    page.goto(live_server.url + "/memories/?project=movie")
    page.click("a:text-is('scene-180')")
    page.wait_for_url(re.compile(r"/memories/scene-180/"))
    # Delete… is beside Save, in the form Edit unfolds (htmx loads it: once htmx is ready).
    page.wait_for_function("() => document.readyState === 'complete' && window.htmx")
    page.click("#edit > summary")
    page.click("a:text('Delete…')")
    page.click("button:text('Delete scene-180')")
    page.wait_for_url(re.compile(r"/memories/\?project=movie$"))
    deleted = page.locator("#flash .flash-success", has_text="Deleted 'scene-180'.")
    deleted.wait_for()
    assert not Memory.objects.filter(name="scene-180").exists()
    shot(page, f"walk-deleted-{width}")
    deleted.locator("button:text('Undo')").click()
    page.wait_for_url(re.compile(r"/memories/scene-180/"))
    assert Memory.objects.filter(name="scene-180", project__name="movie").exists()


@pytest.mark.parametrize("width", WIDTHS)
def test_a_leads_audit(sign_in, store, live_server, width, tmp_path):
    page = sign_in("auditor", width=width)
    # The project copy of a global memory, compared side by side: what differs is marked.
    page.goto(live_server.url + "/hygiene/")
    page.locator("a:text-is('compare')").first.click()
    page.wait_for_url(re.compile(r"/hygiene/compare/\?id=\d+&id=\d+$"))
    marked = [text.strip() for text in page.locator("mark.changed").all_inner_texts()]
    assert "priority 13" in marked and "priority 15" in marked and "style, tone" in marked
    shot(page, f"walk-compare-{width}")

    # The graph: the most cited labelled, as the store is first seen.
    page.goto(live_server.url + "/graph/")
    page.wait_for_selector("#graph .graph-canvas[data-graph-state=drawn]")
    labelled = page.locator("#graph .graph-canvas").evaluate(
        "(element) => element.graph.nodes('.labelled').map((node) => node.data('label'))"
    )
    assert "scene-000" in labelled
    shot(page, f"walk-graph-{width}")

    # One memory as files: the Markdown memory export writes, the JSON /v1 answers.
    page.goto(live_server.url + "/memories/scene-000/?project=movie")
    with page.expect_download() as download:
        page.click("a:text-is('Markdown')")
    markdown = download.value
    assert markdown.suggested_filename == "scene-000.md"
    markdown.save_as(tmp_path / "m.md")
    text = (tmp_path / "m.md").read_text()
    assert text.startswith("---\ndescription: Scene 0 is shot on location\nproject: movie\n")
    with page.expect_download() as download:
        page.click("a:text-is('JSON')")
    download.value.save_as(tmp_path / "m.json")
    data = json.loads((tmp_path / "m.json").read_text())
    assert data["name"] == "scene-000" and data["project"] == "movie"
    assert len(data["referenced_by"]) == 10
