"""Who may open and change what on the dashboard.

Every page needs a signed-in user holding a role (memadmin.accounts.roles). A page names the least
role that may read it and the least that may write through it; an unsafe method asks for
the second, so a forbidden write gets a 403 whatever the page showed.
"""

import ipaddress
from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django_htmx.http import HttpResponseClientRedirect

from memadmin.accounts import roles
from memadmin.web import acting
from memadmin.web.responses import error_response
from memories.writes import history

RANK = roles.RANK
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
REFUSALS = {
    roles.AUDITOR: "Your account has no role yet: ask an admin to make you an auditor.",
    roles.OPERATOR: "Only operators and admins may change memories and projects.",
    roles.ADMIN: "Only admins may do this.",
}


def client_address(request: HttpRequest) -> str | None:
    """The client's address: the peer's, or, from a trusted proxy, the last address its
    X-Forwarded-For added (the ones before it are the client's word)."""
    peer = request.META.get("REMOTE_ADDR")
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if peer in settings.MEMADMIN_TRUSTED_PROXIES and forwarded.strip():
        try:
            return str(ipaddress.ip_address(forwarded.split(",")[-1].strip()))
        except ValueError:
            pass
    return peer


def request_role(request: HttpRequest) -> str | None:
    """The signed-in user's strongest role, looked up once per request."""
    return acting.request_holdings(request).role


def has_role(request: HttpRequest, least: str) -> bool:
    return RANK.get(request_role(request), 0) >= RANK[least]


def requires_role(read: str = roles.AUDITOR, write: str = roles.OPERATOR) -> Callable:
    """Sign-in for everyone; `read` for safe methods, the stronger of both for the rest.

    A write let in is recorded with the `reason` its form gave, read only then.
    """
    write_rank = max(RANK[read], RANK[write])
    write_role = next(role for role, rank in RANK.items() if rank == write_rank)

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if not request.user.is_authenticated:
                login = redirect_to_login(request.get_full_path())
                if getattr(request, "htmx", False):
                    return HttpResponseClientRedirect(login["Location"])
                return login
            least = read if request.method in SAFE_METHODS else write_role
            if not has_role(request, least):
                held = request_role(request)
                message = REFUSALS[roles.AUDITOR if held is None else least]
                return error_response(request, 403, message)
            if request.method in SAFE_METHODS:
                return view(request, *args, **kwargs)
            # A reason it cannot keep (InvalidField) is DomainErrorPageMiddleware's 400.
            with history.acting(reason=acting.posted_reason(request)):
                return view(request, *args, **kwargs)

        return wrapped

    return decorator
