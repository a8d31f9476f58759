import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command

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


@pytest.mark.django_db(transaction=True)
def test_a_flush_of_the_store_keeps_the_three_groups():
    """Transactional tests flush every table between them; the groups come back with the
    post_migrate signal the flush sends, as Django's permissions do."""
    call_command("flush", interactive=False)
    assert set(Group.objects.values_list("name", flat=True)) == set(roles.ROLES)


def test_role_of_is_one_query_with_each_users_own_groups(db, django_assert_num_queries):
    reader = User.objects.create_user("reader", password="x")
    reader.groups.add(Group.objects.get(name="auditor"))
    writer = User.objects.create_user("writer", password="x")
    writer.groups.add(Group.objects.get(name="operator"), Group.objects.create(name="other"))
    with django_assert_num_queries(1):
        assert roles.role_of(reader) == "auditor"
    with django_assert_num_queries(1):
        assert roles.role_of(writer) == "operator"
    writer.is_active = False
    with django_assert_num_queries(0):
        assert roles.role_of(writer) is None
