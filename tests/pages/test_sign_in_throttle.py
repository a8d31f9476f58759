"""Failed sign-ins are throttled per account and per address; an admin unlocks either."""

import pytest
from django.conf import settings
from django.test import Client

from memadmin.accounts import roles
from tests.conftest import PASSWORD, make_user

LOCKED = "Too many failed sign-ins for this account or from this address"


def _sign_in(username, password, address="10.0.0.1"):
    return Client(REMOTE_ADDR=address).post(
        "/sign-in/", {"username": username, "password": password}
    )


def _fail(username, times, address="10.0.0.1"):
    return [_sign_in(username, "wrong guess", address).status_code for _ in range(times)]


@pytest.fixture
def frank(db):
    return make_user("frank", roles.AUDITOR)


def test_an_account_is_locked_after_the_limit_even_with_the_right_password(frank):
    limit = settings.AXES_FAILURE_LIMIT
    assert _fail("frank", limit - 1) == [200] * (limit - 1)
    locking = _sign_in("frank", "wrong guess")
    assert locking.status_code == 429
    assert LOCKED in locking.content.decode()
    for address in ("10.0.0.1", "10.9.9.9"):  # the account, from any address
        refused = _sign_in("frank", PASSWORD, address)
        assert refused.status_code == 429, address
        assert LOCKED in refused.content.decode()
        assert "_auth_user_id" not in refused.wsgi_request.session


def test_an_address_is_locked_after_the_limit_whatever_the_account(frank):
    make_user("gina", roles.AUDITOR)
    limit = settings.AXES_FAILURE_LIMIT
    for number in range(limit):
        _sign_in(f"guess-{number}", "wrong guess", "10.0.0.7")
    assert _sign_in("gina", PASSWORD, "10.0.0.7").status_code == 429
    assert _sign_in("gina", PASSWORD, "10.0.0.8").status_code == 302  # not from elsewhere


def test_a_sign_in_before_the_limit_is_accepted(frank):
    _fail("frank", settings.AXES_FAILURE_LIMIT - 1)
    assert _sign_in("frank", PASSWORD).status_code == 302


def test_signing_in_to_ones_own_account_does_not_clear_the_guesses_at_another(frank):
    make_user("mallory", roles.AUDITOR)
    limit = settings.AXES_FAILURE_LIMIT
    _fail("frank", limit - 1, "10.0.0.5")
    assert _sign_in("mallory", PASSWORD, "10.0.0.5").status_code == 302
    assert _sign_in("frank", "wrong guess", "10.0.0.6").status_code == 429


def test_an_admin_sees_the_locks_and_unlocks_an_account(frank, admin, htmx):
    _fail("frank", settings.AXES_FAILURE_LIMIT)
    page = admin.get("/accounts/").content.decode()
    assert "Locked sign-ins" in page and "<code>frank</code>" in page
    assert "<code>10.0.0.1</code>" in page
    unlocked = admin.post("/accounts/unlock/", {"kind": "account", "value": "frank"}, **htmx)
    assert unlocked.status_code == 200
    assert "The account &#x27;frank&#x27; may sign in again." in unlocked.content.decode()
    assert "<code>frank</code>" not in unlocked.content.decode()
    assert _sign_in("frank", PASSWORD, "10.0.0.2").status_code == 302


def test_an_admin_unlocks_an_address(frank, admin):
    for number in range(settings.AXES_FAILURE_LIMIT):
        _sign_in(f"guess-{number}", "wrong guess", "10.0.0.7")
    assert _sign_in("frank", PASSWORD, "10.0.0.7").status_code == 429
    assert (
        admin.post("/accounts/unlock/", {"kind": "address", "value": "10.0.0.7"}).status_code == 302
    )
    assert _sign_in("frank", PASSWORD, "10.0.0.7").status_code == 302


def test_only_admins_unlock(frank, operator):
    _fail("frank", settings.AXES_FAILURE_LIMIT)
    assert (
        operator.post("/accounts/unlock/", {"kind": "account", "value": "frank"}).status_code == 403
    )
    assert _sign_in("frank", PASSWORD, "10.0.0.2").status_code == 429


def test_an_unlock_names_what_it_unlocks(admin, htmx):
    response = admin.post("/accounts/unlock/", {"kind": "everyone", "value": "x"}, **htmx)
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()


def test_behind_a_trusted_proxy_the_forwarded_address_counts(frank, settings):
    settings.MEMADMIN_TRUSTED_PROXIES = ["127.0.0.1"]
    for _ in range(settings.AXES_FAILURE_LIMIT):
        Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9").post(
            "/sign-in/", {"username": "nobody", "password": "wrong guess"}
        )
    via_proxy = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.4")
    assert (
        via_proxy.post("/sign-in/", {"username": "frank", "password": PASSWORD}).status_code == 302
    )
