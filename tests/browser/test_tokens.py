"""The API tokens page in Chromium: a token paused, resumed and rotated by its row's buttons,
and what /v1 answers its secrets meanwhile; a token limited to the tiers ticked."""

import pytest
from django.contrib.auth.models import User
from django.test import Client

from memadmin.accounts import grants, roles
from memadmin.models import ApiToken
from memories.writes import doors
from projects import writes as project_doors
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


def test_an_operator_of_one_project_makes_a_token_for_that_project(sign_in, live_server):
    project_doors.add("webdev")
    project_doors.add("vault")
    doors.write("g-note", description="global note")
    doors.write("w-note", project="webdev", description="web note")
    doors.write("v-note", project="vault", description="vault note")
    page = sign_in("operator", username="otto")
    otto = User.objects.get(username="otto")
    # Grants changed while the session is open take effect on its next request.
    grants.revoke(None, otto, grants.WHOLE_STORE)
    grants.grant(None, otto, roles.OPERATOR, "webdev")

    page.goto(live_server.url + "/tokens/")
    picker = page.get_by_role("group", name="Tiers")
    assert picker.get_by_role("checkbox").count() == 2  # the global tier and webdev: no vault
    assert "vault" not in page.locator("main").inner_text()
    page.fill("#token-label", "web bot")
    page.get_by_label("write: also writes").check()
    picker.get_by_label("webdev").check()
    page.get_by_role("button", name="Create token").click()
    secret = page.locator("#new-token").inner_text()
    token = ApiToken.objects.get()
    assert grants.token_places(token) == ["webdev"]
    row = page.locator(f"tr[data-token='{token.id}']")
    assert row.locator("[data-label=Tiers]").inner_text() == "webdev"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "tokens-tiers.png"), full_page=True)

    api = Client(HTTP_AUTHORIZATION=f"Bearer {secret}")
    listed = sorted(m["name"] for m in api.get("/v1/memories").json()["memories"])
    assert listed == ["g-note", "w-note"]
    assert api.get("/v1/memories/v-note?project=vault").status_code == 404
    assert page.errors == [] and page.console_errors == []
