"""A view's answer that is a stream of the change feed: the filters and the resumption point
read from the request, the stream opened on the feed, and the response that carries it
(handed to the hub by memadmin.serving, or iterated by the request's thread elsewhere)."""

from django.http import HttpRequest, StreamingHttpResponse

from memadmin.live.feed import FEED
from memadmin.live.streams import Render, Stream, as_changes
from memories.reads import changes
from memories.reads.visibility import Receiver
from memories.rules.errors import BadRequest

LAST_EVENT_ID_MAX = 20  # digits


def _resumed_after(request: HttpRequest, form: changes.EventFilterForm) -> int | None:
    """The id the client last received: its Last-Event-ID (sent by a reconnecting
    EventSource), else `after`, else None (from now on)."""
    header = request.headers.get("Last-Event-ID")
    if header is None or header == "":
        return form.cleaned_data["after"]
    if not header.isdigit() or len(header) > LAST_EVENT_ID_MAX:
        raise BadRequest("Last-Event-ID must be the id of an event this stream sent.")
    return int(header)


def event_stream(
    request: HttpRequest, receiver: Receiver, render: Render = as_changes, *, once: bool = False
) -> StreamingHttpResponse:
    """The stream of the changes the receiver may see and the request's filters admit;
    `once`, only those since its id, then the end (a poll)."""
    form = changes.EventFilterForm(request.GET)
    if not form.is_valid():
        raise BadRequest(form.first_error())
    narrowed = changes.EventFilter.of(form)
    stream = Stream(receiver, narrowed.admits, render)
    FEED.open(stream, _resumed_after(request, form))
    if once:
        stream.close()  # what it missed is pending: sent, then the answer ends
    return streaming(stream)


class _Body:
    """A stream as a response's content: closing the response releases the stream."""

    def __init__(self, stream: Stream):
        self._stream = stream

    def __iter__(self):
        return iter(self._stream)

    def close(self) -> None:
        self._stream.release()


def streaming(stream: Stream) -> StreamingHttpResponse:
    response = StreamingHttpResponse(_Body(stream), content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache, no-store"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on as it comes
    response.live_stream = stream  # memadmin.serving hands it to the hub
    return response
