"""Who the dashboard's writes are recorded as: the signed-in user, through the page door;
and what they reach: the tiers their grants let them see and change, read afresh at each
request, so a grant changed while a session is open holds from its next request.

/v1 and /mcp are left to their own doors (door "api" or "mcp", the token and its
user): they read no session, so a cookie sent along must not name anyone there. A form field named
`reason` is recorded with the writes of its request; it is read by `posted_reason` once
`memadmin.web.access` has let the request in, never here: a visitor who may not write must
not get their body read (a large upload would be spooled to disk first).
"""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from memadmin.accounts import roles
from memories.rules import reach
from memories.writes import history

TOKEN_ONLY = ("/v1", "/mcp")  # paths whose views say who acts, from the bearer token


class ActingMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info.startswith(TOKEN_ONLY):
            return self.get_response(request)
        with (
            history.acting(door=history.PAGE, user=request.user),
            reach.within(request_holdings(request).reach()),
        ):
            return self.get_response(request)


def request_holdings(request: HttpRequest) -> roles.Holdings:
    """The signed-in user's grants, looked up once per request."""
    if not hasattr(request, "_memadmin_holdings"):
        request._memadmin_holdings = roles.holdings(request.user)
    return request._memadmin_holdings


def posted_reason(request: HttpRequest) -> str | None:
    """The `reason` a form sent along, cleaned (InvalidField when it cannot be kept)."""
    reason = request.POST.get("reason", "")
    return history.clean_reason(reason) if reason.strip() else None
