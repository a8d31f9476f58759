"""The memory list: filters, sorting, keyset pages, inline edits of a row, bulk actions."""

from dataclasses import dataclass
from functools import partial
from urllib.parse import quote_plus

from django.contrib import messages
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import push_url

from memadmin.pages.memories import exports, page_numbers
from memadmin.pages.memories.columns import COLUMNS, HIDEABLE, hidden_columns
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
from memadmin.web.query import address, query_string
from memadmin.web.redrawn import on_refusal
from memadmin.web.refusals import refusal_html
from memadmin.web.responses import error_response
from memories.models import NAME_SLOT, Memory, memory_url, tier_query
from memories.reads import backlinks, budget, facets, find, lookup
from memories.reads.filters import DATES, FILTERS, ChangedByFilter, DateBound
from memories.reads.params import tier_param
from memories.reads.search import SEMANTIC, Hit, looks_cited
from memories.rules import fields as memory_fields
from memories.rules import tiers
from memories.rules.budget import band_words
from memories.rules.errors import DomainError, InlineBudgetExceeded
from memories.writes import bulk, doors
from projects.models import Project

# The default mode's value is blank, so a shared URL names a mode only when it is not the
# default (the form reads blank as hybrid).
MODE_CHOICES = (("", "words and meaning"), ("words", "words only"), ("meaning", "meaning only"))


class RowLinks:
    """The views a row links to, each reversed once for a page rather than once for each row
    (memories.models.memory_url puts each row's memory in)."""

    def __init__(self):
        self.detail = reverse("memories:detail", args=[NAME_SLOT])
        self.row = reverse("memories:row", args=[NAME_SLOT])
        self.list = address("memories:list")

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


def _choice_filters(params: QueryDict) -> list[dict]:
    """The filters of few values, each drawn as a select of its choices (filters.FILTERS)."""
    return [
        {
            "key": flt.key,
            "title": flt.title,
            "any": flt.any_choice,
            "options": [
                (value, words, params.get(flt.key) == value) for value, words in flt.choices
            ],
        }
        for flt in FILTERS
        if flt.choices
    ]


def _date_ranges(form) -> list[dict]:
    """Each date range of the filters (filters.DATES) as the form's two bound fields."""
    return [
        {
            "name": name,
            "words": words.capitalize(),
            "since": form[f"{name}_since"],
            "until": form[f"{name}_until"],
        }
        for name, _, words in DATES
    ]


def _recalled(hits: list[Hit]) -> bool:
    """Whether any hit was found by the query's words or references, not guessed by meaning
    alone (the fusion ranks the words' first hit first)."""
    return any(hit.matched_by != SEMANTIC for hit in hits)


def _list_url(params: QueryDict, view: str = "memories:list", **changes: str | None) -> str:
    """The list's address (or `view`'s) for these parameters, some replaced (a None value
    drops one)."""
    return address(view) + query_string(params, **changes)


PLACE = ("after", "before", "offset")  # where in the list a page is


def _placed(params: QueryDict, *, place: dict | None = None, **changes: str | None) -> str:
    """The list with these changes at the first page, or at `place` (a cursor or an offset)."""
    return _list_url(params, **{**changes, **dict.fromkeys(PLACE), **(place or {})})


def _headers(params: QueryDict, sort: str | None) -> list[dict]:
    """The header cells: a click sorts by the column, a second click reverses it.

    A search is in rank order, so its headers sort nothing (`sort` None).
    """
    headers = []
    for column in COLUMNS:
        header = {
            "key": column.key,
            "label": column.label,
            "numeric": column.numeric,
            "href": None,
            "direction": None,
        }
        if column.sorts and sort is not None:
            up, down = column.sorts
            target = down if sort == up and up != down else up
            if sort in (up, down):
                header["direction"] = "descending" if sort.startswith("-") else "ascending"
            header["href"] = _placed(params, sort=None if target == "index" else target)
        header["classes"] = " ".join(
            word
            for word, wanted in (("num", header["numeric"]), ("sortable", header["href"]))
            if wanted
        )
        headers.append(header)
    return headers


