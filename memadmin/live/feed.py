"""The change feed read once per server process and handed to every open stream.

One thread, started by the first stream and ended a while after the last, waits on the
engine's signal (memories.engine changes.wait: PostgreSQL's NOTIFY, SQLite's poll), reads
the changes committed past the last it read, and offers them to each stream in order. A
stream that opens after an id (its client's Last-Event-ID) first gets what it missed, read
under the same lock, so between that backlog and the live changes nothing is lost or
repeated. A database that goes away (a restart, a failover) ends every open stream, cleanly:
its client reconnects with its last event id once the database is back (an EventSource on
its own; the pages poll meanwhile), and gets what it missed from the backlog. The thread
reconnects and reads on from its last id for the streams opened then.
"""

import logging
import threading
import time
from dataclasses import replace

from django.conf import settings
from django.db import DatabaseError, connection

from memadmin.accounts import grants
from memadmin.live.streams import Stream, reset
from memories import engine
from memories.reads import changes
from memories.rules.errors import TooManyStreams

log = logging.getLogger(__name__)

WAIT_SECONDS = 1.0  # a signal missed costs this long at most
LINGER_SECONDS = 5.0  # the thread outlives the last stream this long
RETRY_SECONDS = 1.0  # after the database failed


class Feed:
    def __init__(self):
        self._lock = threading.RLock()  # a stream closed while offered changes leaves
        self._streams: set[Stream] = set()
        self._thread: threading.Thread | None = None
        self._position = 0
        self._emptied = time.monotonic()

    def open(self, stream: Stream, after: int | None) -> None:
        """Start offering changes to the stream; with `after`, first the ones it missed since.

        Refused (TooManyStreams) past the server's or the user's number of open streams.
        """
        with self._lock:
            self._refuse_past_limits(stream)
            if self._thread is None or not self._thread.is_alive():
                self._position = changes.latest_id()
                self._thread = threading.Thread(target=self._run, name="change-feed", daemon=True)
                self._thread.start()
            if after is not None:
                self._catch_up(stream, after)
            stream.on_close = self._closed
            self._streams.add(stream)

    def _refuse_past_limits(self, stream: Stream) -> None:
        if len(self._streams) >= settings.MEMADMIN_STREAMS:
            raise TooManyStreams(
                f"This server has {settings.MEMADMIN_STREAMS} streams open, as many as it "
                "serves; try again shortly."
            )
        user = stream.receiver.user_id
        own = sum(1 for open_stream in self._streams if open_stream.receiver.user_id == user)
        if own >= settings.MEMADMIN_STREAMS_PER_USER:
            raise TooManyStreams(
                f"You have {own} streams open on this server, as many as one account may; "
                "close one (a page or a script) first."
            )

    def _catch_up(self, stream: Stream, after: int) -> None:
        if after > self._position:
            stream.put(reset(self._position))  # an id this store never gave (restored?)
            return
        missed = changes.backlog(after, self._position)
        if missed.stale:
            stream.put(reset(self._position))
        else:
            stream.offer(missed.events)

    def _closed(self, stream: Stream) -> None:
        with self._lock:
            self._streams.discard(stream)
            if not self._streams:
                self._emptied = time.monotonic()

    @staticmethod
    def _standings_now(streams: list[Stream]) -> dict:
        """What each receiver holds now (its role and reach), read once a batch for all its
        streams: a token revoked, paused or expired, an account's role or grants taken away,
        stop or narrow its streams before the next change."""
        found = {}
        for stream in streams:
            receiver = stream.receiver
            key = (receiver.user_id, receiver.token_id)
            if key not in found and receiver.user_id is not None:
                found[key] = grants.standing(receiver.user_id, receiver.token_id)
        return found

    @staticmethod
    def _still_allowed(stream: Stream, standings: dict) -> bool:
        receiver = stream.receiver
        key = (receiver.user_id, receiver.token_id)
        if key not in standings:
            return True  # a command's session: whoever runs it holds the store
        role, reach = standings[key]
        if role is None:
            stream.close()
            return False
        if (role, reach) != (receiver.role, receiver.reach):
            stream.receiver = replace(receiver, role=role, reach=reach)
        return True

    @staticmethod
    def _offer(stream: Stream, events: list[changes.Event]) -> None:
        try:
            stream.offer(events)
        except Exception:
            log.exception("A stream failed to take changes; it is closed.")
            stream.close()

    def close_all(self, timeout: float = 10) -> None:
        """End every open stream and wait for the thread to let go of its connection (a
        test server stopping before its database is dropped)."""
        with self._lock:
            thread = self._thread
        self._end_streams()
        if thread is not None:
            thread.join(timeout)

    def _end_streams(self) -> None:
        with self._lock:
            streams = list(self._streams)
        for stream in streams:
            stream.close()

    def count(self) -> int:
        with self._lock:
            return len(self._streams)

    def _run(self) -> None:
        waits = engine.of(connection).changes.wait
        full = False
        try:
            while True:
                with self._lock:
                    if not self._streams and time.monotonic() - self._emptied > LINGER_SECONDS:
                        self._thread = None  # decided under the lock a stream opens under
                        return
                try:
                    if not full:
                        waits(connection, WAIT_SECONDS)
                    events = changes.after(self._position)
                except Exception as failure:
                    if isinstance(failure, DatabaseError):
                        log.warning(
                            "The change feed lost the database; its streams end, and resume "
                            "from their last event id once it is back."
                        )
                        self._end_streams()
                    else:
                        log.exception("The change feed failed to read; it tries again.")
                    self._disconnect()
                    time.sleep(RETRY_SECONDS)
                    continue
                full = len(events) >= changes.BACKLOG_MAX
                if events:
                    with self._lock:
                        streams = list(self._streams)
                    standings = self._standings_now(streams)
                    with self._lock:
                        for stream in streams:
                            if self._still_allowed(stream, standings):
                                self._offer(stream, events)
                        self._position = events[-1].id
        finally:
            with self._lock:
                if self._thread is threading.current_thread():
                    self._thread = None
            self._disconnect()

    @staticmethod
    def _disconnect() -> None:
        try:
            connection.close()
        except Exception:
            log.warning("The change feed could not close its connection.", exc_info=True)


FEED = Feed()
