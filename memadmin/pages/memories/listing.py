"""The memory list: filters, sorting, keyset pages, inline edits of a row, bulk actions."""

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from urllib.parse import quote_plus, urlencode

from django.contrib import messages
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import push_url

from memadmin.pages.memories import exports
from memadmin.pages.memories.forms import (
    BULK_ACTIONS,
    PAGE_SIZES,
    BulkForm,
    MemoryListForm,
    RowForm,
)
from memadmin.pages.query import ANY_TIER_VALUE, canonical_query
from memadmin.templatetags.dashboard import html_join
from memadmin.web.access import requires_role
from memadmin.web.http import HtmxHttpRequest, render_page, safe_next
from memadmin.web.refusals import refusal_html
from memadmin.web.responses import error_response
from memories.models import NAME_SLOT, Memory, memory_url, tier_query
from memories.reads import backlinks, budget, facets, listing, lookup
from memories.reads.filters import PERIOD_CHOICES
from memories.reads.params import tier_param
from memories.reads.search import SEMANTIC, Hit, looks_cited, search
from memories.rules import fields as memory_fields
from memories.rules import tiers
from memories.rules.budget import band_words
from memories.rules.errors import DomainError, InlineBudgetExceeded
from memories.writes import bulk, doors
from projects.models import Project

SORT_WORDS = {
    "name": "name",
    "-name": "name, Z to A",
    "tier": "tier",
    "-priority": "priority, least important first",
    "created": "age, oldest first",
    "-created": "age, newest first",
    "verified": "verification, longest unverified first",
    "-verified": "verification, most recently verified first",
    "expires": "expiry, soonest first",
    "-expires": "expiry, latest first",
    "read_count": "read count, least read first",
    "-read_count": "read count, most read first",
}
# The list's columns: (label, the sorts a click on it picks going up and going down).
COLUMNS = [
    ("Name", ("name", "-name")),
    ("Tier", ("tier", "tier")),
    ("Priority", ("index", "-priority")),
    ("Load", None),
    ("Description", None),
    ("Tags", None),
    ("Recorded", ("-created", "created")),
    ("Verified", ("verified", "-verified")),
    ("Expires", ("expires", "-expires")),
    ("Reads", ("-read_count", "read_count")),
    ("Refs", None),
]
NUMERIC = {"Priority", "Reads", "Refs"}
# The default mode's value is blank, so a shared URL names a mode only when it is not the
# default (the form reads blank as hybrid).
MODE_CHOICES = (("", "words and meaning"), ("words", "words only"), ("meaning", "meaning only"))


class RowLinks:
    """The views a row links to, each reversed once for a page rather than once for each row
    (memories.models.memory_url puts each row's memory in)."""

    def __init__(self):
        self.detail = reverse("memories:detail", args=[NAME_SLOT])
        self.row = reverse("memories:row", args=[NAME_SLOT])
        self.list = reverse("memories:list")

    def listed(self, key: str, value: str) -> str:
        """The list filtered by one parameter."""
        return f"{self.list}?{key}={quote_plus(value)}"


@dataclass
class Row:
    memory: Memory
    cited_by: int
    expired: bool
    links: RowLinks
    refusal: str = ""
    saved: bool = False
    notice: str = ""  # an edit that changed nothing says so
    hit: Hit | None = None  # when the list is a search: how this memory was found

    def __post_init__(self):
        memory, links = self.memory, self.links
        name, project_name = memory.name, memory.project_name
        self.detail_url = memory_url(links.detail, name, project_name)
        self.row_url = memory_url(links.row, name, project_name)
        self.tier_url = links.list + tier_query(project_name)
        self.referencing_url = links.listed("referencing", memory.name)
        self.tag_links = [(tag, links.listed("tag", tag)) for tag in memory.tags]


def _recalled(hits: list[Hit]) -> bool:
    """Whether any hit was found by the query's words or references, not guessed by meaning
    alone (the fusion ranks the words' first hit first)."""
    return any(hit.matched_by != SEMANTIC for hit in hits)


def _list_url(params: QueryDict, view: str = "memories:list", **changes: str | None) -> str:
    """The list's address (or `view`'s) for these parameters, some replaced (a None value
    drops one).

    Built from the parameters' pairs rather than a changed copy of the QueryDict, whose deep
    copy cost a page a dozen times over.
    """
    pairs = [
        (key, value) for key, values in params.lists() if key not in changes for value in values
    ]
    pairs += [(key, value) for key, value in changes.items() if value is not None]
    encoded = urlencode(pairs)
    return reverse(view) + ("?" + encoded if encoded else "")


