"""Template helpers of the dashboard: ages with the exact time on hover, sizes, query strings,
and the memory list's rows.

The HTML built here is our markup in HtmlTemplates, whose fields are escaped unless they hold
HTML already (a SafeString), as Django's format_html escapes: a value is safe in a row
because it was escaped, never because someone remembered to.
"""

import datetime as dt
import html
import re
import string
from dataclasses import dataclass
from urllib.parse import urlencode

from django import template
from django.template.defaultfilters import floatformat
from django.utils import timezone
from django.utils.safestring import SafeString

from memadmin.accounts import grants
from memories.models import memory_view_url
from memories.rules import budget, tiers
from memories.rules.captions import relative, verified_since_recorded

register = template.Library()
register.filter("tier_words", tiers.label)  # the tier in words: 'global' or the project's name
register.filter("verified_since_recorded", verified_since_recorded)


@register.filter
def token_state(token, states) -> str:
    """An API token's state (tokens.States): live, paused, expired, revoked, or refused for
    its owner's want of a role."""
    return states.of(token)


@register.filter
def token_tiers(token) -> list[str]:
    """The tiers an API token was limited to ('global', projects' names); []: its owner's."""
    return [tiers.label(place) for place in grants.token_places(token)]


# Django's escape() and conditional_escape() do this escaping (html.escape) behind a
# lazy-string check (keep_lazy) that costs several times the escaping: format_html, which
# runs them on every value, made the rows of a 50-row list page take three times as long.
_escape = html.escape
_MARKUP_CHARACTER = re.compile("[&<>\"']").search  # most values have none: nothing to replace


def _html_text(value) -> str:
    """`value` as HTML: a SafeString itself, anything else's text escaped."""
    if isinstance(value, SafeString):
        return value
    text = str(value)
    return _escape(text) if _MARKUP_CHARACTER(text) else text


def escaped(value) -> SafeString:
    """Django's conditional_escape: `value` itself when it is HTML already (a SafeString),
    else its text escaped for HTML text and attribute values."""
    return value if isinstance(value, SafeString) else SafeString(_html_text(value))


def html_join(separator: str, fragments) -> SafeString:
    """`fragments` joined by `separator` (our markup), each escaped unless it is HTML."""
    return SafeString(separator.join([_html_text(fragment) for fragment in fragments]))


class HtmlTemplate:
    """Our markup with {named} fields, as str.format writes them, parsed once.

    format() and format_map() are Django's format_html: every value is escaped unless it is
    HTML already (a SafeString). str.format parses its template on every call, which cost
    a list row a third of its time.
    """

    def __init__(self, source: str):
        self.source = source
        self._chunks: list[str] = []  # the literal text, and a slot where each field goes
        self._slots: list[tuple[int, str]] = []
        for literal, field, spec, conversion in string.Formatter().parse(source):
            self._chunks.append(literal)
            if field is not None:
                if spec or conversion or not field.isidentifier():
                    raise ValueError(f"{{{field}}} is not a plain named field of {source!r}")
                self._slots.append((len(self._chunks), field))
                self._chunks.append("")

    def format(self, **values) -> SafeString:
        return self.format_map(values)

    def format_map(self, values: dict) -> SafeString:
        """The template filled with `values` (a dict it may overwrite)."""
        for key, value in values.items():  # _html_text, without a call for each value
            if isinstance(value, SafeString):
                continue
            if type(value) is int:  # digits: nothing to escape
                values[key] = str(value)
            else:
                text = str(value)
                values[key] = _escape(text) if _MARKUP_CHARACTER(text) else text
        chunks = self._chunks.copy()
        for index, field in self._slots:
            chunks[index] = values[field]
        return SafeString("".join(chunks))


TIME = HtmlTemplate('<time datetime="{iso}" title="{exact}">{age}</time>')
EMPTY_AGE = HtmlTemplate('<span class="muted">{empty}</span>')
NEVER = EMPTY_AGE.format(empty="never")
NEAR_DAYS = {"today", "yesterday", "later today", "tomorrow"}