def listing_context(
    params: QueryDict,
    *,
    refusals: dict[int, str] | None = None,
    saved=(),
    hidden: list[str] | None = None,
) -> dict:
    """Everything the list's results show, for the page and for the fragments that redraw it:
    the find read's page (a search's hits, ranked and paged by offset; else a keyset page).
    `hidden`: the columns the person looking hides."""
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
        # A class: the template makes the form (bench/results/2026-12-04-figures-from-comments)
        # only when it draws the bulk controls,
        # which it keeps drawn per process.
        "bulk_form": BulkForm,
        "choice_filters": _choice_filters(params),
        "date_ranges": _date_ranges(form),
        "dates_set": any(
            params.get(flt.key) for flt in FILTERS if isinstance(flt, DateBound | ChangedByFilter)
        ),
        "mode_choices": MODE_CHOICES,
        "loads": memory_fields.LOADS,
        "bulk_actions": BULK_ACTIONS,
        "hidden_columns": hidden or [],
        "columns": [(key, label, key not in (hidden or ())) for key, label in HIDEABLE],
        "status": 200,
        "listing": None,
        "error": "",
        # Called by the template when it draws the budget strip, which a results fragment
        # does not.
        "bands": partial(budget.bands, now, projects),
    }
    if not form.is_valid():
        context.update(error=form.first_error(labelled=True), status=400)
        return context
    question = find.Question.of(form)
    limit, offset = form.cleaned_data["limit"], form.cleaned_data["offset"] or 0
    page = find.Page(
        limit=limit,
        offset=offset,
        after=form.cleaned_data["after"] or None,
        before=form.cleaned_data["before"] or None,
        keyset=not question.searched,
    )
    try:
        found = find.find(question, page, now=now, projects={p.id: p for p in projects})
    except DomainError as error:  # into a context, not an answer: so not on_refusal
        # A cursor no row has: the list says so where its rows would be, as a form error
        # does, so the bulk answers that redraw it keep their own status.
        context.update(error=error.message, status=error.status)
        return context
    whole = {"after": None, "before": None, "offset": None, "limit": None}
    memories = found.memories
    cited_by = found.cited_by or backlinks.citation_counts(memories)
    refusals, links = refusals or {}, RowLinks()
    context.update(
        csv_url=_list_url(params, format="csv", **whole),
        json_url=_list_url(params, format="json", **whole),
        facets_url=_list_url(params, "memories:facets", sort=None, **whole),
        filters=question.filters,
        sort=question.sort,
        headers=_headers(params, None if question.searched else question.sort),
        limit=limit,
        page_size_links=[
            (
                size,
                None if size == limit else _placed(params, limit=str(size)),
            )
            for size in PAGE_SIZES
        ],
        listing=found,
        searching=question.searched,
        count=found.count,
        count_more=found.more,
        summary=" ".join([found.summary, *found.notes]),
        rows=[
            Row(
                memory=memory,
                cited_by=cited_by[memory.id],
                expired=memory.is_expired(now),
                links=links,
                refusal=refusals.get(memory.id, ""),
                saved=memory.id in saved,
                hit=hit,
            )
            for memory, hit in found.with_hits()
        ],
    )
    context.update(
        _search_links(params, found, offset, limit)
        if question.searched
        else {
            "first_page_url": _placed(params),
            "next_page_url": _placed(params, place={"after": found.next_cursor})
            if found.next_cursor
            else None,
            "previous_page_url": _placed(params, place={"before": found.previous_cursor})
            if found.previous_cursor
            else None,
        }
    )
    counted = not (found.more or found.capped)
    context["page_numbers"] = page_numbers.page_numbers(
        found.count if counted else 0,
        offset if question.searched else found.start,
        limit,
        lambda at: _placed(params, place={"offset": str(at)} if at else None),
    )
    return context


