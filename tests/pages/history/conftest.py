import pytest
from django.test import Client

from tests.conftest import make_user


@pytest.fixture
def signed_in(db):
    """A test client signed in as a new user of `role` (None: a user with no role). The
    role's group is made when missing: a transactional test's flush on the same worker
    empties the groups the migrations made."""
    made = []

    def _signed_in(role: str | None, username: str | None = None) -> Client:
        user = make_user(username or f"{role or 'nobody'}-{len(made)}", role)
        made.append(user)
        client = Client()
        client.force_login(user)
        client.user = user
        return client

    return _signed_in
