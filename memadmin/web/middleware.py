"""Security headers Django 5.2 does not set by itself, and the page answer to a busy store."""

from collections.abc import Callable

from django.db import OperationalError
from django.http import HttpRequest, HttpResponse

from memadmin.web.responses import RETRY_AFTER_SECONDS, error_response, retry_sentence

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
