"""Template helpers of the dashboard: ages with the exact time on hover, sizes, query strings."""

import datetime as dt
import html
import re
from dataclasses import dataclass
from urllib.parse import urlencode

from django import template
from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe

from memories.models import NAME_SLOT, memory_url
from memories.rules import budget
from memories.rules.captions import relative

register = template.Library()


def _e(value) -> str:
    """Escaped for HTML text and attribute values: what Django's escape() does, without
    its lazy-string wrapper, which cost a row 0.1 ms on its own."""
    return html.escape(str(value), quote=True)


@register.simple_tag
def age(
    moment: dt.datetime | None,
    empty: str = "never",
    now: dt.datetime | None = None,
    zone: dt.tzinfo | None = None,
) -> str:
    """'47 days ago' (or 'in 3 days') in a <time> whose title holds the exact time.

    The ISO time, the exact time and the age are digits, words and a zone's abbreviation:
    nothing to escape.
    """
    if moment is None:
        return mark_safe(f'<span class="muted">{_e(empty)}</span>')
    zone = zone or timezone.get_current_timezone()
    local = moment.astimezone(zone)
    iso = local.isoformat(timespec="seconds")  # one isoformat serves both: strftime is slower
    return mark_safe(
        f'<time datetime="{iso}" title="{iso[:10]} {iso[11:19]} {local.tzname()}">'
        f"{relative(moment, now, zone)}</time>"
    )


@register.filter
def kib(size: int | None) -> str:
    return budget.kib(size or 0)


@register.simple_tag
def query_for(**values) -> str:
    """A query string of these parameters alone."""
    return urlencode({key: value for key, value in values.items() if value is not None})


@register.simple_tag(name="memory_url")
def memory_view_url(viewname: str, memory) -> str:
    """One memory at one of its views (delete, history...), its tier named as its page's is."""
    return memory_url(reverse(viewname, args=[NAME_SLOT]), memory.name, memory.project_name)


@register.simple_tag
def tier_query(project_name: str | None) -> str:
    """`project=...` selecting one tier (empty: the global tier)."""
    return urlencode({"project": project_name or ""})


@register.simple_tag
def budget_bar(used: int, limit: int, label: str = "") -> str:
    """A bar of `used` against `limit`, drawn as SVG; past the limit it shows full and red."""
    percent = 100 * used / limit if limit else 0
    state = "over" if used > limit else "near" if percent >= 90 else "ok"
    return mark_safe(
        f'<svg class="bar bar-{state}" viewBox="0 0 100 6" preserveAspectRatio="none" role="img" '
        f'aria-label="{_e(label or f"{percent:.0f}% of the budget")}">'
        '<rect class="bar-track" width="100" height="6"></rect>'
        f'<rect class="bar-fill" width="{min(percent, 100):.2f}" height="6"></rect></svg>'
    )