def _search_links(params: QueryDict, found: find.Found, offset: int, limit: int) -> dict:
    """A search's pages by offset, and the Referencing filter offered for a query that reads
    as a path, URL or id when nothing holds it as text."""
    queries, filters = found.question.queries, found.question.filters
    cited = [query for query in queries if looks_cited(query)]
    return {
        "referencing_offer": _list_url(params, q=None, offset=None, referencing=cited[0])
        if cited and not filters.referencing and not _recalled(found.hits)
        else None,
        "first_page_url": _list_url(params, offset=None) if offset else None,
        "next_page_url": _list_url(params, offset=str(offset + limit))
        if offset + limit < found.count
        else None,
        "previous_page_url": _list_url(
            params, offset=str(offset - limit) if offset > limit else None
        )
        if offset
        else None,
    }


@require_GET
@requires_role()
def memory_list(request: HtmxHttpRequest) -> HttpResponse:
    params = canonical_query(request.GET)
    url = _list_url(params)
    if params.urlencode() != request.GET.urlencode() and not request.htmx:
        return redirect(url)
    if "format" in params:
        return exports.list_export(request, params, params["format"])
    context = listing_context(params, hidden=hidden_columns(request))
    response = render_page(
        request, "memories/list.html", context, fragment="results", status=context["status"]
    )
    if request.htmx:
        push_url(response, url)
    return response


def _facet_links(params: QueryDict, found: list[facets.Facet]) -> list[dict]:
    """Each facet's values as links adding their filter to the list's (a value already
    filtered on: a link taking it off), keyset and offset dropped."""
    path = reverse("memories:list")
    dropped = {"after": None, "before": None, "offset": None}

    def link(facet: facets.Facet, value: facets.FacetValue) -> dict:
        current = params.get(facet.key)
        # A tag is filtered on in any case (reads.filters), and counted in lower case.
        selected = current is not None and (
            current.lower() == value.value if facet.key == "tag" else current == value.value
        )
        selected = selected and all(params.get(key) == also for key, also in value.also)
        changes = {facet.key: None if selected else value.value}
        changes.update((key, None if selected else also) for key, also in value.also)
        return {
            "label": value.label,
            "count": value.count,
            "more": value.more,
            "selected": selected,
            "url": path + query_string(params, **dropped, **changes),
        }

    return [
        {
            "key": facet.key,
            "title": facet.title,
            "values": [link(facet, value) for value in facet.values],
            "more": [link(facet, value) for value in facet.more],
            "others": facet.others,
        }
        for facet in found
    ]


@require_GET
@requires_role()
def memory_facets(request: HtmxHttpRequest) -> HttpResponse:
    """The counts per tier, load, tag, expiry and verification of what the list's filters
    admit, each a link adding its filter: loaded beside the list once it is drawn."""
    params = canonical_query(request.GET)
    form = MemoryListForm(params)
    if not form.is_valid():
        return error_response(request, 400, form.first_error())
    found = facets.facets(form.filters(), timezone.now())
    context = {
        "facets": _facet_links(params, found),
        "list_url": _list_url(params),
        "months_url": _list_url(params, "memories:months", sort=None),
    }
    return render_page(request, "memories/facets.html", context, fragment="facets")


@require_GET
@requires_role()
def memory_months(request: HtmxHttpRequest) -> HttpResponse:
    """The date ranges' memories by month under the list's filters, each month a link setting
    its range: a pass over what the filters admit, so loaded when asked for."""
    params = canonical_query(request.GET)
    form = MemoryListForm(params)
    if not form.is_valid():
        return error_response(request, 400, form.first_error())
    found = facets.month_facets(form.filters(), timezone.now())
    context = {"facets": _facet_links(params, found), "list_url": _list_url(params)}
    return render_page(request, "memories/months.html", context, fragment="months")


