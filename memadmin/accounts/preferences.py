"""What a person has chosen about how the dashboard shows things, kept with their account."""

from django.db import connection

from memadmin.models import ListColumns

# Read on every request of the list: a plain statement, as compiling a queryset costs more.
_HIDDEN = ListColumns._meta.get_field("hidden")
_HIDDEN_OF_USER = (
    f'SELECT "{_HIDDEN.column}" FROM {ListColumns._meta.db_table} '
    f'WHERE "{ListColumns._meta.get_field("user").column}" = %s'
)


def hidden_columns(user) -> list[str]:
    """The memory list's columns `user` has hidden (none for an account that never chose)."""
    if not user.is_authenticated:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_HIDDEN_OF_USER, [user.pk])
        row = cursor.fetchone()
    return (row and _HIDDEN.from_db_value(row[0], None, connection)) or []


def hide_columns(user, hidden: list[str]) -> None:
    """Keep `hidden` (column keys, checked by the caller) as the columns `user` hides."""
    ListColumns.objects.update_or_create(user=user, defaults={"hidden": list(hidden)})
