"""The rows of the pages about bands: the tabs of a session's project, and the budget
report's bands, a band's cut line, its largest bodies, what falls off its index, the drift
sections' memories, and the tier view's inline bodies.

Built here as the memory list's rows are (dashboard.memory_rows), from templates parsed once
and escaped as Django's templates escape: the budget page draws about 200 rows, and as
template loops (a link reversed, a number grouped and a reason worded per row) they cost it
a sixth of its CPU (bench/results/2026-12-01-budget-5;
bench/results/2026-12-04-figures-from-comments).
"""

from urllib.parse import urlencode

from django import template
from django.utils.safestring import SafeString

from memadmin.templatetags.dashboard import HtmlTemplate, escaped, html_join
from memories.rules import tiers

register = template.Library()

BAND_ROW = HtmlTemplate(
    """        <tr{over_class}>
          <th scope="row"><a href="{url}">{name}</a>{over}</th>
          <td class="num">{global_bytes}</td>
          <td class="num">{project_bytes}</td>
          <td class="num">{inline_bytes}</td>
          <td class="num">{budget_bytes}</td>
          <td class="num">{shown} / {not_shown}</td>
          <td class="num">{entries} of {max_entries}</td>
          <td class="num">{index_bytes} of {max_bytes}</td>
          <td class="num">{left_out}</td>
        </tr>"""
)
CUT_ROW = HtmlTemplate(
    """        <tr class="{classes}">
          <th scope="row"><a class="mono" href="{url}">{name}</a>{marked}</th>
          <td class="num">{bytes}</td>
          <td>{reason}</td>
        </tr>"""
)
NOT_GIVEN = HtmlTemplate('<strong class="over">{reason}</strong>')
# A memory (its link and tier), one cell about it, and a writer's one click to change it.
MEMORY_ROW = HtmlTemplate(
    """        <tr>
          <th scope="row"><a class="mono" href="{url}">{name}</a> \
<span class="muted">{tier}</span></th>
          {cell}
          {change}
        </tr>"""
)
NUMBER_CELL = HtmlTemplate('<td class="num">{value}</td>')
TEXT_CELL = HtmlTemplate("<td>{value}</td>")
# One click through the doors (set load, set priority), posted plainly and back to `next`.
ONE_CLICK = HtmlTemplate(
    '<td><form class="one-click" method="post" action="{action}">'
    '<input type="hidden" name="csrfmiddlewaretoken" value="{csrf}">'
    '<input type="hidden" name="id" value="{id}"><input type="hidden" name="next" value="{next}">'
    '<button type="submit" class="button" aria-label="{label}">{button}</button></form></td>'
)
FALL_OFF = HtmlTemplate(
    '<li><a class="mono" href="{url}">{name}</a> '
    '<span class="muted">priority {priority}</span></li>'
)
TAB = HtmlTemplate(
    '<a href="{url}" hx-get="{url}" hx-target="{target}" hx-push-url="true"{current}>{name}</a>'
)
INLINE_ITEM = HtmlTemplate(
    '<li><a class="mono" href="{url}">{name}</a> '
    '<span class="muted">{bytes} bytes{marked}</span></li>'
)
CURRENT = SafeString(' aria-current="page"')
GLOBAL_MARK = SafeString(' <span class="muted">global</span>')
OVER_MARK = SafeString(' <strong class="over">over</strong>')
NOT_GIVEN_CLASS = SafeString(' class="not-given"')
NOTHING = SafeString()


def _memory_rows(context, action: str, rows) -> SafeString:
    """MEMORY_ROWs of `rows`, (memory, cell, label, button) each, the one click posting to
    `action` (its form token and return address escaped once for the table); no click when
    the viewer may not write."""
    can_write = bool(context.get("can_write"))
    form = {
        "action": escaped(action),
        "csrf": escaped(context.get("csrf_token", "")),
        "next": escaped(context.get("next", "")),
    }

    def row(memory, cell, label: str, button: str) -> SafeString:
        change = NOTHING
        if can_write:
            change = ONE_CLICK.format_map(
                {**form, "id": memory.id, "label": label, "button": button}
            )
        return MEMORY_ROW.format(
            url=memory.get_absolute_url(),
            name=memory.name,
            tier=tiers.label(memory.project_name),
            cell=cell,
            change=change,
        )

    return html_join("\n", (row(*values) for values in rows))