@register.simple_tag
def age(
    moment: dt.datetime | None,
    empty: str = "never",
    now: dt.datetime | None = None,
    zone: dt.tzinfo | None = None,
) -> str:
    """'47 days ago' (or 'in 3 days', 'today 14:05') in a <time> whose title holds the
    exact time."""
    if moment is None:
        return NEVER if empty == "never" else EMPTY_AGE.format(empty=empty)
    zone = zone or timezone.get_current_timezone()
    local = moment.astimezone(zone)
    iso = local.isoformat(timespec="seconds")  # one isoformat serves both: strftime is slower
    words = relative(moment, now, zone)
    if words in NEAR_DAYS:  # the hour shown too, not only on hover (out of reach on touch)
        words = f"{words} {iso[11:16]}"
    return TIME.format(iso=iso, exact=f"{iso[:10]} {iso[11:19]} {local.tzname()}", age=words)


# A memory's page: its fields and its references both ways, written out here, where the
# template's rows, with their ages, links and filters, cost a fifth of the page.
NONE = EMPTY_AGE.format(empty="none")
TAG_LINK = HtmlTemplate('<a class="tag" href="{list_url}?{query}">{tag}</a> ')
FIELDS = HtmlTemplate(
    "<dt>Tier</dt><dd>{tier}</dd>\n"
    "        <dt>Priority</dt><dd>{priority}</dd>\n"
    "        <dt>Load</dt><dd>{load}</dd>\n"
    "        <dt>Tags</dt><dd>{tags}</dd>\n"
    "        <dt>Source</dt><dd>{source}</dd>\n"
    "        <dt>Recorded</dt><dd>{recorded}</dd>\n"
    "        <dt>Updated</dt><dd>{updated}</dd>\n"
    "        <dt>Verified</dt><dd>{verified}</dd>\n"
    "        <dt>Expires</dt><dd{expired}>{expires}</dd>\n"
    "        <dt>Read</dt><dd>{reads} time{plural} by the agent</dd>"
)
CITATION = HtmlTemplate(
    '<li><a class="mono" href="{url}">{name}</a>{badge}'
    ' <span class="ref-description">{description}</span></li>'
)
TIER_BADGE = HtmlTemplate(' <span class="badge">{tier}</span>')
DANGLING = HtmlTemplate(
    '<li>{target} <span class="badge badge-dangling" title="No memory has this name: a path, '
    'URL or id, or a note still to write">dangling</span></li>'
)
WEB_LINK = HtmlTemplate(
    '<a class="mono" href="{target}" rel="noopener noreferrer nofollow">{target}</a>'
)
PLAIN_TARGET = HtmlTemplate('<span class="mono">{target}</span>')
CITER = HtmlTemplate('<a class="mono" href="{url}#edit">{name}</a>{project}')
CITER_PROJECT = HtmlTemplate(' <span class="muted">{project}</span>')
ITEMS = "\n        "


@register.simple_tag
def memory_fields(
    memory, expired: bool, list_url: str, now: dt.datetime | None = None
) -> SafeString:
    """Its fields as <dt>/<dd> pairs, each tag a link to the list filtered to it; the ages
    told from `now` (the page's)."""
    now = now or timezone.now()
    tags = [
        TAG_LINK.format(list_url=list_url, query=query_for(tag=tag), tag=tag) for tag in memory.tags
    ]
    return FIELDS.format(
        tier=tiers.label(memory.project_name),
        priority=memory.priority,
        load=memory.load,
        tags=html_join("", tags) if tags else NONE,
        source=memory.source or NONE,
        recorded=age(memory.created_at, now=now),
        updated=age(memory.updated_at, now=now),
        verified=(
            age(memory.verified_at, now=now)
            if verified_since_recorded(memory)
            else EMPTY_AGE.format(empty="not since recorded")
        ),
        expired=SafeString(' class="expired"') if expired else "",
        expires=age(memory.expires_at, now=now),
        reads=f"{memory.read_count:,}",
        plural="" if memory.read_count == 1 else "s",
    )


