"""Every page fits 1280 and 390 px wide without sideways scrolling, and works by keyboard.

Screenshots land in test-artifacts/ for a person to look at.
"""

import pytest

from memories.writes import doors
from projects import writes as project_doors
from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

PAGES = {
    "overview": "/",
    "list": "/memories/",
    "detail": "/memories/a-rather-long-memory-name-about-deploys/?project=webdev",
    "tier": "/memories/_agent/?project=webdev",
    "projects": "/projects/",
}


@pytest.fixture
def store(transactional_db):
    project_doors.add("webdev")
    for number in range(12):
        doors.write(
            f"note-{number:02d}",
            project="webdev" if number % 2 else None,
            description=f"A description of note {number} that runs on for a while, as they do",
            tags=["infra", "people", "a-long-tag-name"],
            references=["a-rather-long-memory-name-about-deploys", "docs/runbook.md"],
            priority=number % 4,
        )
    doors.write(
        "a-rather-long-memory-name-about-deploys",
        project="webdev",
        description="Deploys go to host-7 via the bastion; never on Fridays",
        body="# Deploys\n\n" + "A long line of the body without any break in it. " * 30,
        references=["https://wiki.example.com/ops/deploy/a/very/long/path/to/a/page"],
        load="inline",
    )


@pytest.mark.parametrize("width", [1280, 390])
def test_pages_fit_the_width(sign_in, store, live_server, width):
    page = sign_in(width=width)
    ARTIFACTS.mkdir(exist_ok=True)
    for name, path in PAGES.items():
        page.goto(live_server.url + path)
        page.screenshot(path=str(ARTIFACTS / f"{name}-{width}.png"), full_page=True)
        overflow = page.evaluate("document.documentElement.scrollWidth")
        assert overflow <= width, f"{name} is {overflow}px wide at {width}px"
    assert not page.errors


def test_the_list_works_from_the_keyboard(sign_in, store):
    doors.write("lapsed", description="lapsed", expires="2001-01-01")
    page = sign_in()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    page.focus("#f-expired")
    page.keyboard.press("ArrowDown")  # a select changes with the arrow keys
    page.wait_for_url("**/memories/?expired=true")
    page.wait_for_selector("text=1 memory expired")
    assert page.locator("tbody.memory-row th.col-name a").all_inner_texts() == ["lapsed"]