def _headers(params: QueryDict, sort: str | None) -> list[dict]:
    """The header cells: a click sorts by the column, a second click reverses it.

    A search is in rank order, so its headers sort nothing (`sort` None).
    """
    headers = []
    for label, sorts in COLUMNS:
        header = {"label": label, "numeric": label in NUMERIC, "href": None, "direction": None}
        if sorts and sort is not None:
            up, down = sorts
            target = down if sort == up and up != down else up
            if sort in (up, down):
                header["direction"] = "descending" if sort.startswith("-") else "ascending"
            header["href"] = _list_url(
                params, sort=None if target == "index" else target, after=None, before=None
            )
        header["classes"] = " ".join(
            word
            for word, wanted in (("num", header["numeric"]), ("sortable", header["href"]))
            if wanted
        )
        headers.append(header)
    return headers


def listing_context(params: QueryDict, *, refusals: dict[int, str] | None = None, saved=()) -> dict:
    """Everything the list's results show, for the page and for the fragments that redraw it."""
    now = timezone.now()
    form = MemoryListForm(params)
    projects = list(Project.objects.order_by("name"))
    context = {
        "params": params,
        "list_url": _list_url(params),
        "projects": [project.name for project in projects],
        "any_tier_value": ANY_TIER_VALUE,
        "queries": [q for q in params.getlist("q") if q.strip()],
        "form": form,
        # A class: the template makes the form (0.1 ms) only when it draws the bulk controls,
        # which it keeps drawn per process.
        "bulk_form": BulkForm,
        "period_choices": PERIOD_CHOICES,
        "mode_choices": MODE_CHOICES,
        "loads": memory_fields.LOADS,
        "bulk_actions": BULK_ACTIONS,
        "status": 200,
        "listing": None,
        "error": "",
    }
    if not form.is_valid():
        context.update(
            error=form.first_error(), status=400, bands=partial(budget.bands, now, projects)
        )
        return context
    filters = form.filters()
    sort = form.cleaned_data["sort"]
    limit = form.cleaned_data["limit"]
    whole = {"after": None, "before": None, "offset": None, "limit": None}
    context.update(
        csv_url=_list_url(params, format="csv", **whole),
        json_url=_list_url(params, format="json", **whole),
        facets_url=_list_url(params, "memories:facets", sort=None, **whole),
        filters=filters,
        sort=sort,
        headers=_headers(params, None if form.cleaned_data["q"] else sort),
        limit=limit,
        page_size_links=[
            (
                size,
                None
                if size == limit
                else _list_url(params, limit=str(size), after=None, before=None),
            )
            for size in PAGE_SIZES
        ],
        # Called by the template when it draws the budget strip, which a results fragment
        # does not.
        bands=partial(budget.bands, now, projects),
    )
    if form.cleaned_data["q"]:
        return _search_context(context, form, filters, refusals or {}, saved, now)
    try:
        page = listing.page_memories(
            filters,
            sort=sort,
            limit=form.cleaned_data["limit"],
            after=form.cleaned_data["after"] or None,
            before=form.cleaned_data["before"] or None,
            now=now,
            projects={project.id: project for project in projects},
        )
    except DomainError as error:
        context.update(error=error.message, status=error.status)
        return context
    refusals = refusals or {}
    summary = filters.summary(page.count, searched=sort != "index", more=page.more)
    if sort != "index":
        summary += f", sorted by {SORT_WORDS[sort]}"
    links = RowLinks()
    context.update(
        listing=page,
        count=page.count,
        count_more=page.more,
        summary=summary,
        rows=[
            Row(
                memory=memory,
                cited_by=page.cited_by[memory.id],
                expired=memory.is_expired(now),
                links=links,
                refusal=refusals.get(memory.id, ""),
                saved=memory.id in saved,
            )
            for memory in page.memories
        ],
        first_page_url=_list_url(params, after=None, before=None),
        next_page_url=_list_url(params, after=page.next_cursor, before=None)
        if page.next_cursor
        else None,
        previous_page_url=_list_url(params, before=page.previous_cursor, after=None)
        if page.previous_cursor
        else None,
    )
    return context


