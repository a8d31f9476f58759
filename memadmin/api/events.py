"""/v1/events: the change feed as Server-Sent Events, for scripts."""

from django.http import HttpRequest

from memadmin.api.auth import READ, authorize
from memadmin.live.responses import event_stream
from memories.reads.visibility import Receiver


@authorize(READ)
def events(request: HttpRequest):
    token = request.api_token
    return event_stream(request, Receiver(token.user_id, request.api_role, token.id))
