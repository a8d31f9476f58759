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
    with page.expect_response(lambda r: r.request.method == "POST"):
        page.locator("form.token-form button[type=submit]").click()
    user = User.objects.get(username="newcomer")
    role = page.locator(f"#role-{user.id}")
    role.wait_for()  # the table drawn again with the new row, settled
    page.wait_for_function("() => !document.querySelector('.htmx-settling, .htmx-swapping')")
    with page.expect_response(lambda r: r.request.method == "POST" and f"/{user.id}/" in r.url):
        role.select_option("operator")
    assert user.groups.get().name == "operator"
    assert page.errors == []
