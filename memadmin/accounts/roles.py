"""The three roles of the dashboard, as Django groups made by a migration.

auditor: reads everything, changes nothing. operator: edits memories and projects.
admin: also manages users and API tokens. A superuser is an admin.
"""

from django.db import connection

AUDITOR, OPERATOR, ADMIN = "auditor", "operator", "admin"
ROLES = (AUDITOR, OPERATOR, ADMIN)


def role_of(user) -> str | None:
    """The strongest role the user holds, or None for a user in no group."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return None
    if user.is_superuser:
        return ADMIN
    with connection.cursor() as cursor:  # on every request: plain SQL, no queryset to build
        cursor.execute(
            "SELECT g.name FROM auth_group g JOIN auth_user_groups ug ON ug.group_id = g.id"
            " WHERE ug.user_id = %s",
            [user.pk],
        )
        held = {name for (name,) in cursor.fetchall()}
    for role in (ADMIN, OPERATOR, AUDITOR):
        if role in held:
            return role
    return None


def can_read(user) -> bool:
    return role_of(user) is not None


def can_write(user) -> bool:
    return role_of(user) in (OPERATOR, ADMIN)


def can_administer(user) -> bool:
    return role_of(user) == ADMIN
