import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from memadmin.accounts import roles

PASSWORD = "a long enough password"


def make_user(username: str, role: str | None) -> User:
    user = User.objects.create_user(username, password=PASSWORD)
    if role:
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def signed_in(user: User, **client_options) -> Client:
    client = Client(**client_options)
    client.force_login(user)
    return client


@pytest.fixture
def auditor(db):
    return signed_in(make_user("alice", roles.AUDITOR))


@pytest.fixture
def operator(db):
    return signed_in(make_user("bob", roles.OPERATOR))


@pytest.fixture
def admin(db):
    return signed_in(make_user("carol", roles.ADMIN))


@pytest.fixture
def roleless(db):
    return signed_in(make_user("dave", None))


@pytest.fixture
def htmx():
    """Headers of a request htmx sends."""
    return {"HTTP_HX_REQUEST": "true"}


def chrome_free(html: str) -> bool:
    """A fragment carries none of the page's chrome."""
    return all(marker not in html for marker in ("<html", "<head", "site-header", "site-nav"))


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
