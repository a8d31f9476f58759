"""How gunicorn serves memadmin (read by gunicorn.conf.py): threads, and a deadline for
reading each request.

A sync worker is held for as long as its client takes to send a request, so a few clients
trickling a header line or a byte of body every few seconds held every worker. Here each
worker process runs a pool of threads, gunicorn's gthread worker parks idle connections on
its poller rather than on a thread, and a request must have arrived whole (request line,
headers and body) within MEMADMIN_REQUEST_READ_SECONDS of its first byte or its connection is
closed: a slow client holds one thread for that long at most, never the server.

gunicorn's master reads this module before the app is loaded: it imports nothing of
Django's but its exceptions (through memadmin.env).
"""

import socket
import time

from gunicorn.workers import gthread

from memadmin.env import env_int

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


class Worker(gthread.ThreadWorker):
    """gunicorn's threaded worker, its connections read by deadline."""

    def accept(self, listener):
        try:
            client_sock, client_addr = listener.accept()
        except (BlockingIOError, ConnectionAbortedError):
            return  # another worker took it, or the client gave up
        self.nr_conns += 1
        client_sock.setblocking(True)
        self.enqueue_req(_Connection(self.cfg, client_sock, client_addr, listener.getsockname()))
