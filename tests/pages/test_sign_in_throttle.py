"""Failed sign-ins lock an account from one address at the limit, and an address alone or an
account alone only at the much higher wide limit; an admin unlocks any of them."""

import pytest
from django.conf import settings
from django.test import Client

from memadmin.accounts import roles
from tests.conftest import PASSWORD, make_user

LOCKED = "Too many failed sign-ins for this account from this address"


def _sign_in(username, password, address="10.0.0.1"):
    return Client(REMOTE_ADDR=address).post(
        "/sign-in/", {"username": username, "password": password}
    )


def _fail(username, times, address="10.0.0.1"):
    return [_sign_in(username, "wrong guess", address).status_code for _ in range(times)]


@pytest.fixture
def frank(db):
    return make_user("frank", roles.AUDITOR)


@pytest.fixture
def wide_limit(settings):
    """A lower wide limit, so a test reaches it in a few dozen sign-ins."""
    settings.MEMADMIN_SIGN_IN_WIDE_FAILURES = 2 * settings.AXES_FAILURE_LIMIT
    return settings.MEMADMIN_SIGN_IN_WIDE_FAILURES


def test_the_defaults_are_ten_for_a_pair_and_a_hundred_alone():
    assert settings.AXES_FAILURE_LIMIT == 10
    assert settings.MEMADMIN_SIGN_IN_WIDE_FAILURES == 100


def test_an_account_is_locked_from_one_address_after_the_limit_even_with_the_right_password(frank):
    limit = settings.AXES_FAILURE_LIMIT
    assert _fail("frank", limit - 1) == [200] * (limit - 1)
    locking = _sign_in("frank", "wrong guess")
    assert locking.status_code == 429
    assert LOCKED in locking.content.decode()
    refused = _sign_in("frank", PASSWORD)
    assert refused.status_code == 429
    assert LOCKED in refused.content.decode()
    assert "_auth_user_id" not in refused.wsgi_request.session
    assert _sign_in("frank", PASSWORD, "10.9.9.9").status_code == 302  # from elsewhere


def test_thirty_failures_for_one_account_do_not_lock_another_from_the_same_address(frank):
    make_user("gina", roles.AUDITOR)
    statuses = _fail("frank", 30, "127.0.0.1")
    assert statuses[-1] == 429  # frank is locked there
    assert _sign_in("gina", PASSWORD, "127.0.0.1").status_code == 302


def test_an_address_alone_is_locked_at_the_wide_limit_whatever_the_account(frank, wide_limit):
    make_user("gina", roles.AUDITOR)
    for number in range(wide_limit - 1):
        _sign_in(f"guess-{number}", "wrong guess", "10.0.0.7")
    assert _sign_in("gina", PASSWORD, "10.0.0.7").status_code == 302  # one short of it
    _sign_in("guess-last", "wrong guess", "10.0.0.7")
    assert _sign_in("gina", PASSWORD, "10.0.0.7").status_code == 429
    assert _sign_in("gina", PASSWORD, "10.0.0.8").status_code == 302  # not from elsewhere


def test_an_account_alone_is_locked_at_the_wide_limit_from_every_address(frank, wide_limit):
    for number in range(wide_limit):
        _sign_in("frank", "wrong guess", f"10.0.1.{number}")
    assert _sign_in("frank", PASSWORD, "10.0.2.1").status_code == 429
    make_user("gina", roles.AUDITOR)
    assert _sign_in("gina", PASSWORD, "10.0.1.1").status_code == 302


def test_a_sign_in_before_the_limit_is_accepted(frank):
    _fail("frank", settings.AXES_FAILURE_LIMIT - 1)
    assert _sign_in("frank", PASSWORD).status_code == 302


def test_signing_in_to_ones_own_account_does_not_clear_the_guesses_at_another(frank):
    make_user("mallory", roles.AUDITOR)
    limit = settings.AXES_FAILURE_LIMIT
    _fail("frank", limit - 1, "10.0.0.5")
    assert _sign_in("mallory", PASSWORD, "10.0.0.5").status_code == 302
    assert _sign_in("frank", "wrong guess", "10.0.0.5").status_code == 429


def test_an_admin_sees_the_locks_and_unlocks_an_account_from_an_address(frank, admin, htmx):
    _fail("frank", settings.AXES_FAILURE_LIMIT)
    page = admin.get("/accounts/").content.decode()
    assert "Locked sign-ins" in page
    assert "account <code>frank</code> from address <code>10.0.0.1</code>" in page
    unlocked = admin.post(
        "/accounts/unlock/",
        {"kind": "pair", "username": "frank", "address": "10.0.0.1"},
        **htmx,
    )
    assert unlocked.status_code == 200
    html = unlocked.content.decode()
    assert "The account &#x27;frank&#x27; from 10.0.0.1 may sign in again." in html
    assert "<code>frank</code>" not in html
    assert _sign_in("frank", PASSWORD, "10.0.0.1").status_code == 302


def test_an_admin_unlocks_an_address(frank, admin, wide_limit):
    for number in range(wide_limit):
        _sign_in(f"guess-{number}", "wrong guess", "10.0.0.7")
    assert _sign_in("frank", PASSWORD, "10.0.0.7").status_code == 429
    assert "address <code>10.0.0.7</code>" in admin.get("/accounts/").content.decode()
    assert (
        admin.post("/accounts/unlock/", {"kind": "address", "address": "10.0.0.7"}).status_code
        == 302
    )
    assert _sign_in("frank", PASSWORD, "10.0.0.7").status_code == 302


def test_only_admins_unlock(frank, operator):
    _fail("frank", settings.AXES_FAILURE_LIMIT)
    refused = operator.post(
        "/accounts/unlock/", {"kind": "pair", "username": "frank", "address": "10.0.0.1"}
    )
    assert refused.status_code == 403
    assert _sign_in("frank", PASSWORD, "10.0.0.1").status_code == 429


@pytest.mark.parametrize(
    ("data", "sentence"),
    [
        ({"kind": "everyone", "username": "x"}, "Select a valid choice"),
        ({"kind": "pair", "username": "frank"}, "Say which account or address to unlock."),
        ({"kind": "address", "username": "frank"}, "Say which account or address to unlock."),
    ],
)
def test_an_unlock_names_what_it_unlocks(admin, htmx, data, sentence):
    response = admin.post("/accounts/unlock/", data, **htmx)
    assert response.status_code == 400
    assert sentence in response.content.decode()


def test_behind_a_trusted_proxy_the_forwarded_address_counts(frank, settings):
    settings.MEMADMIN_TRUSTED_PROXIES = ["127.0.0.1"]
    for _ in range(settings.AXES_FAILURE_LIMIT):
        Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9").post(
            "/sign-in/", {"username": "frank", "password": "wrong guess"}
        )
    via_proxy = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.4")
    assert (
        via_proxy.post("/sign-in/", {"username": "frank", "password": PASSWORD}).status_code == 302
    )
    locked = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert locked.post("/sign-in/", {"username": "frank", "password": PASSWORD}).status_code == 429
