"""Bearer tokens for /v1. The API reads no cookies: a session is never a credential here,
which is why its views can be exempt from CSRF."""

from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest

from memadmin.accounts import tokens
from memadmin.api.responses import error, refuse_unknown_query
from memories.rules import reach
from memories.rules.errors import TokenUnauthorized
from memories.writes import history

READ, WRITE = tokens.READ, tokens.WRITE


def authorize(scope: str) -> Callable:
    """Require a live token of `scope` (read or write) whose user may do that.

    No token, an unknown, revoked, expired or paused one: 401, saying which. A read token
    writing, or a token whose user lacks the role (an auditor's token writing, a user with no
    role at all): 403.
    """

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(request: HttpRequest, **kwargs):
            try:
                found = tokens.caller(request.headers.get("Authorization"))
            except TokenUnauthorized as refusal:
                response = error(refusal.message, 401)
                response["WWW-Authenticate"] = 'Bearer realm="memadmin"'
                return response
            token, user = found.token, found.token.user
            refused = tokens.refusal(user, found.role, scope, token=token)
            if refused is not None:
                return error(refused, 403)
            request.api_token = token
            request.api_role = found.role
            # A caller without a token learns that first, not which parameters a route takes.
            accepted = getattr(request, "accepted_query", None)
            if accepted is not None:
                refuse_unknown_query(request, accepted)
            with (
                history.acting(door=history.API, user=user, token=token),
                reach.within(found.reach),
            ):
                return view(request, **kwargs)

        wrapper.authorizes = True
        return wrapper

    return decorator