def _search_context(context, form, filters, refusals, saved, now) -> dict:
    """The list as a search: ranked hits, each saying which sense found it, paged by offset."""
    params = context["params"]
    queries = form.cleaned_data["q"]
    limit = form.cleaned_data["limit"]
    offset = form.cleaned_data["offset"] or 0
    try:
        result = search(
            queries, filters, limit=limit, offset=offset, now=now, mode=form.cleaned_data["mode"]
        )
    except DomainError as error:
        context.update(error=error.message, status=error.status)
        return context
    memories = [hit.memory for hit in result.hits]
    cited_by = backlinks.citation_counts(memories)
    noun = "memory" if result.count == 1 else "memories"
    quoted = " or ".join(f"‘{query}’" for query in queries)
    links = RowLinks()
    summary = f"{'at least ' if result.capped else ''}{result.count} {noun} matching {quoted}"
    summary = ", ".join([summary, *filters.labels()]) + ", best first"
    if result.last_resort:
        summary += " (no word matched: found by scanning the text for the whole query)"
    cited = [query for query in queries if looks_cited(query)]
    context.update(
        referencing_offer=_list_url(params, q=None, offset=None, referencing=cited[0])
        if cited and not filters.referencing and not _recalled(result.hits)
        else None,
        searching=True,
        count=result.count,
        summary=summary,
        rows=[
            Row(
                memory=hit.memory,
                cited_by=cited_by[hit.memory.id],
                expired=hit.memory.is_expired(now),
                links=links,
                refusal=refusals.get(hit.memory.id, ""),
                saved=hit.memory.id in saved,
                hit=hit,
            )
            for hit in result.hits
        ],
        first_page_url=_list_url(params, offset=None) if offset else None,
        next_page_url=_list_url(params, offset=str(offset + limit))
        if offset + limit < result.count
        else None,
        previous_page_url=_list_url(params, offset=str(offset - limit) if offset > limit else None)
        if offset
        else None,
    )
    return context


@require_GET
@requires_role()
def memory_list(request: HtmxHttpRequest) -> HttpResponse:
    params = canonical_query(request.GET)
    url = _list_url(params)
    if params.urlencode() != request.GET.urlencode() and not request.htmx:
        return redirect(url)
    if "format" in params:
        return exports.list_export(request, params, params["format"])
    context = listing_context(params)
    response = render_page(
        request, "memories/list.html", context, fragment="results", status=context["status"]
    )
    if request.htmx:
        push_url(response, url)
    return response


def _facet_links(params: QueryDict, found: list[facets.Facet]) -> list[dict]:
    """Each facet's values as links adding their filter to the list's (a value already
    filtered on: a link taking it off), keyset and offset dropped.

    As _list_url builds them, with the list reversed and the other parameters encoded once
    for each facet rather than for each of its values (up to 220 tags).
    """
    path = reverse("memories:list")
    dropped = {"after", "before", "offset"}

    def links(facet: facets.Facet) -> Callable[[facets.FacetValue], dict]:
        current = params.get(facet.key)
        kept = urlencode(
            [
                (key, value)
                for key, values in params.lists()
                if key != facet.key and key not in dropped
                for value in values
            ]
        )

        def link(value: facets.FacetValue) -> dict:
            # A tag is filtered on in any case (reads.filters), and counted in lower case.
            selected = current is not None and (
                current.lower() == value.value if facet.key == "tag" else current == value.value
            )
            query = (
                kept
                if selected
                else "&".join(filter(None, [kept, urlencode([(facet.key, value.value)])]))
            )
            return {
                "label": value.label,
                "count": value.count,
                "selected": selected,
                "url": path + ("?" + query if query else ""),
            }

        return link

    found_links = []
    for facet in found:
        link = links(facet)
        found_links.append(
            {
                "key": facet.key,
                "title": facet.title,
                "values": [link(value) for value in facet.values],
                "more": [link(value) for value in facet.more],
                "others": facet.others,
            }
        )
    return found_links


@require_GET
@requires_role()
def memory_facets(request: HtmxHttpRequest) -> HttpResponse:
    """The counts per tier, load, tag, expiry and verification of what the list's filters
    admit, each a link adding its filter: loaded beside the list once it is drawn."""
    params = canonical_query(request.GET)
    form = MemoryListForm(params)
    if not form.is_valid():
        return error_response(request, 400, form.first_error())
    try:
        found = facets.facets(form.filters(), timezone.now())
    except DomainError as error:
        return error_response(request, error.status, error.message)
    context = {"facets": _facet_links(params, found), "list_url": _list_url(params)}
    return render_page(request, "memories/facets.html", context, fragment="facets")


def _row_response(request: HtmxHttpRequest, row: Row, status: int) -> HttpResponse:
    html = render_to_string(
        "memories/list.html#row",
        {"row": row, "list_url": safe_next(request, reverse("memories:list"))},
        request,
    )
    html += render_to_string(
        "memories/list.html#budget_oob", {"bands": budget.bands(timezone.now())}, request
    )
    return HttpResponse(html, status=status)


