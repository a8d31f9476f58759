"""The accounts page in Chromium: an admin creates an account with no console error (the
sign_in fixture fails a test on any; issue 41 saw a CSP violation there)."""

import pytest
from django.contrib.auth.models import User

pytestmark = pytest.mark.browser


def test_an_admin_creates_an_account(sign_in, live_server):
    page = sign_in("admin")
    page.goto(live_server.url + "/accounts/")
    page.fill("#account-username", "newcomer")
    page.fill("#account-password", "a long enough password 42")
    page.select_option("#account-role", "auditor")
    with page.expect_response(lambda r: r.request.method == "POST"):
        page.get_by_role("button", name="Make the account").click()
    page.locator("#accounts").get_by_text("newcomer").first.wait_for()
    assert User.objects.get(username="newcomer").groups.get().name == "auditor"
    assert page.errors == []
