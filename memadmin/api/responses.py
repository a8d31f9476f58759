"""Every /v1 answer is JSON: the one error() helper, request parsing (the body, a query's
form, the tier a route names), and the dispatcher that turns a wrong method, a refusal or an
unexpected failure into JSON too."""

import json
import logging
from collections.abc import Callable
from functools import wraps

from django import forms
from django.conf import settings
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation, TooManyFieldsSent
from django.db import OperationalError
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from memadmin.web.responses import RETRY_AFTER_SECONDS, retry_sentence
from memories.reads.params import TierForm
from memories.rules.errors import BadRequest, DomainError

logger = logging.getLogger(__name__)

JSON_DEPTH_LIMIT = 50


def error(message: str, status: int, **details) -> JsonResponse:
    return JsonResponse(
        {"error": message, **details}, status=status, json_dumps_params={"ensure_ascii": False}
    )


def domain_error(refusal: DomainError) -> JsonResponse:
    return error(refusal.message, refusal.status, **refusal.details)


def ok(data: dict, status: int = 200, *, etag: str | None = None) -> JsonResponse:
    response = JsonResponse(data, status=status, json_dumps_params={"ensure_ascii": False})
    if etag is not None:
        response["ETag"] = etag
    return response


def valid(form):
    """The form, validated; an invalid one refuses the request with its first error. A number
    sent empty is refused too (a page's form sends its blank fields; a request to the API
    leaves out what it does not give)."""
    for name, field in form.fields.items():
        if isinstance(field, forms.IntegerField) and form.data.get(name) == "":
            raise BadRequest(f"{name} must be a whole number, not empty.", field=name)
    if not form.is_valid():
        field = form.first_error_field()
        raise BadRequest(form.first_error(), **({} if field is None else {"field": field}))
    return form


def query_tier(request: HttpRequest):
    """`project=` of a single-memory route: ANY_TIER absent, None empty, else a name."""
    return valid(TierForm(request.GET)).cleaned_data["project"]


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _check_text(value, depth: int = 0) -> None:
    """Lone surrogates cannot be stored as UTF-8; refuse them here rather than at the database."""
    if depth > JSON_DEPTH_LIMIT:
        raise BadRequest(f"The request body nests deeper than {JSON_DEPTH_LIMIT} levels.")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise BadRequest("The request body holds text that is not valid Unicode.") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(key, depth + 1)
            _check_text(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_text(item, depth + 1)


def json_body(request: HttpRequest, *, allowed: set[str], optional: bool = False) -> dict:
    """The request body as a JSON object holding only `allowed` keys.

    `optional`: an empty body reads as {}.
    """
    raw = request.body
    if optional and not raw.strip():
        return {}
    try:
        data = json.loads(raw, parse_constant=_reject_constant)
    except RecursionError:
        raise BadRequest(f"The request body nests deeper than {JSON_DEPTH_LIMIT} levels.") from None
    except ValueError as problem:
        raise BadRequest(f"The request body is not valid JSON ({problem}).") from None
    if not isinstance(data, dict):
        raise BadRequest("The request body must be a JSON object.")
    _check_text(data)
    unknown = sorted(set(data) - allowed)
    if unknown:
        listed = ", ".join(f"'{key}'" for key in unknown)
        raise BadRequest(
            f"Unknown field {listed}; this route takes {', '.join(sorted(allowed))}.",
            field=unknown[0],
        )
    return data


def unreadable(problem: SuspiciousOperation) -> JsonResponse:
    """A body over the limit (413, with the limit) or a request Django would not read (400)."""
    if isinstance(problem, RequestDataTooBig):
        return error(
            "The request body is larger than this server accepts.",
            413,
            max_bytes=getattr(problem, "limit", settings.DATA_UPLOAD_MAX_MEMORY_SIZE),
        )
    if isinstance(problem, TooManyFieldsSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        return error(
            f"The request carries more than {limit:,} parameters; this server reads at most "
            f"{limit:,}.",
            400,
        )
    return error(f"The request was refused: {problem}.", 400)


def refuse_unknown_query(request: HttpRequest, accepted: frozenset[str]) -> None:
    """A query parameter the route does not take is refused by name, never ignored."""
    unknown = sorted(set(request.GET) - accepted)
    if not unknown:
        return
    listed = ", ".join(f"'{key}'" for key in unknown)
    takes = ", ".join(sorted(accepted)) or "none"
    noun = "parameter" if len(unknown) == 1 else "parameters"
    raise BadRequest(
        f"Unknown query {noun} {listed}; {request.method} {request.path} takes {takes}.",
        field=unknown[0],
    )


def methods(*, query: dict[str, frozenset[str]] | None = None, **handlers: Callable) -> Callable:
    """One URL, one view per HTTP method; anything else is a JSON 405 with Allow. `query`
    names the query parameters each method takes (any other is refused, 400).

    Refusals become their JSON error, an oversized body a 413, and anything unexpected a
    JSON 500 (a busy database a 503 with Retry-After) instead of Django's HTML page.
    """
    if "GET" in handlers:
        handlers.setdefault("HEAD", handlers["GET"])
    if query is not None and "GET" in query:
        query.setdefault("HEAD", query["GET"])
    allow = ", ".join(sorted(handlers))

    @csrf_exempt
    @wraps(next(iter(handlers.values())))
    def dispatch(request: HttpRequest, **kwargs):
        handler = handlers.get(request.method)
        if handler is None:
            response = error(
                f"{request.method} is not allowed on {request.path}; use {allow}.",
                405,
                allowed=sorted(handlers),
            )
            response["Allow"] = allow
            return response
        try:
            if query is not None:
                accepted = query.get(request.method, frozenset())
                if getattr(handler, "authorizes", False):
                    request.accepted_query = accepted  # checked once the token is known
                else:
                    refuse_unknown_query(request, accepted)
            return handler(request, **kwargs)
        except DomainError as refusal:
            return domain_error(refusal)
        except SuspiciousOperation as problem:
            return unreadable(problem)
        except OperationalError as problem:
            sentence = retry_sentence(
                problem, "The store is busy with another write; retry in a moment."
            )
            if sentence is None:
                logger.exception("database failure under %s", request.path)
                return error("The store could not complete this request; try again.", 500)
            response = error(sentence, 503, retry_after=RETRY_AFTER_SECONDS)
            response["Retry-After"] = str(RETRY_AFTER_SECONDS)
            return response
        except Exception:
            logger.exception("unexpected failure under %s", request.path)
            return error("Something failed on the server; its log says what.", 500)

    return dispatch


def _under_api(request: HttpRequest) -> bool:
    return request.path == "/v1" or request.path.startswith("/v1/")


def json_under_api(page_handler: Callable, status: int, message: str) -> Callable:
    """A root error handler (handler400, handler500...) that answers JSON under /v1, for
    failures before or outside the API's views (a Host this server does not serve, a failing
    middleware), and leaves every other path to the dashboard's page."""

    @wraps(page_handler)
    def handler(request: HttpRequest, *args, **kwargs):
        if _under_api(request):
            problem = args[0] if args else kwargs.get("exception")
            if isinstance(problem, RequestDataTooBig):  # RequestSizeMiddleware's refusal
                return unreadable(problem)
            return error(message, status)
        return page_handler(request, *args, **kwargs)

    return handler
