"""How gunicorn serves memadmin (read by gunicorn.conf.py): threads, request heads read on
the poller (memadmin.admission), and a deadline for reading each request.

A sync worker is held for as long as its client takes to send a request, so a few clients
trickling a header line or a byte of body every few seconds held every worker. Here each
worker process runs a pool of threads, gunicorn's gthread worker parks idle connections on
its poller rather than on a thread, a thread takes a connection only once its request's
headers are in (memadmin.admission, which also limits the connections of one address), and
a request must have arrived whole (headers and body) within MEMADMIN_REQUEST_READ_SECONDS or
its connection is closed: a client slow to send its body holds one thread for that long at
most, never the server.

gunicorn's own refusals of a request it cannot parse (a request line or headers too large, a
malformed request) are the API's JSON error for a request to /v1.

A stream of the change feed (/v1/events, the pages' live updates, an MCP session's
notifications) would hold a thread for as long as its client stays, so 64 open pages would
starve every request. A view answers one with a response carrying `live_stream`; this worker
sends its headers, hands its socket to the process's hub (memadmin.live.hub), one thread
that writes every open stream, and frees the request's thread at once.

gunicorn's master reads this module before the app is loaded: it imports nothing of
Django's but its exceptions (through memadmin.env).
"""

import functools
import selectors
import socket
import threading
import time

from gunicorn import util
from gunicorn.http import errors
from gunicorn.workers import gthread

from memadmin.admission import (
    HEAD_MAX,
    REFUSAL_WAIT_SECONDS,
    Addresses,
    Head,
    answer,
    for_the_api,
    refuse,
)
from memadmin.env import env_int
from memadmin.live.hub import Hub

REQUEST_READ_SECONDS = env_int("MEMADMIN_REQUEST_READ_SECONDS", 30, minimum=1)
# An answer's write waits this long on a client that does not read it.
SEND_SECONDS = 30


class _ReadByDeadline:
    """The socket a request is read from: each read waits for what is left of the deadline.

    Past it, the reads end as if the client had closed: a request cut in its headers is
    dropped, one cut in its body reaches the app short (and is refused as malformed).
    """

    def __init__(self, sock):
        self.sock = sock
        self.deadline = time.monotonic() + REQUEST_READ_SECONDS

    def recv(self, size):
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            return b""
        self.sock.settimeout(remaining)
        try:
            return self.sock.recv(size)
        except TimeoutError:
            self.sock.shutdown(socket.SHUT_RD)
            return b""
        finally:
            self.sock.settimeout(SEND_SECONDS)

    def __getattr__(self, name):
        return getattr(self.sock, name)


class _Connection(gthread.TConn):
    def __init__(self, cfg, sock, client, server, addresses: Addresses):
        super().__init__(cfg, sock, client, server)
        self.address = client[0] if isinstance(client, tuple) else ""
        self._addresses: Addresses | None = addresses
        self.head: Head | None = None  # being read on the poller
        self.request_start = b""  # of the request a thread reads now

    def init(self):
        """Called by the worker thread before it reads each request of the connection."""
        super().init()
        unreader = getattr(self.parser, "unreader", None)  # an HTTP/1 connection's reader
        if self.head is not None:
            self.request_start = bytes(self.head.data[:64])
            unreader.unread(bytes(self.head.data))
            self.head = None
        if unreader is not None:
            if not isinstance(unreader.sock, _ReadByDeadline):
                unreader.sock = _ReadByDeadline(unreader.sock)
            unreader.sock.deadline = time.monotonic() + REQUEST_READ_SECONDS

    def close(self, graceful=False):
        if self._addresses is not None:
            self._addresses.release(self.address)
            self._addresses = None
        super().close(graceful)


class _HandedOver:
    """The socket gunicorn holds of a connection handed to the hub: closing it, or writing
    the chunked answer's end, is the hub's to do now."""

    def sendall(self, data):
        pass

    def shutdown(self, how):
        raise OSError("handed to the stream hub")

    def close(self):
        pass

    def setblocking(self, flag):
        pass