@require_POST
@requires_role()
def memory_row(request: HtmxHttpRequest, name: str) -> HttpResponse:
    """An inline edit of one row's priority or load, through the write door."""
    back = safe_next(request, reverse("memories:list"))
    try:
        project = tier_param(request.GET)
    except DomainError as error:
        return error_response(request, error.status, error.message)
    form = RowForm(request.POST)
    refusal, notice, status = "", "", 200
    if not form.is_valid():
        refusal, status = form.first_error(), 400
    else:
        try:
            result = doors.write(
                name,
                project=project,
                priority=form.cleaned_data["priority"],
                load=form.cleaned_data["load"] or None,
            )
        except DomainError as error:
            refusal, status = refusal_html(error), error.status
        else:
            notice = "" if result.changed else result.notes[0]
    if not request.htmx:
        if refusal:
            messages.error(request, format_html("'{}' was not changed: {}", name, refusal))
        elif notice:
            messages.info(request, notice)
        else:
            messages.success(request, f"Saved '{name}'.")
        return redirect(back)
    try:
        memory = lookup.locate(name, project)
    except DomainError as error:
        return error_response(request, error.status, error.message)
    row = Row(
        memory=memory,
        cited_by=backlinks.citation_counts([memory])[memory.id],
        expired=memory.is_expired(),
        links=RowLinks(),
        refusal=refusal,
        saved=not refusal and not notice,
        notice=notice,
    )
    return _row_response(request, row, status)


BULK_DOORS = {
    "set_priority": lambda ids, data: bulk.set_priority(ids, data["priority"]),
    "shift_priority": lambda ids, data: bulk.shift_priority(ids, data["shift"]),
    "set_load": lambda ids, data: bulk.set_load(ids, data["load"]),
    "verify": lambda ids, data: bulk.verify(ids),
    "move": lambda ids, data: bulk.move(ids, data["to"]),
    "delete": lambda ids, data: bulk.delete(ids),
    "add_tag": lambda ids, data: bulk.add_tag(ids, data["tag"]),
    "remove_tag": lambda ids, data: bulk.remove_tag(ids, data["tag"]),
}


def _done_sentence(action: str, data: dict, result: bulk.BulkResult) -> SafeString:
    """What a bulk action changed, what it left as it was, and the way back."""
    count = len(result.targets)
    noun = "memory" if count == 1 else "memories"
    if action == "set_priority":
        done = f"Set priority {data['priority']} on {count} {noun}."
    elif action == "shift_priority":
        done = f"Shifted the priority of {count} {noun} by {data['shift']:+d}."
    elif action == "set_load":
        done = f"Set load {data['load']} on {count} {noun}."
    elif action == "add_tag":
        done = f"Added the tag {data['tag']} to {count} {noun}."
    elif action == "remove_tag":
        done = f"Removed the tag {data['tag']} from {count} {noun}."
    elif action == "verify":
        done = f"Marked {count} {noun} verified."
    elif action == "move":
        done = f"Moved {count} {noun} to {tiers.noun(data['to'])}."
    else:
        done = f"Deleted {count} {noun}."
        still = sorted(
            {m.name for outcome in result.outcomes for m in outcome.referenced_by}
            - {m.name for m in result.targets}
        )
        if still:
            done += " Still referencing them, as markers to revisit: " + ", ".join(still) + "."
    if not count:
        done = "Nothing was changed."
    if result.unchanged:
        left = len(result.unchanged)
        done += (
            f" {left} {'memory holds' if left == 1 else 'memories hold'} that already: "
            "left as they were."
        )
    if result.change_set_id is None:
        return SafeString(escape(done))
    return format_html(
        '{} <a class="undo-link" href="{}#undo-heading">Undo this change set</a>',
        done,
        reverse("history:change_set", args=[result.change_set_id]),
    )


REFUSALS_NAMED = 5


def _refused_sentence(result: bulk.BulkResult) -> tuple[SafeString, dict[int, SafeString]]:
    """The banner of a refused batch and the note beside each refused row.

    The rows one band's budget refuses share one sentence, given once with its figures (those
    of the first row past the budget, in index order) and a link to that band's budget; each
    such row says only which band it would pass.
    """
    by_band: dict[str | None, list[bulk.BulkRefusal]] = {}
    refusals, others = {}, []
    for refusal in result.refused:
        error = refusal.error
        if isinstance(error, InlineBudgetExceeded):
            by_band.setdefault(error.band, []).append(refusal)
            refusals[refusal.memory.id] = format_html(
                "It would take {} past the inline budget (the reason is above the list).",
                band_words(error.band),
            )
        else:
            others.append(refusal)
            refusals[refusal.memory.id] = refusal_html(error)
    parts = []
    for refused in by_band.values():
        more = len(refused) - 1
        parts.append(
            format_html(
                "'{}'{}: {}",
                refused[0].memory.name,
                f" and {more} more after it" if more else "",
                refusal_html(refused[0].error),
            )
        )
    parts += [
        format_html("'{}': {}", r.memory.name, refusal_html(r.error))
        for r in others[:REFUSALS_NAMED]
    ]
    count, total = len(result.refused), len(result.targets)
    sentence = format_html(
        "Nothing was changed: {} of {} memories would be refused (each is marked on its row). {}",
        count,
        total,
        html_join(" ", parts),
    )
    return sentence, refusals


