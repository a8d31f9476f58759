"""The pages a team lead audits with: backlink graphs, the budget report, hygiene.

Each page's data comes from a read that /v1 returns as JSON too (memories.reads: graph,
hygiene, budget_report with band_cut and drift).
The views parse, call them and render; the few writes (verify, set load, set priority,
applying the consolidation plan) go through the doors and answer operators only.
"""

from django.conf import settings
from django.contrib import messages
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import push_url

from memadmin.pages.query import ANY_TIER_VALUE, canonical_query
from memadmin.web import charts
from memadmin.web.access import requires_role
from memadmin.web.http import HtmxHttpRequest, render_page, safe_next
from memadmin.web.middleware import refuses_in_json
from memadmin.web.responses import error_response, json_error, plain_json
from memories.reads import band_cut, budget_report, consolidation, drift, graph, hygiene, lookup
from memories.reads.agent_view import TierReads
from memories.reads.filters import PERIOD_CHOICES
from memories.reads.insight_forms import (
    HYGIENE_SECTIONS,
    NODE_CAPS,
    ConsolidationForm,
    GraphForm,
    HygieneForm,
    IdsForm,
    NeighbourhoodForm,
)
from memories.reads.params import session_project, tier_param
from memories.rules import budget
from memories.rules.fields import LOADS, period_words
from memories.writes import bulk
from memories.writes import consolidation as consolidate
from projects.models import Project

SUMMARY_ITEMS = 5
MISMATCHES_SHOWN = 25


def _url(viewname: str, params: QueryDict, *, args=(), **more) -> str:
    """A page's address with these parameters (and more), blank ones left out."""
    query = params.copy()
    for key, value in more.items():
        query[key] = str(value)
    encoded = query.urlencode()
    return reverse(viewname, args=args) + ("?" + encoded if encoded else "")


def _pushed(request: HtmxHttpRequest, response: HttpResponse, url: str) -> HttpResponse:
    """An htmx swap puts the page's canonical address in the bar, so it can be shared."""
    return push_url(response, url) if request.htmx else response


# --- graphs ---------------------------------------------------------------------------------


def _graph_form(request: HtmxHttpRequest) -> tuple[GraphForm, object]:
    params = canonical_query(request.GET)
    params.pop("view", None)
    if params.get("limit") == str(graph.DEFAULT_NODE_CAP):
        params.pop("limit")  # the default says nothing in a shared address
    return GraphForm(params), params


@require_GET
@requires_role()
def graph_page(request: HtmxHttpRequest) -> HttpResponse:
    """The store-wide graph: drawn by static/js/graph.js from graph_data, or as a table."""
    form, params = _graph_form(request)
    if not form.is_valid():
        return error_response(request, 400, form.first_error())
    table = request.GET.get("view") == "table"
    context = {
        "form": form,
        "params": params,
        "query": params.urlencode(),
        "projects": Project.objects.names(),
        "loads": LOADS,
        # A cap the address asks for beside the usual ones, so that the form shows it.
        "caps": sorted({*NODE_CAPS, form.cleaned_data["limit"]}),
        "cap": form.cleaned_data["limit"],
        "any_tier_value": ANY_TIER_VALUE,
        "table": table,
        "data_url": _url("insights:graph-data", params),
        "picture_url": _url("insights:graph", params),
        "table_url": _url("insights:graph", params, view="table"),
    }
    if table:
        context["graph"] = graph.store_graph(form.filters(), cap=form.cleaned_data["limit"])
    response = render_page(request, "insights/graph.html", context, fragment="graph")
    return _pushed(request, response, context["table_url" if table else "picture_url"])


@refuses_in_json
@require_GET
@requires_role()
def graph_data(request: HtmxHttpRequest) -> HttpResponse:
    """The store-wide graph as JSON, for the page's script (/v1/graph for scripts)."""
    form, _ = _graph_form(request)
    if not form.is_valid():
        return json_error(form.first_error(), 400)
    found = graph.store_graph(form.filters(), cap=form.cleaned_data["limit"])
    return plain_json(found.to_dict())


def _neighbourhood(request: HtmxHttpRequest, name: str):
    """(memory, graph, form) or an answer to give instead."""
    form = NeighbourhoodForm(request.GET)
    if not form.is_valid():
        return None, error_response(request, 400, form.first_error())
    memory = lookup.locate(name, tier_param(request.GET))
    depth, cap = form.cleaned_data["depth"], form.cleaned_data["limit"]
    return (memory, graph.neighbourhood(memory, depth, cap=cap), depth), None


@require_GET
@requires_role()
def around_page(request: HtmxHttpRequest, name: str) -> HttpResponse:
    """One memory's neighbourhood at depth 1 to 3: the picture and the same as a table. The
    memory's page loads its fragment in place."""
    found, answer = _neighbourhood(request, name)
    if answer is not None:
        return answer
    memory, neighbourhood, depth = found
    tier = QueryDict(mutable=True)
    tier["project"] = memory.project_name or ""
    here = _url("insights:around", tier, args=[memory.name], depth=depth)
    context = {
        "memory": memory,
        "graph": neighbourhood,
        "depth": depth,
        "depths": range(1, graph.MAX_DEPTH + 1),
        "tier_query": tier.urlencode(),
        "table_url": here,
        "data_url": _url("insights:around-data", tier, args=[memory.name], depth=depth),
    }
    return render_page(request, "insights/around.html", context, fragment="around")


