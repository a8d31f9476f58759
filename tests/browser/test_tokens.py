"""The API tokens page in Chromium: a token paused, resumed and rotated by its row's buttons,
and what /v1 answers its secrets meanwhile."""

import pytest
from django.test import Client

from memadmin.models import ApiToken
from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.browser


def _status(secret: str) -> int:
    return Client().get("/v1/projects", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code


def test_pause_resume_and_rotate_a_token_on_the_page(sign_in, live_server):
    page = sign_in("operator")
    page.goto(live_server.url + "/tokens/")
    page.fill("#token-label", "deploy bot")
    page.fill("#token-expires", "2099-06-30")
    page.get_by_role("button", name="Create token").click()
    secret = page.locator("#new-token").inner_text()
    token = ApiToken.objects.get()
    row = page.locator(f"tr[data-token='{token.id}']")
    assert "2099-07-01" in row.locator("[data-label=Expires]").inner_text()
    assert _status(secret) == 200

    row.get_by_role("button", name=f"Pause {token.prefix}…").click()
    row.get_by_role("button", name=f"Resume {token.prefix}…").wait_for()
    assert "is paused: calls with it are refused" in page.locator("[role=status]").inner_text()
    assert row.locator(".token-state").inner_text().startswith("paused")
    assert _status(secret) == 401

    row.get_by_role("button", name=f"Resume {token.prefix}…").click()
    row.get_by_role("button", name=f"Pause {token.prefix}…").wait_for()
    assert page.locator("[role=status]").inner_text().endswith("is resumed.")
    assert row.locator(".token-state").inner_text() == "live"
    assert _status(secret) == 200

    row.get_by_role("button", name=f"Rotate {token.prefix}…").click()
    page.get_by_text("The old secret is still accepted until").wait_for()
    new = page.locator("#new-token").inner_text()
    assert new != secret
    token.refresh_from_db()
    assert token.prefix == new[:12]
    state = page.locator(f"tr[data-token='{token.id}'] .token-state").inner_text()
    assert "old secret until" in state
    assert _status(new) == 200 and _status(secret) == 200  # the old one, in its grace
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "tokens-rotated.png"), full_page=True)
    assert page.errors == []
