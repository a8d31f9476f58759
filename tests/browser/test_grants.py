"""Grants in Chromium: an admin grants an operator one project on the accounts page, and
that operator's list, facets, overview and graph hold that project's tier and the global
tier a session on it reads, and nothing of the project they hold no grant on."""

import pytest

from memadmin.accounts import grants
from memories.writes import doors
from projects import writes as project_doors
from tests.browser.conftest import ARTIFACTS
from tests.conftest import PASSWORD, make_user

pytestmark = pytest.mark.browser

VAULT_WORDS = ("vault", "v-secret", "VAULTMARK")


def _signed_in_as(chromium, live_server, username: str):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.goto(live_server.url + "/memories/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(live_server.url + "/memories/")
    return context, page


def _shows_no_vault(text: str) -> None:
    assert not [word for word in VAULT_WORDS if word in text], text


def test_an_operator_granted_one_project_sees_that_tier_and_the_global_one(
    sign_in, chromium, live_server
):
    project_doors.add("webdev")
    project_doors.add("vault")
    doors.write("g-rule", description="global rule", body="the global body")
    doors.write("w-page", project="webdev", description="web page", references=["g-rule"])
    doors.write("v-secret", project="vault", description="vault secret", body="VAULTMARK")
    doors.write("v-other", project="vault", description="cites", references=["g-rule"])
    otto = make_user("otto", None)

    admin = sign_in("admin")
    admin.goto(live_server.url + "/accounts/")
    admin.select_option(f"#grant-role-{otto.id}", "operator")
    admin.select_option(f"#grant-tier-{otto.id}", "webdev")
    with admin.expect_response(lambda r: r.request.method == "POST"):
        admin.get_by_role("button", name="Grant otto the role on the tier").click()
    admin.locator("#accounts .grant-list li").filter(
        has_text="operator on project 'webdev'"
    ).wait_for()
    assert grants.holdings_of(otto)[0].words == "operator on project 'webdev'"
    ARTIFACTS.mkdir(exist_ok=True)
    admin.screenshot(path=ARTIFACTS / "grants-accounts.png", full_page=True)

    context, page = _signed_in_as(chromium, live_server, "otto")
    try:
        rows = page.locator("#results tbody th.col-name").all_inner_texts()
        assert sorted(rows) == ["g-rule", "w-page"]
        page.locator("#facets-heading").wait_for()  # the counts arrive when revealed
        facets = page.locator("#facets").inner_text()
        assert "webdev" in facets and "global" in facets
        _shows_no_vault(page.locator("body").inner_text())
        assert page.locator("#f-project option").all_inner_texts() == [
            "every tier",
            "global",
            "webdev",
        ]

        page.goto(live_server.url + "/")
        overview = page.locator("main").inner_text()
        assert "2 memories in 2 tiers" in overview
        _shows_no_vault(overview)

        page.goto(live_server.url + "/graph/")
        data = page.request.get(live_server.url + "/graph/data/").json()
        memories = sorted(n["label"] for n in data["nodes"] if n["kind"] == "memory")
        assert memories == ["g-rule", "w-page"]
        outside = [n for n in data["nodes"] if n["kind"] == "outside"]
        assert [n["label"] for n in outside] == ["outside your reach"]  # v-other, unnamed
        _shows_no_vault(str(data) + page.locator("body").inner_text())
        page.screenshot(path=ARTIFACTS / "grants-graph.png", full_page=True)

        page.goto(live_server.url + "/memories/v-secret/?project=vault")
        assert "There is no project named 'vault'." in page.locator("main").inner_text()
    finally:
        context.close()
