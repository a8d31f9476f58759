"""Data the pages hand out as files: CSV a spreadsheet opens safely, streamed row by row."""

import contextvars
import csv
from collections.abc import Iterator

from django.http import StreamingHttpResponse
from django.utils import timezone


def csv_value(value) -> str:
    """Text a spreadsheet will not run as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


class _Echo:
    def write(self, value: str) -> str:
        return value


def csv_lines(header: list[str], rows):
    """The CSV text of `header` then each row (an iterable of values), a line at a time."""
    writer = csv.writer(_Echo())
    yield writer.writerow(header)
    for row in rows:
        yield writer.writerow(csv_value(value) for value in row)


def in_this_context(chunks) -> Iterator:
    """`chunks` read, each, in the context of the request that made them: a streamed body is
    read after the view has returned and its middleware has closed the caller's reach
    (memories.rules.reach), which its reads must still stop at."""
    context = contextvars.copy_context()  # now, not at the first chunk: that comes later
    return _read_in(context, iter(chunks))


def _read_in(context: contextvars.Context, chunks: Iterator) -> Iterator:
    while True:
        try:
            yield context.run(next, chunks)
        except StopIteration:
            return


def download(chunks, fmt: str, name: str) -> StreamingHttpResponse:
    """`chunks` streamed as a file `memadmin-<name>-<time>.<fmt>` (csv or json)."""
    content_type = "text/csv; charset=utf-8" if fmt == "csv" else "application/json"
    response = StreamingHttpResponse(in_this_context(chunks), content_type=content_type)
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response["Content-Disposition"] = f'attachment; filename="memadmin-{name}-{stamp}.{fmt}"'
    return response
