"""What a connection must do before a request thread reads from it (memadmin.serving).

A thread reading a request's headers waits on its client, so clients trickling headers held
every thread of a process. Here a connection's headers are read on the worker's poller, one
non-blocking read at a time: a thread takes the connection once its request head is whole
(or its first HEAD_MAX bytes are in, for gunicorn's parser to refuse), and a head not whole
within MEMADMIN_HEADER_SECONDS is closed. What still waits on a client in a thread (a body)
is bounded by memadmin.serving's read deadline and by the number of connections one address
may hold at once (MEMADMIN_CONNECTIONS_PER_ADDRESS per process): past it, a new connection
is answered 429 and closed. A trusted proxy (MEMADMIN_TRUSTED_PROXIES) is one address for
all its clients, and limits them itself: its connections are not counted.

Read by gunicorn's master before Django is set up: it imports nothing of Django's but its
exceptions (through memadmin.env).
"""

import contextlib
import json
import socket
import time
from collections import Counter

from memadmin.env import env_int, env_list

HEADER_SECONDS = env_int("MEMADMIN_HEADER_SECONDS", 10, minimum=1)
PER_ADDRESS = env_int("MEMADMIN_CONNECTIONS_PER_ADDRESS", 16, minimum=1)
HEAD_MAX = 64 * 1024
# A refused connection's answer waits this long at most for the start of its request, to be
# JSON for /v1.
REFUSAL_WAIT_SECONDS = 1.0
HEAD_END = b"\r\n\r\n"


class Addresses:
    """How many connections each client address holds in this process (the worker's main
    thread alone counts them)."""

    def __init__(self, limit: int = PER_ADDRESS, unlimited: list[str] | None = None):
        self.limit = limit
        self.unlimited = set(
            env_list("MEMADMIN_TRUSTED_PROXIES", "") if unlimited is None else unlimited
        )
        self._held: Counter[str] = Counter()

    def admit(self, address: str) -> bool:
        if address in self.unlimited:
            return True
        if self._held[address] >= self.limit:
            return False
        self._held[address] += 1
        return True

    def release(self, address: str) -> None:
        if address in self.unlimited:
            return
        self._held[address] -= 1
        if self._held[address] <= 0:
            del self._held[address]


class Head:
    """A request head read a piece at a time, by a deadline."""

    def __init__(self):
        self.data = bytearray()
        self.deadline = time.monotonic() + HEADER_SECONDS

    def feed(self, piece: bytes) -> bool:
        """Add what arrived; whether a thread may take it now."""
        searched_from = max(0, len(self.data) - len(HEAD_END) + 1)
        self.data += piece
        return self.data.find(HEAD_END, searched_from) >= 0 or len(self.data) >= HEAD_MAX

    def overdue(self, now: float) -> bool:
        return now >= self.deadline


def for_the_api(head: bytes) -> bool:
    """Whether the request that begins with `head` is addressed to /v1."""
    target = head.split(b" ", 2)[1] if head.count(b" ") >= 1 else b""
    return target == b"/v1" or target.startswith((b"/v1/", b"/v1?"))


def answer(status: int, reason: str, sentence: str, *, json_body: bool) -> bytes:
    """An answer of the server's own, then the connection's close: the API's error shape
    for a request to /v1, else the sentence as text."""
    if json_body:
        body = json.dumps({"error": sentence}).encode()
        content_type = "application/json"
    else:
        body = sentence.encode() + b"\n"
        content_type = "text/plain; charset=utf-8"
    return (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def refuse(sock: socket.socket, response_for) -> None:
    """Answer a connection refused before its request was read, and close it: what its
    client has sent so far is read first (the answer is in the kind the request asks for,
    and closing over unread bytes would reset the connection before the client saw it)."""
    sock.setblocking(False)
    head = b""
    with contextlib.suppress(OSError):
        head = sock.recv(HEAD_MAX)
    with contextlib.suppress(OSError):
        sock.send(response_for(head))
        sock.shutdown(socket.SHUT_WR)
    sock.close()