MEMORY_HEAD = HtmlTemplate(
    '<header class="memory-head">\n'
    '  <h1 class="mono">{name}</h1>\n'
    '  <p class="badges">\n'
    '    <span class="badge badge-tier">{tier}</span>\n'
    '    <span class="badge load load-{load}">{load}</span>\n'
    '    <span class="badge">priority {priority}</span>{expired}\n'
    "  </p>\n"
    '  <p class="description">{description}</p>\n'
    '  <p class="caption">{caption}.</p>\n'
    "</header>\n"
    '<nav class="tabs memory-tabs" aria-label="This memory">\n'
    '  <a href="{detail_url}"{on_detail}>Details</a>\n'
    '  <a href="{history_url}"{on_history}>History</a>{edit}\n'
    "</nav>"
)
EXPIRED_BADGE = SafeString('\n    <span class="badge badge-expired">expired</span>')
CURRENT_PAGE = SafeString(' aria-current="page"')
EDIT_TAB = HtmlTemplate('\n  <a class="tab-action" href="{form_url}#edit-form">Edit</a>')


@register.simple_tag(takes_context=True)
def memory_head(context, memory) -> SafeString:
    """A memory's heading (its tier, load, priority, expiry, description and the context's
    caption) and its tabs, on its detail and History pages."""
    here = context["request"].resolver_match.view_name
    on_detail = here == "memories:detail"
    detail_url = memory.get_absolute_url()
    edit = ""
    if context.get("can_write"):
        # The form's own address (the browser unfolds its <details> on the way there); a
        # page without the form drawn asks for it with edit=1.
        drawn = on_detail and context.get("form")
        edit = EDIT_TAB.format(form_url="" if drawn else detail_url + "&edit=1")
    return MEMORY_HEAD.format(
        name=memory.name,
        tier=f"project {memory.project_name}" if memory.project_id else "global",
        load=memory.load,
        priority=memory.priority,
        expired=_out_of_force(memory, bool(context.get("expired"))),
        description=memory.description,
        caption=context.get("caption", ""),
        detail_url=detail_url,
        on_detail=CURRENT_PAGE if on_detail else "",
        history_url=memory_view_url("memories:history", memory.name, memory.project_name),
        on_history=CURRENT_PAGE if here == "memories:history" else "",
        edit=edit,
    )


def _citation(other, shown: str, memory) -> SafeString:
    """A link to `other` named `shown`, its tier when it is not `memory`'s, its description."""
    badge = ""
    if other.project_id != memory.project_id:
        badge = TIER_BADGE.format(tier=tiers.label(other.project_name))
    return CITATION.format(
        url=other.get_absolute_url(), name=shown, badge=badge, description=other.description
    )


@register.simple_tag
def memory_citations(memory, citing) -> SafeString:
    """The memories citing `memory`, a list item each."""
    return html_join(ITEMS, [_citation(other, other.name, memory) for other in citing])


@register.simple_tag
def citing_links(citing) -> SafeString:
    """A dangling target's first citers, each a link to its edit form with its project: a
    page shows up to 600, which the template's loop drew in half the page's time."""
    return html_join(
        ", ",
        [
            CITER.format(
                url=m.get_absolute_url(),
                name=m.name,
                project=CITER_PROJECT.format(project=m.project_name) if m.project_id else "",
            )
            for m in citing
        ],
    )


@register.simple_tag
def memory_references(memory, references) -> SafeString:
    """Its references (backlinks.resolve_references), a list item each: the memory each names,
    or the target as a dangling one (a link when it is a web address)."""
    items = []
    for ref in references:
        if ref.memory is not None:
            items.append(_citation(ref.memory, ref.target, memory))
        else:
            shown = WEB_LINK if is_web_address(ref.target) else PLAIN_TARGET
            items.append(DANGLING.format(target=shown.format(target=ref.target)))
    return html_join(ITEMS, items)


