"""/v1/graph, /v1/memories/{name}/graph and /v1/hygiene: the audit pages' data as JSON, from
the same reads (memories.reads.graph, memories.reads.hygiene) and the same parameter forms."""

from django.http import HttpRequest
from django.utils import timezone

from memadmin.api.auth import READ, authorize
from memadmin.api.responses import ok, query_tier, valid
from memories.reads import graph, hygiene, lookup
from memories.reads.insight_forms import GraphForm, HygieneForm, NeighbourhoodForm
from memories.rules.errors import BadRequest


@authorize(READ)
def store_graph(request: HttpRequest):
    """The store-wide backlink graph of the memories the filters admit."""
    form = valid(GraphForm(request.GET))
    return ok(graph.store_graph(form.filters(), cap=form.cleaned_data["limit"]).to_dict())


@authorize(READ)
def memory_graph(request: HttpRequest, name: str):
    """One memory's neighbourhood: `project=` names its tier, `depth` 1 to 3."""
    tier = query_tier(request)
    form = valid(NeighbourhoodForm(request.GET))
    memory = lookup.locate(name, tier)
    found = graph.neighbourhood(memory, form.cleaned_data["depth"], cap=form.cleaned_data["limit"])
    return ok(found.to_dict())


@authorize(READ)
def hygiene_report(request: HttpRequest):
    """Every hygiene list (or `section=` one), a page of each and its count."""
    form = valid(HygieneForm(request.GET))
    now = timezone.now()
    period, section = form.cleaned_data["unverified"], form.cleaned_data["section"]
    if section:
        found = hygiene.section(
            section,
            form.scope(),
            period=period,
            limit=form.cleaned_data["limit"],
            offset=form.cleaned_data["offset"],
            now=now,
        )
        return ok({"period": period, section: found.to_dict(now)})
    if form.cleaned_data["offset"]:
        raise BadRequest("offset pages one list: name it with section=.", field="offset")
    report = hygiene.report(form.scope(), period=period, limit=form.cleaned_data["limit"], now=now)
    return ok(report.to_dict(now))
