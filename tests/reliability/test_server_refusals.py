"""What the HTTP server refuses before memadmin sees the request is documented, as it is
answered: the OpenAPI document names each of gunicorn's refusals by its status, and under
/v1 they are the API's JSON error, one sentence, like everything memadmin itself answers
there (tests/api/test_errors.py)."""

import http.client
import json

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
        answered, content_type, body = _raw(served.port, request_bytes)
        assert answered == status, documented
        assert content_type == "application/json"
        sentence = json.loads(body)["error"]
        assert sentence.endswith(".") and sentence.count(". ") == 0, sentence
        assert documented in described
    assert "Traceback" not in served.stop()


def test_outside_the_api_they_stay_the_servers_own(served):
    """The pages' refusals are gunicorn's page: a browser shows it."""
    request_bytes = b"GET /memories/?q=" + b"x" * 5000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    answered, content_type, _ = _raw(served.port, request_bytes)
    assert (answered, content_type) == (414, "text/html")


def test_a_malformed_request_to_the_api_is_its_json(served):
    answered, content_type, body = _raw(
        served.port, b"GET /v1/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\n\r\n"
    )
    assert (answered, content_type) == (400, "application/json")
    assert json.loads(body)["error"].startswith("The server could not read this request")
