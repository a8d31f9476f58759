"""The sockets of open streams, written from one thread per server process.

memadmin.serving hands a stream's socket here once its response headers are sent; the
request thread is free at once. The hub's thread sends each stream what it has pending (as
HTTP/1.1 chunks), a heartbeat when it has been quiet, and closes it when the client goes
away, stops reading (its unsent output passes the stream's max_unsent bytes,
MEMADMIN_STREAM_BUFFER_BYTES: a slow reader is cut off rather than buffered without end, and
slows no one else), or the stream has been idle past
its idle timeout (the client reconnects, resuming from its last event id).

Read by gunicorn's master before Django is set up: it imports nothing of Django's.
"""

import contextlib
import logging
import os
import selectors
import socket
import threading
import time

log = logging.getLogger(__name__)

TICK_SECONDS = 1.0
# The kernel's buffer for a stream's socket, which would otherwise grow to megabytes for a
# client that stops reading before the stream's own limit is reached.
SOCKET_BUFFER_BYTES = 16 * 1024


def chunk(data: bytes) -> bytes:
    return b"%X\r\n%s\r\n" % (len(data), data) if data else b""


class _Open:
    def __init__(self, sock: socket.socket, stream, chunked: bool):
        self.sock = sock
        self.frame = chunk if chunked else bytes
        self.stream = stream
        self.unsent = bytearray()
        now = time.monotonic()
        self.last_sent = now
        self.last_event = now
        self.writing = False


class Hub:
    def __init__(self):
        self._selector = selectors.DefaultSelector()
        self._lock = threading.Lock()
        self._adopted: list[_Open] = []
        self._woken: set[_Open] = set()
        self._open: set[_Open] = set()
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)
        self._selector.register(self._wake_read, selectors.EVENT_READ, None)
        self._thread = threading.Thread(target=self._run, name="stream-hub", daemon=True)

    def start(self) -> "Hub":
        self._thread.start()
        return self

    def adopt(self, sock: socket.socket, stream, *, chunked: bool = True) -> None:
        """Write `stream` to `sock` from now on (its response headers are sent; `chunked`,
        with Transfer-Encoding: chunked, else to an HTTP/1.0 client until the close)."""
        sock.setblocking(False)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SOCKET_BUFFER_BYTES)
        entry = _Open(sock, stream, chunked)
        with self._lock:
            self._adopted.append(entry)
        stream.attach(lambda: self._wake(entry))

    def count(self) -> int:
        return len(self._open)

    def _wake(self, entry: _Open | None = None) -> None:
        with self._lock:
            if entry is not None:
                self._woken.add(entry)
        with contextlib.suppress(BlockingIOError):
            os.write(self._wake_write, b".")

    def _run(self) -> None:
        while True:
            try:
                self._turn()
            except Exception:
                log.exception("The stream hub failed a turn; it goes on.")

    def _turn(self) -> None:
        for key, mask in self._selector.select(TICK_SECONDS):
            if key.data is None:
                with contextlib.suppress(BlockingIOError):
                    while os.read(self._wake_read, 4096):
                        pass
                continue
            entry = key.data
            if mask & selectors.EVENT_READ:
                self._read(entry)
            if mask & selectors.EVENT_WRITE and entry in self._open:
                self._send(entry)
        with self._lock:
            adopted, self._adopted = self._adopted, []
            woken, self._woken = self._woken, set()
        for entry in adopted:
            self._open.add(entry)
            self._selector.register(entry.sock, selectors.EVENT_READ, entry)
            woken.add(entry)
        now = time.monotonic()
        for entry in woken:
            if entry in self._open:
                data = entry.stream.take()
                if data:
                    entry.last_event = now
                    entry.unsent += entry.frame(data)
                self._send(entry)
        for entry in list(self._open):
            if entry.stream.closed or now - entry.last_event >= entry.stream.idle_seconds:
                self._close(entry, ended=True)
            elif now - entry.last_sent >= entry.stream.heartbeat_seconds and not entry.unsent:
                entry.unsent += entry.frame(b": still here\n\n")
                self._send(entry)

    def _read(self, entry: _Open) -> None:
        """A stream's client sends nothing more: what it sends is a close, or ignored."""
        try:
            data = entry.sock.recv(4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._close(entry)

    def _send(self, entry: _Open) -> None:
        if entry.unsent:
            try:
                sent = entry.sock.send(entry.unsent)
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError:
                self._close(entry)
                return
            if sent:
                del entry.unsent[:sent]
                entry.last_sent = time.monotonic()
        if len(entry.unsent) > entry.stream.max_unsent:
            log.warning("A stream's client stopped reading; it is cut off.")
            self._close(entry)
            return
        writing = bool(entry.unsent)
        if writing != entry.writing:
            entry.writing = writing
            events = selectors.EVENT_READ | (selectors.EVENT_WRITE if writing else 0)
            self._selector.modify(entry.sock, events, entry)

    def _close(self, entry: _Open, *, ended: bool = False) -> None:
        """Close the stream; `ended`, with the chunked answer's last chunk, so the client
        reads a complete response and reconnects."""
        if entry not in self._open:
            return
        self._open.discard(entry)
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(entry.sock)
        if ended:
            with contextlib.suppress(OSError):
                end = b"0\r\n\r\n" if entry.frame is chunk else b""
                entry.sock.send(bytes(entry.unsent) + end)
        with contextlib.suppress(OSError):
            entry.sock.close()
        entry.stream.close()
