"""Template helpers of the history pages."""

import datetime as dt

from django import template
from django.utils import timezone
from django.utils.html import format_html

from memories.rules import tiers
from memories.rules.captions import relative

register = template.Library()
register.filter("tier_words", tiers.label)  # as dashboard's: 'global' or the project's name

FIELD_WORDS = {
    "project": "Tier",
    "expires_at": "Expires",
    "verified_at": "Verified",
    "created_at": "Recorded",
    "read_count": "Read count",
}


@register.filter
def field_words(field: str) -> str:
    return FIELD_WORDS.get(field, field.capitalize())


@register.simple_tag
def moment(value: dt.datetime | None, empty: str = "none") -> str:
    """The exact local time, its age on hover: what a diff of dates needs to show."""
    if value is None:
        return format_html('<span class="muted">{}</span>', empty)
    local = timezone.localtime(value)
    return format_html(
        '<time datetime="{}" title="{}">{}</time>',
        value.isoformat(),
        relative(value),
        local.strftime("%Y-%m-%d %H:%M:%S %Z"),
    )