def _row_answer(
    request: HtmxHttpRequest,
    name: str,
    project,
    *,
    refusal: str = "",
    notice: str = "",
    status: int = 200,
    edited: bool = True,
) -> HttpResponse:
    """The row drawn again with its edit's outcome beside it (its refusal, its notice, or
    saved) and the budget strip with it; without htmx, that outcome as a message on the list
    the edit came from. Not `edited`: the row as it stands (a live page's swap)."""
    if not request.htmx:
        if refusal:
            messages.error(request, format_html("'{}' was not changed: {}", name, refusal))
        elif notice:
            messages.info(request, notice)
        else:
            messages.success(request, f"Saved '{name}'.")
        return redirect(safe_next(request, reverse("memories:list")))
    memory = lookup.locate(name, project)
    row = Row(
        memory=memory,
        cited_by=backlinks.citation_counts([memory])[memory.id],
        expired=memory.is_expired(),
        links=RowLinks(),
        refusal=refusal,
        saved=edited and not refusal and not notice,
        notice=notice,
    )
    html = render_to_string(
        "memories/list.html#row",
        {"row": row, "list_url": safe_next(request, reverse("memories:list"))},
        request,
    )
    html += render_to_string(
        "memories/list.html#budget_oob", {"bands": budget.bands(timezone.now())}, request
    )
    return HttpResponse(html, status=status)


@require_http_methods(["GET", "POST"])
@requires_role()
def memory_row(request: HtmxHttpRequest, name: str) -> HttpResponse:
    """An inline edit of one row's priority or load, through the write door; GET, the row
    as it stands, for a live list to swap in (static/js/live.js)."""
    project = tier_param(request.GET)
    if request.method == "GET":
        if not request.htmx:
            return redirect(reverse("memories:list"))
        return _row_answer(request, name, project, edited=False)
    form = RowForm(request.POST)
    if not form.is_valid():
        return _row_answer(request, name, project, refusal=form.first_error(), status=400)
    with on_refusal(
        lambda error: _row_answer(
            request, name, project, refusal=refusal_html(error), status=error.status
        )
    ):
        result = doors.write(
            name,
            project=project,
            priority=form.cleaned_data["priority"],
            load=form.cleaned_data["load"] or None,
        )
    return _row_answer(request, name, project, notice="" if result.changed else result.notes[0])


def _done_sentence(action: str, data: dict, result: bulk.BulkResult) -> SafeString:
    """What a bulk action changed, what it left as it was, and the way back."""
    count = len(result.targets)
    noun = "memory" if count == 1 else "memories"
    if action == "set_priority":
        done = f"Set priority {data['priority']} on {count} {noun}."
    elif action == "shift_priority":
        by = data["shift"]
        done = f"Shifted the priority of {count} {noun} by {by:+d}."
        held = [m.name for m in result.targets if bulk.shifted(m, by) != m.priority + by]
        if held:
            bound = memory_fields.PRIORITY_MIN if by < 0 else memory_fields.PRIORITY_MAX
            done += (
                f" {', '.join(held)} stopped at {bound}, as priorities run"
                f" {memory_fields.PRIORITY_MIN} to {memory_fields.PRIORITY_MAX}."
            )
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


@require_POST
@requires_role()
def memory_bulk(request: HtmxHttpRequest) -> HttpResponse:
    """A bulk action on the selected rows, or on every row the list's filters match."""
    params = canonical_query(QueryDict(request.POST.get("query", "")))
    form = BulkForm(request.POST)
    if not form.is_valid():
        return _bulk_answer(request, params, form.first_error(), status=400)
    data = form.cleaned_data

    def refused(error: DomainError) -> HttpResponse:  # in the flash area, the list drawn again
        return _bulk_answer(request, params, error.message, status=error.status)

    if data["scope"] == "matching":
        filters_form = MemoryListForm(params)
        if not filters_form.is_valid():
            return _bulk_answer(request, params, filters_form.first_error(), status=400)
        with on_refusal(refused):
            ids = find.every_id(find.Question.of(filters_form), limit=bulk.BULK_LIMIT)
    else:
        ids = data["id"]
    if data["action"] == "delete" and not data["confirm"]:
        return _confirm_delete(request, params, ids, data["scope"])
    with on_refusal(refused):
        result = bulk.action(data["action"])(ids, data)
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
    context = listing_context(
        params, refusals=refusals, saved=saved, hidden=hidden_columns(request)
    )
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
