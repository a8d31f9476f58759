import datetime as dt

import pytest
from django.utils import timezone

from memadmin.accounts import roles, tokens
from memories.models import Memory
from tests.api.conftest import Api
from tests.pages.conftest import (  # noqa: F401  (fixtures shared with the pages' suite)
    auditor,
    htmx,
    make_user,
    operator,
    roleless,
)


@pytest.fixture
def expire(db):
    """Put a memory's expiry in the past, past the doors (as time passing would)."""

    def _expire(memory: Memory) -> Memory:
        Memory.objects.filter(id=memory.id).update(expires_at=timezone.now() - dt.timedelta(days=1))
        memory.refresh_from_db()
        return memory

    return _expire


@pytest.fixture
def reads(db):
    """Set a memory's read count, as the agent's reads would have."""

    def _reads(memory: Memory, count: int) -> Memory:
        Memory.objects.filter(id=memory.id).update(read_count=count)
        memory.refresh_from_db()
        return memory

    return _reads


# Clients of the API (bearer tokens), made the way the API's own suite makes them; the pages'
# clients (one per role) are the pages' suite's own fixtures, imported above.
@pytest.fixture
def read_api(db):
    user = make_user("audrey", roles.AUDITOR)
    return Api(tokens.create_token(user, "read")[1])


@pytest.fixture
def anonymous_api(db):
    return Api(None)


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# The browser tests run on the browser suite's fixtures: its Chromium, its live server on
# 127.0.0.1 (a free port, or MEMADMIN_TEST_PORT's), its sign-in.
from tests.browser.conftest import chromium, live_server, sign_in  # noqa: E402, F401
