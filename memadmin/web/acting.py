"""Who the dashboard's writes are recorded as: the signed-in user, through the page door.

/v1 and /mcp are left to their own doors (door "api" or "mcp", the token and its user): they
read no session, so a cookie sent along must not name anyone there. A form field named
`reason` is recorded with the writes of its request.
"""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from memadmin.web.responses import error_response
from memories.rules.errors import InvalidField
from memories.writes import history

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
TOKEN_ONLY = ("/v1", "/mcp")  # paths whose views say who acts, from the bearer token


class ActingMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info.startswith(TOKEN_ONLY):
            return self.get_response(request)
        reason = None
        if request.method not in SAFE_METHODS and request.POST.get("reason", "").strip():
            try:
                reason = history.clean_reason(request.POST["reason"])
            except InvalidField as error:
                return error_response(request, 400, error.message)
        with history.acting(door=history.PAGE, user=request.user, reason=reason):
            return self.get_response(request)
