"""Security headers Django 5.2 does not set by itself, request bodies held to their view's
limit before anything reads them, and the page answers to a busy store and to a refusal."""

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import OperationalError
from django.http import HttpRequest, HttpResponse

from memadmin.web.redrawn import Redrawn
from memadmin.web.responses import (
    RETRY_AFTER_SECONDS,
    error_response,
    json_error,
    retry_sentence,
)
from memories.rules.errors import DomainError

# Our own static files and nothing else: no inline script or style, no other origin, no
# frames, no plugins; forms post only to us. htmx's requests are same-origin (connect-src).
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "font-src 'self'",
        "connect-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    ]
)
PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"


class SecurityHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response


class BusyStoreMiddleware:
    """A page whose write found the store held by another writer past the busy timeout, or
    lost its connection to the store's server, answers 503 with Retry-After and a sentence,
    not a 500 (/v1 answers its own JSON)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception):
        if not isinstance(exception, OperationalError):
            return None
        sentence = retry_sentence(
            exception, "The store is busy with another write; try again in a moment."
        )
        if sentence is None:
            return None
        response = error_response(request, 503, sentence)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response


# Paths whose views answer a refusal in their own protocol: /v1 its JSON error
# (api.responses.methods), /mcp its tool error.
OWN_REFUSALS = ("/v1", "/mcp")


def refuses_in_json(view: Callable) -> Callable:
    """Mark a page view answering its page's script: a refusal it lets out answers as JSON
    (json_error), not as a page."""
    view.refuses_in_json = True
    return view


class DomainErrorPageMiddleware:
    """A refusal (DomainError) a page view lets out answers as error_response: its status and
    sentence, as a page, or for htmx in the page's flash area; as JSON for a view marked
    refuses_in_json. A view answering otherwise (the refusal beside its form or row) draws
    that answer in web.redrawn.on_refusal, and it is sent as drawn."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view: Callable, args, kwargs):
        request.refuses_in_json = getattr(view, "refuses_in_json", False)

    def process_exception(self, request: HttpRequest, exception: Exception):
        if isinstance(exception, Redrawn):
            return exception.response
        if not isinstance(exception, DomainError) or request.path_info.startswith(OWN_REFUSALS):
            return None
        if getattr(request, "refuses_in_json", False):
            return json_error(exception.message, exception.status)
        return error_response(request, exception.status, exception.message)


class BodyTooLarge(RequestDataTooBig):
    """A request body over what its view reads; `sentence` says so to the one who sent it."""

    def __init__(self, limit: int, sentence: str):
        super().__init__(sentence)
        self.limit = limit
        self.sentence = sentence


def takes_upload(what: str) -> Callable:
    """Mark a view whose form carries a file (`what`, "A snapshot upload"): its requests may
    be up to MEMADMIN_MAX_UPLOAD_BYTES rather than DATA_UPLOAD_MAX_MEMORY_SIZE."""

    def mark(view: Callable) -> Callable:
        view.takes_upload = what
        return view

    return mark


def answers_its_own_body(view: Callable) -> Callable:
    """Mark a view that refuses a body over the limit itself, in its own protocol's words, and
    reads nothing before it has checked who sent it (the MCP endpoint: a JSON-RPC error)."""
    view.answers_its_own_body = True
    return view


def body_limit(request: HttpRequest, view: Callable) -> tuple[int, str]:
    """The most a request to `view` may carry, and the sentence refusing more. An upload's
    allowance is for a signed-in user; anyone else is held to a form's (the view then
    refuses them whatever they sent)."""
    what = getattr(view, "takes_upload", None)
    if what is not None and request.user.is_authenticated:
        limit = settings.MEMADMIN_MAX_UPLOAD_BYTES
        return limit, f"{what} is at most {limit // 2**20} MiB."
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return limit, (
        f"The request body is larger than this server accepts ({limit / 2**20:g} MiB); "
        "nothing was saved."
    )


class RequestSizeMiddleware:
    """Refuse a body over its view's limit from its Content-Length, before anything reads
    it: the CSRF check and a form would otherwise parse it first, spooling an upload to
    disk for a visitor who is then refused. Listed before CsrfViewMiddleware, so that this
    process_view runs first; the 413 is drawn by the root handler400 (a page, or JSON under
    /v1) from the exception."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view: Callable, args, kwargs):
        if getattr(view, "answers_its_own_body", False):
            return None
        declared = request.META.get("CONTENT_LENGTH") or ""
        limit, sentence = body_limit(request, view)
        if declared.isdigit() and int(declared) > limit:
            raise BodyTooLarge(limit, sentence)
        return None
