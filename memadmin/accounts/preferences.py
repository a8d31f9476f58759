"""What a person has chosen about how the dashboard shows things, kept with their account."""

from memadmin.models import ListColumns


def hidden_columns(user) -> list[str]:
    """The memory list's columns `user` has hidden (none for an account that never chose)."""
    if not user.is_authenticated:
        return []
    kept = ListColumns.objects.filter(user=user).values_list("hidden", flat=True).first()
    return kept or []


def hide_columns(user, hidden: list[str]) -> None:
    """Keep `hidden` (column keys, checked by the caller) as the columns `user` hides."""
    ListColumns.objects.update_or_create(user=user, defaults={"hidden": list(hidden)})