@register.simple_tag
def budget_strip(bands) -> str:
    """The list page's strip of inline budget bands, also swapped in after each edit; built
    here as the rows are (see memory_rows), a band a few string joins."""
    items = [
        f'<li class="band{" band-over" if band.over else ""}">'
        f'<span class="band-name">{"global" if band.project is None else _e(band.project)}</span>'
        f'<span class="band-figures">{budget.kib(band.bytes)} / {budget.kib(band.budget)}</span>'
        f"{budget_bar(band.bytes, band.budget)}</li>"
        for band in bands
    ]
    return mark_safe(
        '<h2 class="visually-hidden">Inline budget per band</h2>\n'
        f'<ul class="bands bands-inline">\n{chr(10).join(items)}\n</ul>'
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


LOAD_OPTIONS = ("inline", "index", "search")


def _inline_edit(row, setting: "_RowSetting", control: str) -> str:
    """One of a row's inline edit forms (priority or load), posted by htmx or plainly.
    `control` is HTML already escaped."""
    url = _e(row.row_url)
    return (
        f'<form class="inline-edit" method="post" action="{url}"\n'
        f'            hx-post="{url}" hx-target="#memory-{row.memory.id}" hx-swap="outerHTML"\n'
        '            hx-trigger="change, submit" hx-sync="this:replace">\n'
        f'        <input type="hidden" name="csrfmiddlewaretoken" value="{setting.csrf}">'
        f'<input type="hidden" name="next" value="{setting.next_url}">\n'
        f"        {control}\n"
        '        <button type="submit" class="no-js-only">Save</button>\n'
        "      </form>"
    )


@dataclass(frozen=True)
class _RowSetting:
    """What every row of a page shares: who may edit, the form token and where a save
    returns (both escaped), the time the ages count from and the zone they are told in."""

    can_write: bool
    csrf: str
    next_url: str
    now: dt.datetime
    zone: dt.tzinfo

    @classmethod
    def of(cls, context) -> "_RowSetting":
        return cls(
            can_write=bool(context.get("can_write")),
            csrf=_e(context.get("csrf_token", "")),
            next_url=_e(context.get("list_url", "")),
            now=timezone.now(),
            zone=timezone.get_current_timezone(),
        )


@register.simple_tag(takes_context=True)
def memory_row(context, row) -> str:
    """One row of the memory list (a row redrawn after its inline edit)."""
    return mark_safe(_row_html(row, _RowSetting.of(context)))


@register.simple_tag(takes_context=True)
def memory_rows(context, rows) -> str:
    """The memory list's rows, with their inline edits for a writer.

    Built here rather than in a template, as Django's admin builds its change list's rows
    (items_for_result), and with plain string formatting: a row costs about 45 nodes of
    Django's template engine, and a 50-row page at 100,000 memories spent 13 ms of its
    22 ms in them (bench/run.py); a template loop over a row partial still cost a page
    0.9 ms. This is the same HTML. Every value that is not our own markup goes through _e().
    """
    if not rows:
        return mark_safe(
            '<tbody><tr><td colspan="12" class="empty">No memory matches these filters.</td></tr>'
            "</tbody>"
        )
    setting = _RowSetting.of(context)
    return mark_safe("".join(_row_html(row, setting) for row in rows))


def _row_html(row, setting: _RowSetting) -> str:
    m = row.memory
    name = _e(m.name)
    detail_url = _e(row.detail_url)
    classes = "memory-row"
    classes += " is-expired" if row.expired else ""
    classes += " is-saved" if row.saved else ""
    classes += " is-refused" if row.refusal else ""
    cells = []
    if setting.can_write:
        cells.append(
            f'<td class="col-select"><input type="checkbox" name="id" value="{m.id}" '
            f'form="bulk" aria-label="Select {name}"></td>'
        )
    badges = ' <span class="badge badge-expired">expired</span>' if row.expired else ""
    sense = ""
    if row.hit:
        terms = ": " + ", ".join(row.hit.scanned_terms) if row.hit.scanned_terms else ""
        sense = (
            f'<span class="badge badge-sense" title="score {_e(floatformat(row.hit.score, 3))}">'
            f"{_e(sense_words(row.hit.matched_by))}{_e(terms)}</span>"
        )
    cells.append(
        f'<th scope="row" class="col-name"><a href="{detail_url}">{name}</a>{badges}\n'
        f"      {sense}</th>"
    )
    tier = _e(m.project_name) if m.project_id else "global"
    cells.append(f'<td data-label="Tier"><a class="tier" href="{_e(row.tier_url)}">{tier}</a></td>')
    if setting.can_write:
        priority = _inline_edit(
            row,
            setting,
            f'<input type="number" name="priority" value="{m.priority}" min="0" max="100" '
            f'inputmode="numeric" aria-label="Priority of {name}">',
        )
        options = "\n          ".join(
            f'<option value="{load}"{" selected" if m.load == load else ""}>{load}</option>'
            for load in LOAD_OPTIONS
        )
        load = _inline_edit(
            row,
            setting,
            f'<select name="load" aria-label="Load of {name}">\n          {options}\n'
            "        </select>",
        )
    else:
        priority = str(m.priority)
        load = f'<span class="load load-{_e(m.load)}">{_e(m.load)}</span>'
    cells.append(f'<td data-label="Priority" class="num">\n      {priority}\n    </td>')
    cells.append(f'<td data-label="Load">\n      {load}\n    </td>')
    cells.append(f'<td data-label="Description" class="col-description">{_e(m.description)}</td>')
    tags = "".join(f'<a class="tag" href="{_e(url)}">{_e(tag)}</a> ' for tag, url in row.tag_links)
    tags = tags or '<span class="muted">none</span>'
    cells.append(f'<td data-label="Tags" class="col-tags">{tags}</td>')
    now, zone = setting.now, setting.zone
    expired = " expired" if row.expired else ""
    cells += [
        f'<td data-label="Recorded" class="col-date">{age(m.created_at, now=now, zone=zone)}</td>',
        f'<td data-label="Verified" class="col-date">{age(m.verified_at, now=now, zone=zone)}</td>',
        f'<td data-label="Expires" class="col-date{expired}">'
        f"{age(m.expires_at, now=now, zone=zone)}</td>",
        f'<td data-label="Reads" class="num">{m.read_count:,}</td>',
        f'<td data-label="Refs out / in" class="num col-refs"><a href="{detail_url}#references"'
        f' title="references out">{len(m.references)}</a> / <a href="{_e(row.referencing_url)}"'
        f' title="memories referencing {name}">{row.cited_by}</a></td>',
    ]
    refusal = ""
    if row.refusal:
        refusal = (
            '\n  <tr class="refusal"><td colspan="12" role="alert">'
            f"<strong>Not saved:</strong> {_e(row.refusal)}</td></tr>"
        )
    cells_html = "\n    ".join(cells)
    return (
        f'<tbody id="memory-{m.id}" class="{classes}">\n  <tr>\n    {cells_html}\n'
        f"  </tr>{refusal}\n</tbody>"
    )