@register.filter
def kib(size: int | None) -> str:
    return budget.kib(size or 0)


@register.simple_tag
def query_for(**values) -> str:
    """A query string of these parameters alone."""
    return urlencode({key: value for key, value in values.items() if value is not None})


@register.simple_tag(name="memory_url")
def memory_at_view(viewname: str, memory) -> str:
    """One memory at one of its views (delete, history...), its tier named as its page's is."""
    return memory_view_url(viewname, memory.name, memory.project_name)


@register.simple_tag
def tier_query(project_name: str | None) -> str:
    """`project=...` selecting one tier (empty: the global tier)."""
    return urlencode({"project": project_name or ""})


BAR = HtmlTemplate(
    '<svg class="bar bar-{state}" viewBox="0 0 100 6" preserveAspectRatio="none" role="img" '
    'aria-label="{label}">'
    '<rect class="bar-track" width="100" height="6"></rect>'
    '<rect class="bar-fill" width="{width}" height="6"></rect></svg>'
)
BAND = HtmlTemplate(
    '<li class="band{over}"><span class="band-name">{name}</span>'
    '<span class="band-figures">{used} / {budget}</span>{bar}</li>'
)
BANDS = HtmlTemplate(
    '<h2 class="visually-hidden">Inline budget per band</h2>\n'
    '<ul class="bands bands-inline">\n{bands}\n</ul>'
)


@register.simple_tag
def budget_bar(used: int, limit: int, label: str = "") -> str:
    """A bar of `used` against `limit`, drawn as SVG; past the limit it shows full and red."""
    percent = 100 * used / limit if limit else 0
    return BAR.format(
        state="over" if used > limit else "near" if percent >= 90 else "ok",
        label=label or f"{percent:.0f}% of the budget",
        width=f"{min(percent, 100):.2f}",
    )


@register.simple_tag
def budget_strip(bands) -> str:
    """The list page's strip of inline budget bands, also swapped in after each edit; built
    here as the rows are (see memory_rows), a band one template filled."""
    return BANDS.format(
        bands=html_join(
            "\n",
            (
                BAND.format(
                    over=" band-over" if band.over else "",
                    name="global" if band.project is None else band.project,
                    used=budget.kib(band.bytes),
                    budget=budget.kib(band.budget),
                    bar=budget_bar(band.bytes, band.budget),
                )
                for band in bands
            ),
        )
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
    "reference": "cites it",
    "semantic": "similar in meaning",
}


@register.filter
def sense_words(sense: str) -> str:
    """Which of search's senses found a memory, in words."""
    return SENSE_WORDS.get(sense, sense)


LOAD_OPTIONS = ("inline", "index", "search")
OPTION = HtmlTemplate('<option value="{load}"{selected}>{load}</option>')
# The load select's options as each stored load selects one: the same for every row.
LOAD_SELECT_OPTIONS = {
    stored: html_join(
        "\n          ",
        (
            OPTION.format(load=load, selected=" selected" if stored == load else "")
            for load in LOAD_OPTIONS
        ),
    )
    for stored in LOAD_OPTIONS
}

