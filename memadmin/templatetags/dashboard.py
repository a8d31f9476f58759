"""Template helpers of the dashboard: ages with the exact time on hover, sizes, query strings."""

import datetime as dt
import re
from urllib.parse import urlencode

from django import template
from django.http import QueryDict
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from memories import budget
from memories.captions import relative

register = template.Library()


@register.simple_tag
def age(moment: dt.datetime | None, empty: str = "never", now: dt.datetime | None = None) -> str:
    """'47 days ago' (or 'in 3 days') in a <time> whose title holds the exact time."""
    if moment is None:
        return format_html('<span class="muted">{}</span>', empty)
    local = timezone.localtime(moment)
    return format_html(
        '<time datetime="{}" title="{}">{}</time>',
        moment.isoformat(),
        local.strftime("%Y-%m-%d %H:%M:%S %Z"),
        relative(moment, now),
    )


@register.filter
def kib(size: int | None) -> str:
    return budget.kib(size or 0)


@register.simple_tag
def query(params: QueryDict, **changes) -> str:
    """`?...` for the current parameters with some replaced; a None value drops one.

    `project=""` is kept: it names the global tier.
    """
    merged = params.copy()
    for key, value in changes.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = str(value)
    encoded = merged.urlencode()
    return "?" + encoded if encoded else "?"


@register.simple_tag
def query_for(**values) -> str:
    """A query string of these parameters alone."""
    return urlencode({key: value for key, value in values.items() if value is not None})


@register.simple_tag
def memory_url(viewname: str, memory) -> str:
    """The page of one memory, its tier named as the API names it (`project=`, empty: global)."""
    return (
        reverse(viewname, args=[memory.name])
        + "?"
        + urlencode({"project": memory.project_name or ""})
    )


@register.simple_tag
def tier_query(project_name: str | None) -> str:
    """`project=...` selecting one tier (empty: the global tier)."""
    return urlencode({"project": project_name or ""})


@register.simple_tag
def budget_bar(used: int, limit: int, label: str = "") -> str:
    """A bar of `used` against `limit`, drawn as SVG; past the limit it shows full and red."""
    percent = 100 * used / limit if limit else 0
    state = "over" if used > limit else "near" if percent >= 90 else "ok"
    return format_html(
        '<svg class="bar bar-{}" viewBox="0 0 100 6" preserveAspectRatio="none" role="img" '
        'aria-label="{}"><rect class="bar-track" width="100" height="6"></rect>'
        '<rect class="bar-fill" width="{}" height="6"></rect></svg>',
        state,
        label or f"{percent:.0f}% of the budget",
        f"{min(percent, 100):.2f}",
    )


@register.filter
def get_item(mapping: dict, key):
    return mapping.get(key, "") if mapping else ""


@register.filter
def is_web_address(text: str) -> bool:
    """A reference worth a link: http or https and nothing else (never javascript: or data:)."""
    return bool(re.fullmatch(r"https?://[^\s<>\"']+", text or "", re.IGNORECASE))


SENSE_WORDS = {
    "word": "word match",
    "prefix": "prefix match",
    "plain_text": "text match",
    "last_resort": "whole-query scan",
}


@register.filter
def sense_words(sense: str) -> str:
    """Which of search's senses found a memory, in words."""
    return SENSE_WORDS.get(sense, sense)
