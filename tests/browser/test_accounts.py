"""The accounts page in Chromium: an admin creates an account and changes its role with no
console error (the sign_in fixture fails a test on any)."""

import pytest
from django.contrib.auth.models import User

pytestmark = pytest.mark.browser


def test_an_admin_creates_an_account_and_changes_its_role(sign_in, live_server):
    page = sign_in("admin")
    page.goto(live_server.url + "/accounts/")
    page.fill("#account-username", "newcomer")
    page.fill("#account-password", "a long enough password 42")
    page.select_option("#account-role", "auditor")
    page.locator("form.token-form button[type=submit]").click()
    page.get_by_text("newcomer").first.wait_for()
    user = User.objects.get(username="newcomer")
    page.select_option(f"#role-{user.id}", "operator")
    page.wait_for_function(f"document.querySelector('#role-{user.id}').value === 'operator'")
    page.wait_for_load_state("networkidle")
    assert user.groups.get().name == "operator"
    assert page.errors == []