@refuses_in_json
@require_GET
@requires_role()
def around_data(request: HtmxHttpRequest, name: str) -> HttpResponse:
    form = NeighbourhoodForm(request.GET)
    if not form.is_valid():
        return json_error(form.first_error(), 400)
    memory = lookup.locate(name, tier_param(request.GET))
    found = graph.neighbourhood(memory, form.cleaned_data["depth"], cap=form.cleaned_data["limit"])
    return plain_json(found.to_dict())


# --- budget report --------------------------------------------------------------------------


def _band_chart(report: budget_report.BudgetReport):
    rows = [
        charts.Row(
            label=band.project or "no project",
            parts=[
                charts.Part(
                    band.global_bytes, "part-global", f"global: {band.global_bytes:,} bytes"
                ),
                charts.Part(
                    band.project_bytes,
                    "part-project",
                    f"{band.project}: {band.project_bytes:,} bytes",
                ),
            ],
            figure=f"{budget.kib(band.inline_bytes)} of {budget.kib(band.budget_bytes)}",
        )
        for band in report.bands
    ]
    return charts.stacked_bars(
        rows,
        report.budget_bytes,
        title="Inline bytes of each band against the inline budget",
        limit_label=f"budget {budget.kib(report.budget_bytes)}",
    )


def _histograms(histograms: list[drift.Histogram]) -> list[dict]:
    return [
        {
            "histogram": h,
            "chart": charts.histogram(
                h.counts,
                title=f"Priorities of the {h.tier} tier: {h.total:,} memories",
                highlight_max=drift.IMPORTANT_MAX,
            ),
            "rows": charts.histogram_rows(h.counts),
        }
        for h in histograms
    ]


@require_GET
@requires_role()
def budget_page(request: HtmxHttpRequest) -> HttpResponse:
    """Every band against the inline budget, one band in detail (`project`), and the drift
    of priorities."""
    projects = list(Project.objects.order_by("name"))
    project = session_project(request.GET, among=projects)
    now = timezone.now()
    reads = TierReads(now)
    reads.know_projects(projects)
    band_only = request.htmx and not request.htmx.history_restore_request
    if not band_only:
        reads.expect_every_tier()  # the report beside the band reads them all
    detail = band_cut.band_detail(project, now, reads=reads)
    context = {
        "project": project,
        "detail": detail,
        "projects": [p.name for p in projects],
        "next": request.get_full_path(),
        "index_max_bytes": settings.MEMADMIN_INDEX_MAX_BYTES,
        "index_max_entries": settings.MEMADMIN_INDEX_MAX_ENTRIES,
    }
    if band_only:
        return render_page(request, "insights/budget.html", context, fragment="band")
    report = budget_report.budget_report(now, reads=reads, projects=projects)
    context.update(
        report=report,
        band_chart=_band_chart(report),
        histograms=_histograms(drift.priority_histograms(projects)),
        unread=drift.important_unread(limit=MISMATCHES_SHOWN, now=now),
        often=drift.unimportant_read_often(limit=MISMATCHES_SHOWN, now=now),
        important_max=drift.IMPORTANT_MAX,
        unimportant_min=drift.UNIMPORTANT_MIN,
        often_read=drift.OFTEN_READ,
        suggested_priority=drift.SUGGESTED_PRIORITY,
    )
    return render_page(request, "insights/budget.html", context)


def _bulk_done(request: HtmxHttpRequest, result: bulk.BulkResult, done: str) -> None:
    if result.missing:
        gone = "memory no longer exists" if result.missing == 1 else "memories no longer exist"
        messages.warning(request, f"{result.missing} of the chosen {gone}.")
    if result.refused:
        for refusal in result.refused:
            messages.error(request, f"{refusal.memory.name}: {refusal.error.message}")
        messages.error(request, "Nothing was changed.")
    elif result.targets:
        count = len(result.targets)
        noun = "memory" if count == 1 else "memories"
        messages.success(request, done.format(count=count, noun=noun))


@require_POST
@requires_role()
def set_load_index(request: HtmxHttpRequest) -> HttpResponse:
    """One click on the budget report: set load: index on an inline memory (doors.write)."""
    form = IdsForm(request.POST)
    if not form.is_valid():
        return error_response(request, 400, form.errors["id"][0])
    result = bulk.set_load(form.cleaned_data["id"], "index")
    _bulk_done(request, result, "Set load: index on {count} {noun}; the band no longer spends it.")
    return redirect(safe_next(request, reverse("insights:budget")))


@require_POST
@requires_role()
def set_priority(request: HtmxHttpRequest) -> HttpResponse:
    """One click on a drift suggestion: the suggested priority, through the doors."""
    form = IdsForm(request.POST)
    if not form.is_valid():
        return error_response(request, 400, form.errors["id"][0])
    result = bulk.set_priority(form.cleaned_data["id"], drift.SUGGESTED_PRIORITY)
    _bulk_done(request, result, f"Set priority {drift.SUGGESTED_PRIORITY} on {{count}} {{noun}}.")
    return redirect(safe_next(request, reverse("insights:budget")))


