"""The "live" indicator of a page that follows the store's changes (static/js/live.js): where
its stream is, the change the page was drawn at, and what the page does with a change."""

from urllib.parse import urlencode

from django import template
from django.urls import reverse
from django.utils.html import format_html

from memories.reads import changes

register = template.Library()


@register.simple_tag
def live_indicator(follow: str, region: str = "", memory=None, project=None) -> str:
    """`follow`: list (rows swapped in place), memory (a notice when it changes), region (the
    `region` element drawn again). `project` narrows the stream to a tier, as on /v1."""
    query = {"after": changes.latest_id()}
    if project is not None:
        query["project"] = project
    return format_html(
        '<span id="live" class="live" role="status" data-state="connecting" '
        'data-live-url="{}" data-live-follow="{}" data-live-region="{}" data-live-memory="{}" '
        'data-live-history="{}" data-live-rows="{}" '
        'title="Changes made elsewhere appear here as they happen">connecting…</span>',
        reverse("live-events") + "?" + urlencode(query),
        follow,
        region,
        memory.id if memory is not None else "",
        reverse("history:log"),
        reverse("memories:list"),
    )