def _matching_ids(form: MemoryListForm) -> list[int]:
    """Every memory the list shows across its pages: the search's hits when it is a search."""
    filters, queries = form.filters(), form.cleaned_data["q"]
    if queries:
        result = search(queries, filters, limit=bulk.BULK_LIMIT + 1, mode=form.cleaned_data["mode"])
        ids, count = [hit.memory.id for hit in result.hits], result.count
    else:
        ids = listing.matching_ids(filters, limit=bulk.BULK_LIMIT + 1)
        count = len(ids)
        if count > bulk.BULK_LIMIT:
            count = listing.memories(filters).count()
    if count > bulk.BULK_LIMIT:
        raise DomainError(
            f"{count:,} memories match; a bulk action takes at most {bulk.BULK_LIMIT:,} at a "
            "time: narrow the filters or the search."
        )
    return ids


@require_POST
@requires_role()
def memory_bulk(request: HtmxHttpRequest) -> HttpResponse:
    """A bulk action on the selected rows, or on every row the list's filters match."""
    params = canonical_query(QueryDict(request.POST.get("query", "")))
    form = BulkForm(request.POST)
    if not form.is_valid():
        return _bulk_answer(request, params, form.first_error(), status=400)
    data = form.cleaned_data
    if data["scope"] == "matching":
        filters_form = MemoryListForm(params)
        if not filters_form.is_valid():
            return _bulk_answer(request, params, filters_form.first_error(), status=400)
        try:
            ids = _matching_ids(filters_form)
        except DomainError as error:
            return _bulk_answer(request, params, error.message, status=error.status)
    else:
        ids = data["id"]
    if data["action"] == "delete" and not data["confirm"]:
        return _confirm_delete(request, params, ids, data["scope"])
    try:
        result = BULK_DOORS[data["action"]](ids, data)
    except DomainError as error:
        return _bulk_answer(request, params, error.message, status=error.status)
    if result.refused:
        sentence, refusals = _refused_sentence(result)
        status = max(r.error.status for r in result.refused)
        return _bulk_answer(request, params, sentence, status=status, refusals=refusals)
    sentence = _done_sentence(data["action"], data, result)
    saved = {m.id for m in result.targets}
    return _bulk_answer(request, params, sentence, level="success", saved=saved)


def _bulk_answer(
    request: HtmxHttpRequest,
    params: QueryDict,
    sentence: str,
    *,
    status: int = 200,
    level: str = "error",
    refusals: dict[int, str] | None = None,
    saved=(),
) -> HttpResponse:
    """The list redrawn (refusals beside their rows) with the outcome in the flash area."""
    if not request.htmx:
        (messages.success if level == "success" else messages.error)(request, sentence)
        return redirect(_list_url(params))
    context = listing_context(params, refusals=refusals, saved=saved)
    html = render_to_string("memories/list.html#results", context, request)
    html += render_to_string("memories/list.html#budget_oob", context, request)
    html += render_to_string(
        "memories/list.html#flash_oob",
        {"messages": [{"level_tag": level, "message": sentence}]},
        request,
    )
    response = HttpResponse(html, status=status)
    push_url(response, _list_url(params))
    return response


def _confirm_delete(request, params: QueryDict, ids: list[int], scope: str) -> HttpResponse:
    """The memories a delete would remove, each with the memories still referencing it."""
    targets = lookup.memories_by_id(ids)
    if not targets:
        return _bulk_answer(request, params, "None of the selected memories exists any more.")
    citing = backlinks.referenced_by_each(targets)
    doomed = {m.id for m in targets}
    context = {
        "params": params,
        "list_url": _list_url(params),
        "scope": scope,
        "targets": [
            {
                "memory": m,
                "citing": [c for c in citing[m.id] if c.id not in doomed],
                "citing_doomed": [c for c in citing[m.id] if c.id in doomed],
            }
            for m in targets
        ],
    }
    return render_page(request, "memories/confirm_delete.html", context, fragment="confirm")