@register.simple_tag
def session_tabs(url: str, target: str, projects: list[str], project, keep=None) -> SafeString:
    """A tab for a session on no project, then one for each project's (`projects`, names),
    at `url` and loaded by htmx into `target`; `project` (a Project or None) is current.
    `keep`, other parameters each tab keeps (the agent view's moments)."""
    current = project.name if project else None
    kept = dict(keep or {})
    tabs = [
        TAB.format(
            url=url + ("?" + urlencode(kept) if kept else ""),
            target=target,
            current=NOTHING if current else CURRENT,
            name="no project (global)",
        )
    ]
    for name in projects:
        tabs.append(
            TAB.format(
                url=url + "?" + urlencode({"project": name, **kept}),
                target=target,
                current=CURRENT if name == current else NOTHING,
                name=name,
            )
        )
    return html_join("\n  ", tabs)


@register.simple_tag
def inline_items(memories, project) -> SafeString:
    """Inline bodies given whole, with their sizes; a session on a project marks the global."""
    return html_join(
        "",
        (
            INLINE_ITEM.format(
                url=m.get_absolute_url(),
                name=m.name,
                bytes=f"{m.body_bytes:,}",
                marked=", global" if project and not m.project_id else "",
            )
            for m in memories
        ),
    )


@register.simple_tag
def band_rows(report, budget_url: str) -> SafeString:
    """The table of every band of the report, each linking to its detail."""
    return html_join(
        "\n",
        (
            BAND_ROW.format(
                over_class=NOT_GIVEN_CLASS if band.over_budget else NOTHING,
                url=budget_url
                + ("?" + urlencode({"project": band.project}) if band.project else ""),
                name=band.project or "no project",
                over=OVER_MARK if band.over_budget else NOTHING,
                global_bytes=f"{band.global_bytes:,}",
                project_bytes=f"{band.project_bytes:,}",
                inline_bytes=f"{band.inline_bytes:,}",
                budget_bytes=f"{band.budget_bytes:,}",
                shown=band.inline_shown,
                not_shown=band.inline_not_shown,
                entries=band.index.entries,
                max_entries=band.index.max_entries,
                index_bytes=f"{band.index.bytes:,}",
                max_bytes=f"{band.index.max_bytes:,}",
                left_out=f"{band.index.left_out:,}",
            )
            for band in report.bands
        ),
    )


@register.simple_tag
def cut_rows(detail, project) -> SafeString:
    """The band's inline bodies in index order, the cut line on the first not given in full;
    a session on a project marks the global ones."""
    cut_at = detail.cut_at
    rows = []
    for number, entry in enumerate(detail.cut_shown):
        classes = "" if entry.shown else "not-given"
        if number == cut_at:
            classes += " cut-line"
        reason = entry.reason
        memory = entry.memory
        rows.append(
            CUT_ROW.format(
                classes=classes,
                url=memory.get_absolute_url(),
                name=memory.name,
                marked=GLOBAL_MARK if project and not memory.project_id else NOTHING,
                bytes=f"{entry.bytes:,}",
                reason=reason if entry.shown else NOT_GIVEN.format(reason=reason),
            )
        )
    return html_join("\n", rows)


@register.simple_tag(takes_context=True)
def largest_rows(context, entries, set_load_url: str) -> SafeString:
    """The largest inline bodies, each with its one click to load: index for a writer."""
    return _memory_rows(
        context,
        set_load_url,
        (
            (
                entry.memory,
                NUMBER_CELL.format(value=f"{entry.bytes:,}"),
                f"Set load: index on {entry.memory.name}",
                "Set load: index",
            )
            for entry in entries
        ),
    )


@register.simple_tag(takes_context=True)
def mismatch_rows(context, items, set_priority_url: str) -> SafeString:
    """A drift section's memories, each with its one click to the suggested priority."""
    return _memory_rows(
        context,
        set_priority_url,
        (
            (
                item.memory,
                TEXT_CELL.format(value=item.reason),
                f"Set priority {item.suggested_priority} on {item.memory.name}",
                f"Set priority {item.suggested_priority}",
            )
            for item in items
        ),
    )


@register.simple_tag
def fall_off_items(memories) -> SafeString:
    """What falls off the index's end, in order."""
    return html_join(
        "",
        (
            FALL_OFF.format(url=m.get_absolute_url(), name=m.name, priority=m.priority)
            for m in memories
        ),
    )
