"""The way back from a single change, drawn in its banner as the bulk actions' banners link
their change set's undo: a button that restores the version before an edit, or a deleted
memory from the trash, and opens the memory again."""

from django.middleware.csrf import get_token
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from memories.models import TrashedMemory
from memories.reads import history

THEN_MEMORY = "memory"  # the restoring views' `then`: open the memory, not their own list


def _button(request, action: str) -> SafeString:
    return format_html(
        '<form method="post" action="{}" class="banner-undo">'
        '<input type="hidden" name="csrfmiddlewaretoken" value="{}">'
        '<input type="hidden" name="then" value="{}">'
        '<button type="submit" class="link-button">Undo</button></form>',
        action,
        get_token(request),
        THEN_MEMORY,
    )


def undo_delete(request, entry: TrashedMemory) -> SafeString:
    """Restores the trash entry."""
    return _button(request, reverse("history:trash_restore", args=[entry.id]))


def undo_edit(request, memory_id: int) -> SafeString:
    """Puts the memory back as its revision before the last left it (nothing when it has
    no earlier one)."""
    earlier = history.revision_before_last(memory_id)
    if earlier is None:
        return SafeString("")
    return _button(request, reverse("history:restore_version", args=[earlier]))
