"""A lead following a superseded note to its successor in Chromium: the search marks the stale
fact, its page names what superseded it, and the successor's page links back."""

import pytest

from memories.writes import doors

pytestmark = pytest.mark.browser


def test_a_lead_follows_a_superseded_note_to_its_successor(sign_in, live_server, transactional_db):
    doors.write("db-host", description="The database host is db-1.internal", priority=0)
    doors.write(
        "db-host-2",
        description="The database host is db-2.internal",
        priority=4,
        supersedes="db-host",
    )
    page = sign_in("auditor")
    page.goto(live_server.url + "/memories/?q=database+host&mode=words")
    rows = page.locator("tbody.memory-row th.col-name > a:not(.badge)")
    assert rows.all_inner_texts()[:2] == ["db-host-2", "db-host"]
    page.get_by_role("link", name="db-host", exact=True).click()
    page.wait_for_selector("#supersession")
    assert page.inner_text("#supersession .superseded").startswith("Superseded by db-host-2")
    page.click("#successor")
    page.wait_for_url(live_server.url + "/memories/db-host-2/?project=")
    assert page.inner_text("h1") == "db-host-2"
    assert page.locator("#replaces a").all_inner_texts() == ["db-host"]
    assert not page.errors
