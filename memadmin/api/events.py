"""/v1/events: the change feed as Server-Sent Events, for scripts."""

from django.http import HttpRequest

from memadmin.api.auth import READ, authorize
from memadmin.live.responses import event_stream
from memories.reads.visibility import Receiver
from memories.rules import reach


@authorize(READ)
def events(request: HttpRequest):
    token = request.api_token
    receiver = Receiver(token.user_id, request.api_role, token.id, reach.current())
    return event_stream(request, receiver)
