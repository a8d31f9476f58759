"""The three roles of the dashboard, as Django groups made by a migration and kept after every
migrate or flush (`keep_groups`, on post_migrate).

auditor: reads everything, changes nothing. operator: edits memories and projects.
admin: also manages users and API tokens. A superuser is an admin.
"""

import functools

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import DEFAULT_DB_ALIAS, connection

AUDITOR, OPERATOR, ADMIN = "auditor", "operator", "admin"
ROLES = (AUDITOR, OPERATOR, ADMIN)
WRITERS = (OPERATOR, ADMIN)  # the roles that may change memories and projects


def keep_groups(using=DEFAULT_DB_ALIAS, **kwargs) -> None:
    """Make any role's group that is missing: a flush empties auth_group, and signing in,
    first_login and `apitoken` look the groups up by name."""
    for name in ROLES:
        Group.objects.using(using).get_or_create(name=name)


def strongest(user, group_names) -> str | None:
    """The strongest role among the user's groups (a superuser is an admin whatever they hold)."""
    if user.is_superuser:
        return ADMIN
    for role in (ADMIN, OPERATOR, AUDITOR):
        if role in group_names:
            return role
    return None


@functools.cache
def _group_names_statement() -> str:
    """The query of a user's group names, compiled by the ORM once per process.

    It runs on every request: a queryset built and compiled on each call took about ten
    times the compiled statement run alone (bench/results/2026-12-04-figures-from-comments). Its
    text is the same for every user; the user is its
    one parameter.
    """
    query = Group.objects.filter(user__pk=0).values_list("name", flat=True).query
    sql, _user = query.get_compiler(using=DEFAULT_DB_ALIAS).as_sql()
    return sql


def role_of(user) -> str | None:
    """The strongest role the user holds, or None for a user in no group; one query."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return None
    if user.is_superuser:
        return ADMIN
    with connection.cursor() as cursor:
        cursor.execute(_group_names_statement(), [user.pk])
        return strongest(user, {name for (name,) in cursor.fetchall()})


def current_role(user_id: int) -> str | None:
    """The role the account holds now, read afresh (None: no role, inactive, or deleted)."""
    user = get_user_model().objects.filter(pk=user_id).first()
    return None if user is None else role_of(user)


def can_read(user) -> bool:
    return role_of(user) is not None


def can_write(user) -> bool:
    return role_of(user) in WRITERS


def can_administer(user) -> bool:
    return role_of(user) == ADMIN
