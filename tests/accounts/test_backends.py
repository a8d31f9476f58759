"""The sign-in backend: the signed-in user read by one compiled statement, built as the ORM
builds it, and refused as Django's ModelBackend refuses it."""

import datetime as dt

from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memadmin.accounts.backends import ModelBackend
from tests.conftest import PASSWORD, make_user


def test_the_user_is_built_as_the_orm_builds_it(db):
    user = make_user("ada", "operator")
    User.objects.filter(id=user.id).update(
        last_login=timezone.now() - dt.timedelta(days=2), first_name="Ada", is_staff=True
    )
    with CaptureQueriesContext(connection) as queries:
        found = ModelBackend().get_user(user.id)
    assert len(queries) == 1
    expected = User.objects.get(id=user.id)
    for field in User._meta.concrete_fields:
        assert getattr(found, field.attname) == getattr(expected, field.attname), field.name
        assert type(getattr(found, field.attname)) is type(getattr(expected, field.attname))
    assert found.last_login.tzinfo is not None and found.is_staff is True
    assert found.check_password(PASSWORD) and found.get_session_auth_hash()


def test_an_unknown_or_inactive_user_is_no_one(db):
    user = make_user("bea", "auditor")
    assert ModelBackend().get_user(user.id + 1000) is None
    User.objects.filter(id=user.id).update(is_active=False)
    assert ModelBackend().get_user(user.id) is None


def sign_in(client, username: str) -> None:
    """Through the sign-in page, as a person does: the session names this backend."""
    response = client.post("/sign-in/", {"username": username, "password": PASSWORD})
    assert response.status_code == 302
    assert client.session[BACKEND_SESSION_KEY] == "memadmin.accounts.backends.ModelBackend"


def test_a_signed_in_user_deactivated_meanwhile_is_signed_out(client, db):
    user = make_user("cy", "auditor")
    sign_in(client, "cy")
    assert client.get("/memories/").status_code == 200
    User.objects.filter(id=user.id).update(is_active=False)
    assert client.get("/memories/")["Location"].startswith("/sign-in/")


def test_a_changed_password_ends_other_sessions(client, db):
    user = make_user("dee", "auditor")
    sign_in(client, "dee")
    user.set_password("another long passphrase")
    user.save()
    assert client.get("/memories/")["Location"].startswith("/sign-in/")