# The row of one memory: a writer's with the select box and the inline edit forms (posted
# by htmx or plainly), a reader's without, each put together here (the %-slots) so that a
# row is one template filled once.
ROW = """<tbody id="memory-{id}" class="{classes}">
  <tr>
    %(select)s<th scope="row" class="col-name"><a \
href="{detail_url}">{name}</a>{badges}
      {sense}</th>
    <td data-label="Tier" data-col="tier"><a class="tier" href="{tier_url}">{tier}</a></td>
    <td data-label="Priority" data-col="priority" class="num">
      %(priority)s
    </td>
    <td data-label="Load" data-col="load">
      %(load)s
    </td>
    <td data-label="Description" data-col="description" class="col-description">\
<div class="clamp">{description}</div></td>
    <td data-label="Tags" data-col="tags" class="col-tags">\
<div class="clamp clamp-box">{tags}</div></td>
    <td data-label="Recorded" data-col="recorded" class="col-date">{created}</td>
    <td data-label="Verified" data-col="verified" class="col-date">{verified}</td>
    <td data-label="Expires" data-col="expires" class="col-date{expired}">{expires}</td>
    <td data-label="Reads" data-col="reads" class="num">{reads}</td>
    <td data-label="Refs out / in" data-col="refs" class="num col-refs">\
<a href="{detail_url}#references" title="references out">{refs_out}</a> / \
<a href="{referencing_url}" title="memories referencing {name}">{cited_by}</a></td>
  </tr>{refusal}
</tbody>"""
# novalidate: the server answers every value (a refusal beside the row), where the browser's
# own number check would block the request and say nothing.
EDIT_FORM = """<form class="inline-edit" method="post" action="{url}" novalidate
            hx-post="{url}" hx-target="#memory-{id}" hx-swap="outerHTML"
            hx-trigger="change, submit" hx-sync="this:replace">
        <input type="hidden" name="csrfmiddlewaretoken" value="{csrf}">\
<input type="hidden" name="next" value="{next}">
        %s
        <button type="submit" class="no-js-only">Save</button>
      </form>"""
WRITER_ROW = HtmlTemplate(
    ROW
    % {
        "select": '<td class="col-select"><input type="checkbox" name="id" value="{id}" '
        'form="bulk" aria-label="Select {name}"></td>\n    ',
        "priority": EDIT_FORM
        % (
            '<input type="number" name="priority" value="{priority}" min="0" max="100" '
            'inputmode="numeric" aria-label="Priority of {name}">'
        ),
        "load": EDIT_FORM
        % (
            '<select name="load" aria-label="Load of {name}">\n          {options}\n'
            "        </select>"
        ),
    }
)
READER_ROW = HtmlTemplate(
    ROW
    % {
        "select": "",
        "priority": "{priority}",
        "load": '<span class="load load-{load}">{load}</span>',
    }
)
TAG = HtmlTemplate('<a class="tag" href="{url}">{tag}</a> ')
SENSE = HtmlTemplate('<span class="badge badge-sense" title="score {score}">{sense}{terms}</span>')
# A guess is told apart from a recalled word: its own badge, and the cosine it was found at.
MEANING = HtmlTemplate(
    '<span class="badge badge-meaning" title="similarity {similarity} to the query, no word '
    'in common">{sense}</span>'
)
REFUSAL = HtmlTemplate(
    '\n  <tr class="refusal"><td colspan="12" role="alert">'
    "<strong>Not saved:</strong> {refusal}</td></tr>"
)

NOTICE = HtmlTemplate('\n  <tr class="notice"><td colspan="12" role="status">{notice}</td></tr>')

NOTHING = SafeString()
NO_ROWS = SafeString(
    '<tbody><tr><td colspan="12" class="empty">No memory matches these filters.</td></tr></tbody>'
)
NO_TAGS = SafeString('<span class="muted">none</span>')
EXPIRED_BADGE = SafeString(' <span class="badge badge-expired">expired</span>')
# A superseded memory is out of force as an expired one is, and says what replaced it.
SUPERSEDED_BADGE = HtmlTemplate(
    ' <a class="badge badge-superseded" href="{url}">superseded by \'{name}\'</a>'
)
EXPIRED_CELL = SafeString(" expired")


