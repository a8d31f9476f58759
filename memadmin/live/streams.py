"""One open stream of the change feed: who it is for, which changes it admits, how it says
them, and what it has yet to send.

The feed's thread offers it changes; whoever writes it (the hub's thread, or, outside
gunicorn, the request's thread iterating it) takes what is pending.
"""

import json
import threading
import time
from collections.abc import Callable, Iterator

from django.conf import settings

from memories.reads import changes
from memories.reads.visibility import Receiver

Render = Callable[[list[changes.Event]], bytes]


def sse(*, data: str, event: str | None = None, id: int | None = None) -> bytes:
    """One Server-Sent Event."""
    lines = []
    if id is not None:
        lines.append(f"id: {id}")
    if event is not None:
        lines.append(f"event: {event}")
    lines.extend(f"data: {line}" for line in data.split("\n"))
    return ("\n".join(lines) + "\n\n").encode()


HEARTBEAT = b": still here\n\n"
RETRY_MS = 3000


def as_changes(events: list[changes.Event]) -> bytes:
    """Each change as an event `change`, its id the feed's, its data the change as JSON."""
    return b"".join(
        sse(id=event.id, event="change", data=json.dumps(event.to_dict(), ensure_ascii=False))
        for event in events
    )


def reset(last_id: int) -> bytes:
    """The events since the client's last id are more than a stream replays: it reads the
    store afresh, and resumes after `last_id`."""
    message = "Too much changed since this stream's last event: read the store afresh."
    return sse(id=last_id, event="reset", data=json.dumps({"message": message}))


class Stream:
    def __init__(
        self,
        receiver: Receiver,
        admits: Callable[[changes.Event], bool],
        render: Render = as_changes,
    ):
        self.receiver = receiver
        self.admits = admits
        self.render = render
        self.heartbeat_seconds = settings.MEMADMIN_STREAM_HEARTBEAT_SECONDS
        self.idle_seconds = settings.MEMADMIN_STREAM_IDLE_SECONDS
        self.max_unsent = settings.MEMADMIN_STREAM_BUFFER_BYTES
        self.closed = False
        self._pending: list[bytes] = [f"retry: {RETRY_MS}\n\n".encode()]
        self._ready = threading.Condition()
        self._wake: Callable[[], None] | None = None
        self.on_close: Callable[[Stream], None] | None = None

    def offer(self, events: list[changes.Event]) -> None:
        """Called by the feed with each batch of committed changes, in order."""
        chosen = [e for e in events if changes.sees(self.receiver, e) and self.admits(e)]
        if chosen:
            self.put(self.render(chosen))

    def put(self, data: bytes) -> None:
        if not data:
            return
        with self._ready:
            self._pending.append(data)
            self._ready.notify()
            wake = self._wake
        if wake is not None:
            wake()

    def take(self) -> bytes:
        with self._ready:
            data, self._pending = b"".join(self._pending), []
        return data

    def attach(self, wake: Callable[[], None]) -> None:
        """Its writer is told through `wake` (from the feed's thread) when there is more."""
        with self._ready:
            self._wake = wake
            pending = bool(self._pending)
        if pending:
            wake()

    def release(self) -> None:
        """Its response is closed: the stream ends with it, unless a writer holds it now."""
        with self._ready:
            held = self._wake is not None
        if not held:
            self.close()

    def close(self) -> None:
        with self._ready:
            if self.closed:
                return
            self.closed = True
            self._ready.notify()
            wake = self._wake
        if self.on_close is not None:
            self.on_close(self)
        if wake is not None:
            wake()

    def __iter__(self) -> Iterator[bytes]:
        """The stream written by the thread iterating it (a server without the hub: the
        development server, the test client): what is pending, a heartbeat when there is
        nothing, until it is idle or closed."""
        last_event = time.monotonic()
        try:
            while True:
                with self._ready:
                    if not self._pending and not self.closed:
                        self._ready.wait(self.heartbeat_seconds)
                    if self.closed and not self._pending:
                        return
                data = self.take()
                now = time.monotonic()
                if data:
                    last_event = now
                    yield data
                elif now - last_event >= self.idle_seconds:
                    return
                else:
                    yield HEARTBEAT
        finally:
            self.close()
