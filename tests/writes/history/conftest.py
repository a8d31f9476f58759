import pytest
from django.contrib.auth.models import Group, User

from memadmin.accounts import roles
from memories.models import Revision
from memories.writes import history


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
    state = history.snapshot(memory)
    state.pop("updated_at")
    return state
