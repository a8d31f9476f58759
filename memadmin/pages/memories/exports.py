"""The list's data at the list's own address: `&format=csv` and `&format=json` (the /v1 shape),
every memory the filters admit (a search: its hits, best first), streamed."""

import json

from django.http import HttpResponse, QueryDict
from django.utils import timezone

from memadmin.pages.memories.forms import MemoryListForm
from memadmin.web.exports import csv_lines, download
from memadmin.web.responses import error_response
from memories.models import LIST_KEYS
from memories.reads import listing
from memories.reads.search import search
from memories.rules.errors import DomainError

FORMATS = ("csv", "json")
SEARCH_EXPORT_MAX = 10_000  # hits of a search exported, best first
CHUNK = 500
CSV_COLUMNS = list(LIST_KEYS)
SEARCH_COLUMNS = ["score", "matched_by"]


def _csv_row(data: dict, columns: list[str]) -> list:
    return ["\n".join(data[key]) if isinstance(data[key], list) else data[key] for key in columns]


def list_export(request, params: QueryDict, fmt: str) -> HttpResponse:
    if fmt not in FORMATS:
        return error_response(request, 400, "format is csv or json.")
    form = MemoryListForm(params)
    if not form.is_valid():
        return error_response(request, 400, form.first_error())
    filters, queries = form.filters(), form.cleaned_data["q"]
    now = timezone.now()
    try:
        if queries:
            found = search(queries, filters, limit=SEARCH_EXPORT_MAX, now=now)
            count, rows = found.count, (hit.to_dict(now) for hit in found.hits)
            columns = CSV_COLUMNS + SEARCH_COLUMNS
            more = {"last_resort": found.last_resort, "capped": found.capped}
        else:
            sort = form.cleaned_data["sort"]
            memories = listing.memories(filters, sort=sort, now=now).defer("body")
            count = memories.count()
            rows = (memory.to_dict(now) for memory in memories.iterator(chunk_size=CHUNK))
            columns = CSV_COLUMNS
            more = {}
    except DomainError as error:
        return error_response(request, error.status, error.message)
    if fmt == "csv":
        return download(csv_lines(columns, (_csv_row(d, columns) for d in rows)), fmt, "memories")

    def chunks():
        yield '{"memories": ['
        for number, data in enumerate(rows):
            yield ("," if number else "") + json.dumps(data, ensure_ascii=False)
        summary = json.dumps(filters.summary(count, searched=bool(queries)), ensure_ascii=False)
        tail = "".join(f", {json.dumps(key)}: {json.dumps(value)}" for key, value in more.items())
        yield f'], "count": {count}, "summary": {summary}{tail}}}'

    return download(chunks(), fmt, "memories")
