import pytest
from django.contrib.auth.models import Group, User
from django.test import Client


@pytest.fixture
def signed_in(db):
    """A test client signed in as a new user of `role` (None: a user with no role)."""
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
