"""/v1 history: a memory's revisions and the audit log, from the reads the pages use."""

from dataclasses import replace

from django.http import HttpRequest, QueryDict

from memadmin.api.auth import READ, authorize
from memadmin.api.responses import ok, query_tier, valid
from memories.reads import history as history_reads
from memories.reads import lookup
from memories.reads.history import AuditFilterForm, LogPage


def _page(page: LogPage, **extra) -> dict:
    return {
        **extra,
        "revisions": [entry.to_dict() for entry in page.entries],
        "count": page.count,
        "older": page.older,
        "newer": page.newer,
    }


def _read(form: AuditFilterForm) -> dict:
    data = valid(form).cleaned_data
    return {
        "limit": data["limit"] or history_reads.DEFAULT_LIMIT,
        "before": data["before"],
        "after": data["after"],
    }


@authorize(READ)
def memory_history(request: HttpRequest, name: str):
    """The memory's revisions, newest first; the audit filters narrow them."""
    memory = lookup.locate(name, query_tier(request))
    params = QueryDict(mutable=True)
    for key, values in request.GET.lists():
        if key not in ("project", "memory"):
            params.setlist(key, values)
    form = AuditFilterForm(params)
    paging = _read(form)
    filters = replace(form.filters(), memory_id=memory.id)
    page = history_reads.log_page(filters, **paging)
    return ok(
        _page(page, memory={"id": memory.id, "name": memory.name, "project": memory.project_name})
    )


@authorize(READ)
def audit(request: HttpRequest):
    """Every change the filters admit, newest first, by keyset pages."""
    form = AuditFilterForm(request.GET)
    paging = _read(form)
    filters = form.filters()
    page = history_reads.log_page(filters, **paging)
    return ok(_page(page, summary=filters.summary(page.count)))
