"""/v1/graph, /v1/memories/{name}/graph, /v1/hygiene and its consolidation plan: the audit
pages' data as JSON, from the same reads (memories.reads.graph, hygiene, consolidation) and
the same parameter forms; applying the plan goes through memories.writes.consolidation."""

from django.http import HttpRequest
from django.utils import timezone

from memadmin.api.auth import READ, WRITE, authorize
from memadmin.api.responses import json_body, ok, query_tier, valid
from memadmin.web.responses import plain_json
from memories.reads import consolidation, graph, hygiene, lookup
from memories.reads.insight_forms import (
    ConsolidationForm,
    GraphForm,
    HygieneForm,
    NeighbourhoodForm,
)
from memories.rules.errors import BadRequest
from memories.writes import consolidation as consolidate


@authorize(READ)
def store_graph(request: HttpRequest):
    """The store-wide backlink graph of the memories the filters admit."""
    form = valid(GraphForm(request.GET))
    return plain_json(graph.store_graph(form.filters(), cap=form.cleaned_data["limit"]).to_dict())


@authorize(READ)
def memory_graph(request: HttpRequest, name: str):
    """One memory's neighbourhood: `project=` names its tier, `depth` 1 to 3."""
    tier = query_tier(request)
    form = valid(NeighbourhoodForm(request.GET))
    memory = lookup.locate(name, tier)
    found = graph.neighbourhood(memory, form.cleaned_data["depth"], cap=form.cleaned_data["limit"])
    return plain_json(found.to_dict())


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


@authorize(READ)
def consolidation_plan(request: HttpRequest):
    """The consolidation review's plan: clusters of duplicates within a tier, each merged
    into its survivor, with the key that applies it."""
    form = valid(ConsolidationForm(request.GET))
    now = timezone.now()
    found = consolidation.plan(
        form.cleaned_data["project"], limit=form.cleaned_data["limit"], now=now
    )
    return ok(found.to_dict(now))


@authorize(WRITE)
def apply_consolidation(request: HttpRequest):
    """Apply the clusters named by their keys (`{"clusters": [key, ...]}`), each one change
    set; the receipt counts planned, applied, refused and skipped. A review's key (a member
    that says something its survivor does not) is applied only with `"reviewed": true`."""
    data = json_body(request, allowed={"clusters", "reviewed"})
    reviewed = data.get("reviewed", False)
    if not isinstance(reviewed, bool):
        raise BadRequest("reviewed is true or false.", field="reviewed")
    return ok(consolidate.apply(data.get("clusters"), reviewed=reviewed).to_dict())
