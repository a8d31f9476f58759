import pytest
from django.contrib.auth.models import Group, User

from memadmin.accounts import roles
from memories.models import Revision


@pytest.fixture
def operator(db):
    user = User.objects.create_user("olga", password="pw-olga-123")
    user.groups.add(Group.objects.get(name=roles.OPERATOR))
    return user


@pytest.fixture
def revisions(db):
    """The revisions recorded since the test began, oldest first."""

    def _revisions(**filters):
        return list(Revision.objects.filter(**filters).order_by("id"))

    return _revisions


def state_without_updated_at(memory) -> dict:
    from memories.writes import history

    state = history.snapshot(memory)
    state.pop("updated_at")
    return state


@pytest.fixture
def signed_in(db, settings):
    """A test client signed in as a new user of `role` (None: a user with no role)."""
    from django.test import Client

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    made = []

    def _signed_in(role: str | None, username: str | None = None) -> Client:
        user = User.objects.create_user(username or f"{role or 'nobody'}-{len(made)}")
        if role:
            user.groups.add(Group.objects.get(name=role))
        made.append(user)
        client = Client()
        client.force_login(user)
        client.user = user
        return client

    return _signed_in
