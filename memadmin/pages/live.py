"""/live/events: the change feed as Server-Sent Events for the signed-in pages (static/js/
live.js). A page without a session is answered 401, not sent to sign in: an EventSource
cannot follow a sign-in, the page falls back to polling and says so. `once=1` answers what
came since `after` and ends: the page's poll while its stream is down."""

from django.http import HttpResponse
from django.views.decorators.http import require_GET

from memadmin.live.responses import event_stream
from memadmin.web.access import request_role
from memadmin.web.http import HtmxHttpRequest
from memories.reads.visibility import Receiver
from memories.rules import reach


@require_GET
def events(request: HtmxHttpRequest) -> HttpResponse:
    role = request_role(request)
    if role is None:
        return HttpResponse(
            "Sign in to follow the store's changes.", status=401, content_type="text/plain"
        )
    once = request.GET.get("once") == "1"
    receiver = Receiver(request.user.pk, role, reach=reach.current())
    return event_stream(request, receiver, once=once)