# --- hygiene --------------------------------------------------------------------------------


def _hygiene_context(request: HtmxHttpRequest, form: HygieneForm, params) -> dict:
    return {
        "form": form,
        "params": params,
        "query": params.urlencode(),
        "projects": Project.objects.names(),
        "any_tier_value": ANY_TIER_VALUE,
        "sections": HYGIENE_SECTIONS,
        "period": form.cleaned_data["unverified"],
        "period_words": period_words(form.cleaned_data["unverified"]),
        "period_choices": PERIOD_CHOICES,
        "next": request.get_full_path(),
    }


def _hygiene_form(request: HtmxHttpRequest):
    params = canonical_query(request.GET)
    form = HygieneForm(params)
    return form, params


@require_GET
@requires_role()
def hygiene_page(request: HtmxHttpRequest) -> HttpResponse:
    """Every hygiene list at a glance: how many each holds and its first few."""
    form, params = _hygiene_form(request)
    if not form.is_valid():
        return error_response(request, 400, form.first_error())
    context = _hygiene_context(request, form, params)
    context["report"] = hygiene.report(
        form.scope(), period=form.cleaned_data["unverified"], limit=SUMMARY_ITEMS
    )
    response = render_page(request, "insights/hygiene.html", context, fragment="report")
    return _pushed(request, response, _url("insights:hygiene", params))


@require_GET
@requires_role()
def hygiene_section(request: HtmxHttpRequest, section: str) -> HttpResponse:
    """One hygiene list, a page at a time, with its fixes at hand."""
    if section not in HYGIENE_SECTIONS:
        return error_response(request, 404, f"There is no hygiene list named '{section}'.")
    form, params = _hygiene_form(request)
    if not form.is_valid():
        return error_response(request, 400, form.first_error())
    context = _hygiene_context(request, form, params)
    context["found"] = hygiene.section(
        section,
        form.scope(),
        period=form.cleaned_data["unverified"],
        limit=form.cleaned_data["limit"],
        offset=form.cleaned_data["offset"],
    )
    context.update(section=section, title=HYGIENE_SECTIONS[section])
    paged = params.copy()
    paged.pop("offset", None)
    context["paged_query"] = paged.urlencode()
    response = render_page(request, "insights/hygiene_section.html", context, fragment="section")
    return _pushed(request, response, _url("insights:hygiene-section", params, args=[section]))


@require_POST
@requires_role()
def verify(request: HtmxHttpRequest) -> HttpResponse:
    """Mark memories verified: one from its row, or every one ticked (bulk.verify)."""
    form = IdsForm(request.POST)
    if not form.is_valid():
        return error_response(request, 400, form.errors["id"][0])
    result = bulk.verify(form.cleaned_data["id"])
    _bulk_done(request, result, "Marked {count} {noun} verified.")
    return redirect(safe_next(request, reverse("insights:hygiene-section", args=["unverified"])))


@require_GET
@requires_role()
def compare(request: HtmxHttpRequest) -> HttpResponse:
    """Up to four memories side by side, marked where each differs from the first."""
    form = IdsForm(request.GET)
    if not form.is_valid():
        return error_response(request, 400, form.errors["id"][0])
    comparison = hygiene.compare(form.cleaned_data["id"])
    if not comparison.memories:
        return error_response(request, 404, "None of those memories exists any more.")
    columns = list(
        zip(
            comparison.memories,
            comparison.descriptions,
            comparison.bodies,
            comparison.ratios,
            comparison.differing,
            strict=True,
        )
    )
    return render_page(
        request, "insights/compare.html", {"columns": columns, "now": timezone.now()}
    )


@require_http_methods(["GET", "HEAD", "POST"])
@requires_role()
def consolidation_page(request: HtmxHttpRequest) -> HttpResponse:
    """The consolidation review: the plan of each cluster of duplicates; a POST applies the
    clusters whose keys it sends (one, or the whole plan shown; `reviewed=1`: a member merged
    by hand after its differences were read) and shows the receipt above the plan drawn
    again."""
    params = canonical_query(request.GET)
    form = ConsolidationForm(params)
    if not form.is_valid():
        return error_response(request, 400, form.first_error())
    receipt = None
    if request.method == "POST":
        receipt = consolidate.apply(
            request.POST.getlist("key"), reviewed=request.POST.get("reviewed") == "1"
        )
    found = consolidation.plan(form.cleaned_data["project"], limit=form.cleaned_data["limit"])
    context = {
        "params": params,
        "query": params.urlencode(),
        "projects": Project.objects.names(),
        "any_tier_value": ANY_TIER_VALUE,
        "plan": found,
        "receipt": receipt,
        "action": _url("insights:consolidation", params),
    }
    response = render_page(request, "insights/consolidation.html", context, fragment="plan")
    return _pushed(request, response, context["action"])
