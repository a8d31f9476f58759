import json
from urllib.parse import urlencode

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from memadmin.accounts import tokens
from memadmin.accounts.roles import ADMIN, AUDITOR, OPERATOR


def make_user(username: str, role: str | None) -> User:
    user = User.objects.create_user(username)
    if role:
        user.groups.add(Group.objects.get(name=role))
    return user


class Api:
    """A test client speaking JSON with a bearer token; `token=None` sends none."""

    def __init__(self, token: str | None):
        self.client = Client()
        self.token = token

    def __call__(self, method: str, path: str, body=None, *, raw=None, headers=None, **query):
        extra = dict(headers or {})
        if self.token is not None:
            extra["Authorization"] = f"Bearer {self.token}"
        if query:
            path += "?" + urlencode(query, doseq=True)
        data = raw if raw is not None else (None if body is None else json.dumps(body))
        kwargs = {"content_type": "application/json", "headers": extra}
        if data is not None:
            kwargs["data"] = data
        return getattr(self.client, method.lower())(path, **kwargs)

    def get(self, path, **query):
        return self("GET", path, **query)


@pytest.fixture
def auditor(db):
    return make_user("audrey", AUDITOR)


@pytest.fixture
def operator(db):
    return make_user("otto", OPERATOR)


@pytest.fixture
def admin(db):
    return make_user("ada", ADMIN)


@pytest.fixture
def read_api(auditor):
    return Api(tokens.create_token(auditor, "read")[1])


@pytest.fixture
def api(operator):
    """A write token of an operator: what a script that maintains the store holds."""
    return Api(tokens.create_token(operator, "write")[1])


@pytest.fixture
def anonymous(db):
    return Api(None)


@pytest.fixture(autouse=True, scope="session")
def _static_root(django_test_environment):
    """WhiteNoise warns on every new client when collectstatic has not run yet."""
    from django.conf import settings

    settings.STATIC_ROOT.mkdir(parents=True, exist_ok=True)
