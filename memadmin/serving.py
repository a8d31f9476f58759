"""How gunicorn serves memadmin (read by gunicorn.conf.py): threads, and a deadline for
reading each request.

A sync worker is held for as long as its client takes to send a request, so a few clients
trickling a header line or a byte of body every few seconds held every worker. Here each
worker process runs a pool of threads, gunicorn's gthread worker parks idle connections on
its poller rather than on a thread, and a request must have arrived whole (request line,
headers and body) within MEMADMIN_REQUEST_READ_SECONDS of its first byte or its connection is
closed: a slow client holds one thread for that long at most, never the server.

A stream of the change feed (/v1/events, the pages' live updates, an MCP session's
notifications) would hold a thread for as long as its client stays, so 64 open pages would
starve every request. A view answers one with a response carrying `live_stream`; this worker
sends its headers, hands its socket to the process's hub (memadmin.live.hub), one thread
that writes every open stream, and frees the request's thread at once.

gunicorn's master reads this module before the app is loaded: it imports nothing of
Django's but its exceptions (through memadmin.env).
"""

import functools
import socket
import threading
import time

from gunicorn.workers import gthread

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
    def init(self):
        """Called by the worker thread before it reads each request of the connection."""
        super().init()
        unreader = getattr(self.parser, "unreader", None)  # an HTTP/1 connection's reader
        if unreader is not None:
            if not isinstance(unreader.sock, _ReadByDeadline):
                unreader.sock = _ReadByDeadline(unreader.sock)
            unreader.sock.deadline = time.monotonic() + REQUEST_READ_SECONDS


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
    """gunicorn's threaded worker, its connections read by deadline, its streams written by
    the hub."""

    def init_process(self):
        self.hub = Hub().start()
        self._handling = threading.local()
        super().init_process()

    def load_wsgi(self):
        super().load_wsgi()
        self.wsgi = functools.partial(self._serve, self.wsgi)

    def handle_request(self, req, conn):
        self._handling.conn = conn
        try:
            return super().handle_request(req, conn)
        finally:
            self._handling.conn = None

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
        self.nr_conns += 1
        client_sock.setblocking(True)
        self.enqueue_req(_Connection(self.cfg, client_sock, client_addr, listener.getsockname()))
