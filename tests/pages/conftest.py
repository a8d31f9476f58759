import pytest
from django.contrib.auth.models import User
from django.test import Client

from memadmin.accounts import roles
from tests.conftest import make_user


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
