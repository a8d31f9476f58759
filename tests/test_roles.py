import pytest
from django.contrib.auth.models import Group, User

from memadmin.accounts import roles


@pytest.mark.parametrize(
    ("groups", "superuser", "expected"),
    [
        ([], False, None),
        (["auditor"], False, "auditor"),
        (["operator"], False, "operator"),
        (["auditor", "admin"], False, "admin"),
        ([], True, "admin"),
    ],
)
def test_role_of(db, groups, superuser, expected):
    user = User.objects.create_user("u", password="x", is_superuser=superuser)
    user.groups.set(Group.objects.filter(name__in=groups))
    assert roles.role_of(user) == expected
    assert roles.can_write(user) == (expected in ("operator", "admin"))
    assert roles.can_administer(user) == (expected == "admin")


def test_migration_made_the_three_groups(db):
    assert set(Group.objects.values_list("name", flat=True)) >= {"auditor", "operator", "admin"}
