"""The list's data at the list's own address: `&format=csv` and `&format=json` (the /v1 shape),
every memory the filters admit (a search: its hits, best first, in the mode the page showed),
streamed."""

import json

from django.http import HttpResponse, QueryDict

from memadmin.pages.memories.forms import MemoryListForm
from memadmin.web.exports import csv_lines, download
from memadmin.web.responses import error_response
from memories.models import LIST_KEYS
from memories.reads import find

FORMATS = ("csv", "json")
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
    found = find.find(find.Question.of(form), find.EVERY)
    searched = found.question.searched
    columns = CSV_COLUMNS + (SEARCH_COLUMNS if searched else [])
    rows = found.dicts()
    if fmt == "csv":
        return download(csv_lines(columns, (_csv_row(d, columns) for d in rows)), fmt, "memories")
    more = {"last_resort": found.last_resort, "capped": found.capped} if searched else {}

    def chunks():
        yield '{"memories": ['
        for number, data in enumerate(rows):
            yield ("," if number else "") + json.dumps(data, ensure_ascii=False)
        summary = json.dumps(found.summary, ensure_ascii=False)
        tail = "".join(f", {json.dumps(key)}: {json.dumps(value)}" for key, value in more.items())
        yield f'], "count": {found.count}, "summary": {summary}{tail}}}'

    return download(chunks(), fmt, "memories")
