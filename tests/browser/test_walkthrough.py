"""What going through the dashboard as each role turned up, kept fixed."""

import pytest

from memories.writes import doors

pytestmark = pytest.mark.browser


def test_the_agents_text_scrolls_in_place(sign_in, live_server, transactional_db):
    for number in range(8):
        doors.write(
            f"rule-{number}", description=f"rule {number}", load="inline", body="A line.\n" * 300
        )
    page = sign_in("auditor")
    page.goto(live_server.url + "/memories/_agent/?project=")
    text = page.locator("#agent-text")
    assert text.evaluate("(e) => e.scrollHeight > e.clientHeight")
    assert page.evaluate("document.documentElement.scrollHeight") < 3000
    text.focus()
    page.keyboard.press("End")
    page.wait_for_function("() => document.getElementById('agent-text').scrollTop > 0")
