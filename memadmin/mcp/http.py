"""`/mcp`: Streamable HTTP, served stateless with JSON answers, as one Django view.

The view is the door: it refuses a request without a live token (401), a token that can do
nothing (403), an unknown project (404) or an oversized body (413) before any of the protocol
runs, then hands the request to the SDK's session manager and returns its answer. Serving it
from a view keeps the one WSGI server, its middleware (allowed hosts, security headers) and
the request's thread: `async_to_sync` runs the SDK's coroutines beside this thread, and the
tools' work comes back to it (memadmin.mcp.server), with the session and the acting context
this view set.

Stateless, every POST carries the token and `?project=`, so each is authorized on its own;
the protocol's optional event stream (GET) and session end (DELETE) have nothing to serve.
A `subscriptions/listen` request is the one answered here rather than by the SDK: its answer
is a stream that stays open, handed to the live hub (memadmin.mcp.listen).
"""

import json

import anyio
from asgiref.sync import async_to_sync
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types import INTERNAL_ERROR, INVALID_REQUEST

from memadmin.accounts import roles, tokens
from memadmin.mcp import listen, session
from memadmin.mcp.server import SERVER
from memories.reads.params import session_project
from memories.reads.visibility import Receiver
from memories.rules import reach, tiers
from memories.rules.errors import DomainError, TokenUnauthorized, UnknownProject
from memories.rules.tiers import GLOBAL_TIER
from memories.writes import history

TOO_LARGE = "The request body is larger than this server accepts."
# What a client accepts that says nothing (the SDK refuses it otherwise): the answers it gives.
ANSWERS = "application/json, text/event-stream"
UNREADABLE = (
    "The body is not a JSON-RPC 2.0 message this server can read: one object with jsonrpc "
    '"2.0", a method and, for a request, an id.'
)


def _refused(status: int, message: str, code: int = INVALID_REQUEST) -> JsonResponse:
    """A JSON-RPC error answered before the protocol ran; MCP clients show its message."""
    return JsonResponse(
        {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}},
        status=status,
        json_dumps_params={"ensure_ascii": False},
    )


def endpoint(request: HttpRequest) -> HttpResponse:
    """/mcp, routed through memadmin.urls.mcp_endpoint (which is exempt from CSRF and answers
    an oversized body itself)."""
    if request.method != "POST":
        response = _refused(
            405,
            f"{request.method} is not served on /mcp: send each JSON-RPC message as a POST "
            "(this server keeps no sessions and opens no event stream).",
        )
        response["Allow"] = "POST"
        return response
    try:
        found = tokens.caller(request.headers.get("Authorization"))
    except TokenUnauthorized as refusal:
        response = _refused(401, refusal.message)
        response["WWW-Authenticate"] = 'Bearer realm="memadmin"'
        return response
    token, role = found.token, found.role
    refused = tokens.refusal(token.user, role, tokens.READ, token=token)
    if refused is not None:
        return _refused(403, refused)
    try:
        with reach.within(found.reach):
            project = session_project(request.GET)
        body = request.body
    except UnknownProject as refusal:
        # Past the token's grants, a name is refused alike whether a project holds it or not.
        if found.reach.whole:
            return _refused(refusal.status, refusal.message)
        return _refused(403, outside_grants(request.GET.get("project")))
    except DomainError as refusal:
        return _refused(refusal.status, refusal.message)
    except RequestDataTooBig:
        return _refused(413, TOO_LARGE)
    if project is None and not found.reach.sees(GLOBAL_TIER):
        return _refused(403, outside_grants(None))
    opened = session.Session(
        project,
        write_refusal=tokens.refusal(token.user, role, tokens.WRITE, token=token),
        admin=role == roles.ADMIN,
        receiver=Receiver(token.user_id, role, token.id, found.reach),
    )
    stream = listen.answer(_parsed(body), opened)
    if stream is not None:
        return stream
    with (
        session.opened(opened),
        history.acting(door=history.MCP, user=token.user, token=token),
        reach.within(found.reach),
    ):
        status, headers, content = async_to_sync(_exchange)(_scope(request), body)
    if status >= 400:
        content = _in_one_sentence(content)
    response = HttpResponse(content, status=status)
    for name, value in headers:
        if name.lower() != b"content-length":
            response[name.decode("latin-1")] = value.decode("latin-1")
    return response


def outside_grants(project: str | None) -> str:
    """Why a session on a tier past the token's grants is refused."""
    return (
        f"This token holds no grant on {tiers.phrase(project)}, so it cannot open a session there."
    )


def _parsed(body: bytes):
    try:
        return json.loads(body)
    except ValueError:
        return None  # the SDK refuses it in its words


def _in_one_sentence(content: bytes) -> bytes:
    """The SDK's refusal of a malformed message lists its validation errors line by line;
    the client is told in one sentence instead."""
    try:
        answer = json.loads(content)
    except ValueError:
        return content
    error = answer.get("error") if isinstance(answer, dict) else None
    if not isinstance(error, dict) or "\n" not in str(error.get("message", "")):
        return content
    error["message"] = UNREADABLE
    error.pop("data", None)
    return json.dumps(answer).encode()


def _scope(request: HttpRequest) -> dict:
    """The ASGI scope of this request, as an ASGI server would have made it."""
    meta = request.META
    port = meta.get("SERVER_PORT") or "80"
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode("utf-8"),
        "query_string": meta.get("QUERY_STRING", "").encode("latin-1", "replace"),
        "root_path": "",
        "headers": [
            (name.lower().encode("latin-1", "replace"), value.encode("latin-1", "replace"))
            for name, value in {"Accept": ANSWERS, **request.headers}.items()
        ],
        "server": (meta.get("SERVER_NAME", ""), int(port) if port.isdigit() else 80),
        "client": (meta.get("REMOTE_ADDR", ""), 0),
    }


async def _exchange(scope: dict, body: bytes) -> tuple[int, list, bytes]:
    """One request through a stateless session manager: its status, headers and body."""
    manager = StreamableHTTPSessionManager(SERVER, json_response=True, stateless=True)
    answered = anyio.Event()
    delivered = False
    start: dict = {}
    chunks: list[bytes] = []

    async def receive() -> dict:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await answered.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                answered.set()

    async with manager.run():
        await manager.handle_request(scope, receive, send)
    if not start:
        refusal = _refused(500, "The MCP server gave no answer; its log says why.", INTERNAL_ERROR)
        return 500, [(b"content-type", b"application/json")], refusal.content
    return start["status"], start.get("headers", []), b"".join(chunks)
