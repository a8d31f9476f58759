"""A store held by another writer past the busy timeout never reaches a user as a 500 or as
"database is locked": pages answer 503 with Retry-After and a sentence (/v1's own 503 is
tested in tests/api/test_errors.py)."""

import pytest
from django.contrib.auth.models import Group, User
from django.db import OperationalError
from django.test import Client

from memadmin.accounts import roles
from memories.reads import listing
from memories.writes import doors
from tests.conftest import busy_error


@pytest.fixture
def operator(db):
    user = User.objects.create_user("busy-operator")
    user.groups.add(Group.objects.get(name=roles.OPERATOR))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def locked(db, monkeypatch):
    doors.write("note", description="a note", priority=5)

    def refuse(*args, **kwargs):
        raise busy_error()

    monkeypatch.setattr(doors, "write", refuse)
    monkeypatch.setattr(listing, "page_memories", refuse)


@pytest.mark.parametrize(
    ("method", "path", "data"),
    [
        ("get", "/memories/", None),
        ("post", "/memories/note/row/?project=", {"priority": "3"}),
        (
            "post",
            "/memories/note/?project=",
            {"description": "changed", "priority": "5", "load": "index"},
        ),
    ],
)
@pytest.mark.parametrize("htmx", [False, True])
def test_a_busy_store_is_a_503_page_with_retry_after(operator, locked, method, path, data, htmx):
    headers = {"HX-Request": "true"} if htmx else {}
    response = getattr(operator, method)(path, data, headers=headers)
    assert response.status_code == 503
    assert response["Retry-After"] == "2"
    text = response.content.decode()
    assert "The store is busy with another write; try again in a moment." in text
    assert "locked" not in text and "Traceback" not in text
    if htmx:
        assert response["HX-Retarget"] == "#flash"


def test_other_database_failures_still_go_to_the_error_page(operator, monkeypatch):
    def broken(*args, **kwargs):
        raise OperationalError("disk I/O error")

    monkeypatch.setattr(listing, "page_memories", broken)
    with pytest.raises(OperationalError):
        operator.get("/memories/")