class Worker(gthread.ThreadWorker):
    """gunicorn's threaded worker: request heads read on its poller, a connection's count
    held per address, requests read by deadline, streams written by the hub."""

    def init_process(self):
        self.hub = Hub().start()
        self.addresses = Addresses()
        self._reading_heads: dict[_Connection, None] = {}  # in the order of their deadlines
        self._refusing: dict[socket.socket, float] = {}  # by deadline, likewise
        self._handling = threading.local()
        super().init_process()

    def load_wsgi(self):
        super().load_wsgi()
        self.wsgi = functools.partial(self._serve, self.wsgi)

    def handle(self, conn):
        self._handling.conn = conn
        try:
            return super().handle(conn)
        finally:
            self._handling.conn = None

    def handle_error(self, req, client, addr, exc):
        conn = getattr(self._handling, "conn", None)
        shaped = isinstance(exc, errors.ParseException) and not isinstance(
            exc, (errors.InvalidResponseHeader, errors.InvalidResponseHeaderName)
        )
        if not (shaped and conn is not None and for_the_api(conn.request_start)):
            super().handle_error(req, client, addr, exc)
            return
        status, reason, sentence = self._refusal(exc)
        self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
        try:
            util.write_nonblock(client, answer(status, reason, sentence, json_body=True))
        except OSError:
            self.log.debug("Failed to send error message.")

    def _refusal(self, exc) -> tuple[int, str, str]:
        if isinstance(exc, errors.LimitRequestLine):
            return (
                414,
                "URI Too Long",
                f"The request line is longer than {self.cfg.limit_request_line:,} bytes: "
                "send fewer or shorter parameters.",
            )
        if isinstance(exc, errors.LimitRequestHeaders):
            return (
                431,
                "Request Header Fields Too Large",
                f"The request's headers are too large: at most {self.cfg.limit_request_fields} "
                f"fields, each line at most {self.cfg.limit_request_field_size:,} bytes.",
            )
        return 400, "Bad Request", f"The server could not read this request ({exc})."

    def _serve(self, app, environ, start_response):
        answer = app(environ, start_response)
        stream = getattr(answer, "live_stream", None)
        if stream is None:
            return answer
        if environ.get("REQUEST_METHOD") == "HEAD":
            stream.close()  # its headers alone: what it had pending ends it
            return answer
        response = start_response.__self__  # gunicorn's Response, whose method it is
        response.force_close()
        try:
            response.send_headers()
        except OSError:
            stream.close()
            answer.close()
            raise
        sock, response.sock = response.sock, _HandedOver()
        self._handling.conn.sock = _HandedOver()
        self.hub.adopt(sock, stream, chunked=response.chunked)
        answer.close()  # Django's request_finished: the request is over, the stream is not
        return []

    def accept(self, listener):
        try:
            client_sock, client_addr = listener.accept()
        except (BlockingIOError, ConnectionAbortedError):
            return  # another worker took it, or the client gave up
        address = client_addr[0] if isinstance(client_addr, tuple) else ""
        if not self.addresses.admit(address):
            client_sock.setblocking(False)
            self._refusing[client_sock] = time.monotonic() + REFUSAL_WAIT_SECONDS
            self.poller.register(client_sock, selectors.EVENT_READ, self._refuse)
            return
        self.nr_conns += 1
        conn = _Connection(
            self.cfg, client_sock, client_addr, listener.getsockname(), self.addresses
        )
        self._read_head(conn)

    def _refuse(self, sock: socket.socket) -> None:
        """Answer a connection past its address's limit once its request begins (or its
        wait is over), and close it."""
        self.poller.unregister(sock)
        del self._refusing[sock]
        refuse(sock, self._too_many)

    def _too_many(self, head: bytes) -> bytes:
        sentence = (
            f"This address has {self.addresses.limit} connections open to this server, as "
            "many as one address may; close one and try again."
        )
        return answer(429, "Too Many Requests", sentence, json_body=for_the_api(head))

    def on_client_socket_readable(self, conn, client):
        """A kept-alive connection's next request begins: its head is read on the poller."""
        self.poller.unregister(client)
        self.keepalived_conns.remove(conn)
        self._read_head(conn)

    def _read_head(self, conn: _Connection) -> None:
        if self.cfg.is_ssl:  # what arrives is TLS records, read by the thread's handshake
            self.enqueue_req(conn)
            return
        conn.head = Head()
        conn.sock.setblocking(False)
        self._reading_heads[conn] = None
        self.poller.register(
            conn.sock, selectors.EVENT_READ, functools.partial(self._on_head, conn)
        )

    def _on_head(self, conn: _Connection, sock) -> None:
        try:
            piece = sock.recv(HEAD_MAX)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            piece = b""
        if piece and not conn.head.feed(piece):
            return
        self._stop_reading_head(conn)
        if not piece:  # the client went away
            self.nr_conns -= 1
            conn.close()
            return
        conn.data_ready = True
        self.enqueue_req(conn)

    def _stop_reading_head(self, conn: _Connection) -> None:
        self.poller.unregister(conn.sock)
        del self._reading_heads[conn]

    def murder_pending(self):
        """Also answer the refused connections whose wait is over, and close those whose
        request head is overdue (and, once the worker is stopping, those that have sent
        nothing yet)."""
        super().murder_pending()
        now = time.monotonic()
        for sock, deadline in list(self._refusing.items()):
            if deadline > now and self.alive:
                break
            self._refuse(sock)
        for conn in list(self._reading_heads):
            if conn.head.overdue(now) or (not self.alive and not conn.head.data):
                self._stop_reading_head(conn)
                self.nr_conns -= 1
                conn.close()
            elif self.alive:
                break