@dataclass(frozen=True)
class _RowSetting:
    """What every row of a page shares: who may edit, the form token and where a save
    returns (both escaped once for the page), the time the ages count from and the zone
    they are told in."""

    can_write: bool
    csrf: SafeString
    next_url: SafeString
    now: dt.datetime
    zone: dt.tzinfo

    @classmethod
    def of(cls, context) -> "_RowSetting":
        return cls(
            can_write=bool(context.get("can_write")),
            csrf=escaped(context.get("csrf_token", "")),
            next_url=escaped(context.get("list_url", "")),
            now=timezone.now(),
            zone=timezone.get_current_timezone(),
        )


@register.simple_tag(takes_context=True)
def memory_row(context, row) -> str:
    """One row of the memory list (a row redrawn after its inline edit)."""
    return _row_html(row, _RowSetting.of(context))


@register.simple_tag(takes_context=True)
def memory_rows(context, rows) -> str:
    """The memory list's rows, with their inline edits for a writer.

    Built here rather than in a template, as Django's admin builds its change list's rows
    (items_for_result with format_html), and from templates parsed once: a row costs about
    45 nodes of Django's template engine, and a 50-row page spent more than half its time in
    them; a template loop over a row partial still cost a page more than this
    (bench/results/2026-12-04-figures-from-comments). This is the same HTML, escaped as Django's
    templates would escape it.
    """
    if not rows:
        return NO_ROWS
    setting = _RowSetting.of(context)
    return html_join("", (_row_html(row, setting) for row in rows))


def _sense_badge(hit) -> SafeString:
    """Which of search's senses found the memory, and the terms a scan looked for."""
    if hit.by_meaning_only:
        return MEANING.format(
            similarity=floatformat(hit.similarity, 2), sense=sense_words(hit.matched_by)
        )
    return SENSE.format(
        score=floatformat(hit.score, 3),
        sense=sense_words(hit.matched_by),
        terms=": " + ", ".join(hit.scanned_terms) if hit.scanned_terms else "",
    )


def _out_of_force(memory, expired: bool) -> SafeString:
    """The badge of a memory no longer in force: superseded (linking its successor) or
    expired; nothing for one in force."""
    if not expired:
        return NOTHING
    if memory.superseded_by:
        return SUPERSEDED_BADGE.format(url=memory.successor_url(), name=memory.superseded_by)
    return EXPIRED_BADGE


def _row_html(row, setting: _RowSetting) -> SafeString:
    m = row.memory
    classes = "memory-row"
    classes += " is-expired" if row.expired else ""
    classes += " is-saved" if row.saved else ""
    classes += " is-refused" if row.refusal else ""
    tags = html_join("", (TAG.format(url=url, tag=tag) for tag, url in row.tag_links))
    now, zone = setting.now, setting.zone
    values = {
        "id": m.id,
        "classes": classes,
        "detail_url": row.detail_url,
        "name": m.name,
        "badges": _out_of_force(m, row.expired),
        "sense": _sense_badge(row.hit) if row.hit else NOTHING,
        "tier_url": row.tier_url,
        "tier": m.project_name if m.project_id else "global",
        "priority": m.priority,
        "description": m.description,
        "tags": tags or NO_TAGS,
        "created": age(m.created_at, now=now, zone=zone),
        "verified": age(m.verified_at, now=now, zone=zone),
        "expired": EXPIRED_CELL if row.expired else NOTHING,
        "expires": age(m.expires_at, now=now, zone=zone),
        "reads": f"{m.read_count:,}",
        "refs_out": len(m.references),
        "referencing_url": row.referencing_url,
        "cited_by": row.cited_by,
        "refusal": REFUSAL.format(refusal=row.refusal)
        if row.refusal
        else NOTICE.format(notice=row.notice)
        if row.notice
        else NOTHING,
    }
    if not setting.can_write:
        values["load"] = m.load
        return READER_ROW.format_map(values)
    values["url"] = row.row_url
    values["csrf"] = setting.csrf
    values["next"] = setting.next_url
    values["options"] = LOAD_SELECT_OPTIONS[m.load]
    return WRITER_ROW.format_map(values)
