"""The way back from a single change, drawn in its banner: a button that restores what was
deleted from the trash, as the bulk actions' banners link their change set's undo."""

from django.middleware.csrf import get_token
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from memories.models import TrashedMemory


def undo_button(request, entry: TrashedMemory) -> SafeString:
    """A form that restores the trash entry and opens the memory again."""
    return format_html(
        '<form method="post" action="{}" class="banner-undo">'
        '<input type="hidden" name="csrfmiddlewaretoken" value="{}">'
        '<input type="hidden" name="then" value="memory">'
        '<button type="submit" class="link-button">Undo</button></form>',
        reverse("history:trash_restore", args=[entry.id]),
        get_token(request),
    )
