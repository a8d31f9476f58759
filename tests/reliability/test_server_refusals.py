"""What the HTTP server refuses before memadmin sees the request is documented, as it is
answered: the OpenAPI document names each of gunicorn's refusals by its status. Everything
memadmin itself answers under /v1 is JSON (tests/api/test_errors.py)."""

import http.client

from memadmin.api.openapi import core


def _raw(port: int, request: bytes) -> tuple[int, str, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.connect()
    connection.sock.sendall(request)
    response = http.client.HTTPResponse(connection.sock)
    response.begin()
    body = response.read()
    connection.close()
    return response.status, response.getheader("Content-Type") or "", body


REFUSED = [
    (
        b"GET /v1/memories?q=" + b"x" * 5000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        414,
        "request line over 4,094 bytes (414",
    ),
    (
        b"GET /v1/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"x" * 9000 + b"\r\n\r\n",
        431,
        "header line over 8,190 bytes (431",
    ),
    (
        b"GET /v1/memories HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + b"".join(b"X-H%d: 1\r\n" % i for i in range(120))
        + b"\r\n",
        431,
        "more than 100 header fields",
    ),
]


def test_the_servers_own_refusals_are_the_documented_ones(served):
    described = " ".join(core.DESCRIPTION.split())
    for request_bytes, status, documented in REFUSED:
        answered, content_type, _ = _raw(served.port, request_bytes)
        assert answered == status, documented
        assert not content_type.startswith("application/json")
        assert documented in described
