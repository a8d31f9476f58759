"""Admins manage accounts: make one with a role, change a role, turn one off and on."""

import pytest
from django.contrib.auth.models import User
from django.test import Client

from memadmin.accounts import roles
from tests.conftest import make_user
from tests.pages.conftest import chrome_free


def test_only_admins_see_or_change_accounts(auditor, operator, admin, db):
    for client in (auditor, operator):
        assert client.get("/accounts/").status_code == 403
        assert client.post("/accounts/", {"username": "x", "password": "p" * 12}).status_code == 403
    assert 'href="/accounts/"' not in operator.get("/").content.decode()
    html = admin.get("/accounts/").content.decode()
    assert 'href="/accounts/"' in html and "alice" in html and "bob" in html


def test_make_an_account_that_can_sign_in(admin, db, htmx):
    response = admin.post(
        "/accounts/",
        {"username": "erin", "password": "a long enough password", "role": "operator"},
        **htmx,
    )
    assert response.status_code == 200 and chrome_free(response.content.decode())
    assert "Made the account &#x27;erin&#x27;." in response.content.decode()
    erin = User.objects.get(username="erin")
    assert roles.role_of(erin) == roles.OPERATOR
    client = Client()
    assert client.post("/sign-in/", {"username": "erin", "password": GOOD}).status_code == 302


GOOD = "a long enough password"


@pytest.mark.parametrize(
    ("username", "password", "role", "status", "message"),
    [
        ("erin", "short", "auditor", 400, "too short"),
        ("erin", "password123", "auditor", 400, "too common"),
        ("", GOOD, "auditor", 400, "required"),
        ("a b", GOOD, "auditor", 400, "valid username"),
        ("erin", GOOD, "root", 400, "auditor, operator or admin"),
        ("alice", GOOD, "auditor", 409, "already an account"),
    ],
)
def test_bad_accounts_are_refused_in_place(
    admin, auditor, db, username, password, role, status, message
):
    response = admin.post("/accounts/", {"username": username, "password": password, "role": role})
    assert response.status_code == status and message in response.content.decode()
    assert not User.objects.filter(username="erin").exists()
    assert f'value="{username}"' in response.content.decode()  # what was typed stays


def test_change_a_role_and_turn_an_account_off_and_on(admin, db, htmx):
    dave = make_user("dave-auditor", roles.AUDITOR)
    admin.post(f"/accounts/{dave.id}/", {"role": "operator"}, **htmx)
    dave.refresh_from_db()
    assert roles.role_of(dave) == roles.OPERATOR
    signed_in = Client()
    signed_in.force_login(dave)
    assert '<span class="account-state">on</span>' in admin.get("/accounts/").content.decode()
    response = admin.post(f"/accounts/{dave.id}/", {"active": "false"}, **htmx)
    assert "is turned off" in response.content.decode()
    # Each row says its state, beside the button that changes it.
    assert (
        '<span class="account-state">off: cannot sign in or use its tokens</span>'
        in response.content.decode()
    )
    assert signed_in.get("/memories/").status_code == 302  # signed out by it
    admin.post(f"/accounts/{dave.id}/", {"active": "true"}, **htmx)
    dave.refresh_from_db()
    assert dave.is_active and roles.role_of(dave) == roles.OPERATOR


def test_an_admin_cannot_change_their_own_account(admin, db, htmx):
    me = User.objects.get(username="carol")
    for data in ({"role": "auditor"}, {"active": "false"}):
        response = admin.post(f"/accounts/{me.id}/", data, **htmx)
        assert response.status_code == 409
        assert "You cannot change your own account here" in response.content.decode()
    me.refresh_from_db()
    assert me.is_active and roles.role_of(me) == roles.ADMIN


def test_a_superuser_stays_an_admin(admin, db):
    root = User.objects.create_superuser("root", password="a long enough password")
    response = admin.post(f"/accounts/{root.id}/", {"role": "auditor"})
    assert response.status_code == 409 and "is a superuser" in response.content.decode()


def test_an_unknown_account(admin, db):
    assert admin.post("/accounts/999999/", {"role": "auditor"}).status_code == 404


def test_a_fixed_number_of_queries(admin, db, django_assert_num_queries):
    for number in range(6):
        make_user(f"user{number}", roles.AUDITOR)
    with django_assert_num_queries(11):
        # 5, the grants, the projects, the locked pairs, accounts and addresses, the groups' roles
        admin.get("/accounts/")


def test_every_field_refused_at_once_under_its_input(admin, db):
    response = admin.post("/accounts/", {"username": "", "password": "short", "role": "root"})
    html = response.content.decode()
    assert response.status_code == 400
    assert html.count('<div class="field has-error">') == 3
    for message in ("A username is required.", "too short", "auditor, operator or admin"):
        assert message in html
    assert 'class="form-errors"' not in html


def test_a_taken_name_is_refused_at_the_username(admin, auditor, db):
    html = admin.post("/accounts/", {"username": "alice", "password": GOOD, "role": "admin"})
    username = html.content.decode().split('<div class="field has-error">', 1)[1]
    assert "There is already an account named &#x27;alice&#x27;." in username.split("</div>")[0]
    assert '<option value="admin" selected>' in html.content.decode()  # the role stays chosen
