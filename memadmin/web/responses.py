"""Error answers of the dashboard: a page for a browser, a message in place for htmx; the
graphs' JSON."""

import orjson
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django_htmx.http import reswap, retarget

from memories import engine

RETRY_AFTER_SECONDS = 2  # a busy store's answer: try again after this
# The connection to the store's server lost mid-request; the next request opens another.
LOST_CONNECTION = "The connection to the store was lost; try again in a moment."


def retry_sentence(problem, busy: str) -> str | None:
    """The sentence of a 503 for a database error a retry in a moment gets past: the
    connection lost, or another writer holding the store (`busy`). None: not such an error."""
    config = engine.of(connection).config
    if config.is_lost(problem):
        return LOST_CONNECTION
    if config.is_busy(problem):
        return busy
    return None


TITLES = {
    400: "That request could not be read",
    403: "Not allowed",
    404: "Not found",
    405: "Not allowed here",
    409: "Refused",
    412: "Changed meanwhile",
    413: "Too large",
    500: "Something went wrong on the server",
    503: "The store is busy",
}


def error_response(request: HttpRequest, status: int, message: str) -> HttpResponse:
    """One human sentence, as a full page or, for an htmx request, in the page's flash area.

    The page need not be a signed-in one (sign-in pages and CSRF failures land here too),
    so the template gets no request context beyond what it is given.
    """
    title = TITLES.get(status, "Refused")
    if getattr(request, "htmx", False):
        html = render_to_string(
            "partials/flash.html", {"messages": [{"level_tag": "error", "message": message}]}
        )
        response = HttpResponse(html, status=status)
        return reswap(retarget(response, "#flash"), "innerHTML")
    html = render_to_string(
        "error.html", {"status": status, "title": title, "message": message}, request=request
    )
    return HttpResponse(html, status=status)


def json_error(message: str, status: int) -> JsonResponse:
    """A page script's refusal: {"error": the sentence}, at its status."""
    return JsonResponse({"error": message}, status=status)


def plain_json(data: dict) -> HttpResponse:
    """A JSON answer of plain values (text, whole numbers, booleans, null, lists and objects),
    what JsonResponse(data, json_dumps_params={"ensure_ascii": False}) says but written without
    the spaces after its separators, in a fraction of json's and ujson's time for a
    store-wide graph (bench/results/2026-12-01-graph-6;
    bench/results/2026-12-04-figures-from-comments)."""
    return HttpResponse(orjson.dumps(data), content_type="application/json")
