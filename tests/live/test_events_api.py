"""/v1/events: the change feed as Server-Sent Events for scripts, in process (its refusals,
its filters, resuming) and served by gunicorn (streams held by the hub, not by threads)."""

import json
import time

import pytest

from memadmin.api.openapi import document
from memories.reads import changes
from memories.writes import doors
from tests.api.conftest import Api
from tests.live.sse import Listener


def _first_chunk(response) -> str:
    """What a stream sent on opening; the stream then closed and its response read to the
    end, as a client going away leaves it."""
    first = next(response.streaming_content)
    response.live_stream.close()
    assert b"".join(response.streaming_content) == b""
    return first.decode()


def _ids(text: str) -> list[int]:
    return [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]


def test_a_stream_without_a_token_is_401(anonymous):
    response = anonymous.get("/v1/events")
    assert response.status_code == 401
    assert "token" in response.json()["error"]


def test_a_stream_opens_with_retry_and_what_came_after_its_id(read_api, project):
    doors.write("a", description="first")
    doors.write("b", description="second", project="webdev", tags=["ops"])
    first = changes.after(0)[1].id
    response = read_api.get("/v1/events", after=first)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/event-stream")
    assert response["X-Accel-Buffering"] == "no"
    text = _first_chunk(response)
    assert text.startswith("retry: ")
    assert _ids(text) == [first + 1]
    data = json.loads(text.split("data: ", 1)[1].split("\n")[0])
    assert data["name"] == "b" and data["project"] == "webdev" and data["kind"] == "create"
    assert data["revision"] is not None and data["actor"] == "direct"


def test_last_event_id_wins_over_after_and_filters_narrow(read_api, project):
    doors.write("a", description="first", tags=["ops"])
    doors.write("b", description="second", project="webdev")
    doors.write("c", description="third", project="webdev", tags=["OPS"])
    ids = [e.id for e in changes.after(0)]
    header = {"Last-Event-ID": str(ids[1])}
    everything = Api(read_api.token)("GET", "/v1/events?after=0", headers=header)
    assert _ids(_first_chunk(everything)) == ids[2:]
    tagged = read_api.get("/v1/events", after=0, tag="ops")
    assert _ids(_first_chunk(tagged)) == [ids[1], ids[3]]
    in_project = read_api.get("/v1/events", after=0, project="webdev")
    assert _ids(_first_chunk(in_project)) == [ids[0], ids[2], ids[3]]
    in_global = read_api.get("/v1/events", after=0, project="")
    assert _ids(_first_chunk(in_global)) == [ids[1]]


@pytest.mark.parametrize(
    ("query", "headers", "status", "words"),
    [
        ("?project=nowhere", {}, 404, "no project named"),
        ("?after=-1", {}, 400, "greater than or equal to 0"),
        ("?tag=" + "x" * 65, {}, 400, "at most 64"),
        ("", {"Last-Event-ID": "seven"}, 400, "Last-Event-ID"),
        ("?since=1", {}, 400, "since"),
    ],
)
def test_bad_input_is_refused_in_one_sentence(read_api, query, headers, status, words):
    response = read_api("GET", "/v1/events" + query, headers=headers)
    assert response.status_code == status
    assert words in response.json()["error"]


def test_a_resume_from_too_long_ago_is_told_to_read_afresh(read_api, monkeypatch):
    monkeypatch.setattr(changes, "BACKLOG_MAX", 2)
    for n in range(4):
        doors.write(f"m{n}", description="x")
    text = _first_chunk(read_api.get("/v1/events", after=0))
    assert "event: reset" in text
    assert _ids(text) == [changes.latest_id()]


def test_the_openapi_document_describes_the_stream():
    operation = document()["paths"]["/v1/events"]["get"]
    assert {p["name"] for p in operation["parameters"]} == {
        "project",
        "tag",
        "after",
        "Last-Event-ID",
    }
    assert "text/event-stream" in operation["responses"]["200"]["content"]
    assert "Change" in document()["components"]["schemas"]


def test_a_served_stream_holds_no_request_thread(narrow_server):
    """Six streams on a worker of two threads: each gets every write, in order, while the
    list still answers at once; one client going away leaves the others be."""
    headers = {"Authorization": f"Bearer {narrow_server.token}"}
    listeners = [Listener(narrow_server.port, "/v1/events", headers) for _ in range(6)]
    try:
        assert all(listener.status == 200 for listener in listeners)
        started = time.monotonic()
        assert narrow_server.request("GET", "/v1/memories").status == 200
        assert time.monotonic() - started < 5
        for n in range(3):
            put = narrow_server.request("PUT", f"/v1/memories/m{n}", {"description": "x"})
            assert put.status == 201
        for listener in listeners:
            got = [m.json()["name"] for m in listener.collect(3)]
            assert got == ["m0", "m1", "m2"]
        listeners[-1].close()  # one client gone: the others go on
        narrow_server.request("PUT", "/v1/memories/m3", {"description": "x"})
        narrow_server.request("DELETE", "/v1/memories/m0")
        for listener in listeners[:-1]:
            assert [m.json()["kind"] for m in listener.collect(2)] == ["create", "delete"]
    finally:
        for listener in listeners:
            listener.close()


def test_a_served_stream_resumes_from_last_event_id(narrow_server):
    headers = {"Authorization": f"Bearer {narrow_server.token}"}
    first = Listener(narrow_server.port, "/v1/events", headers)
    narrow_server.request("PUT", "/v1/memories/a", {"description": "x"})
    seen = first.collect(1)[0]
    first.close()
    for name in ("b", "c"):
        narrow_server.request("PUT", f"/v1/memories/{name}", {"description": "x"})
    again = Listener(narrow_server.port, "/v1/events", {**headers, "Last-Event-ID": str(seen.id)})
    try:
        got = again.collect(2)
        assert [m.json()["name"] for m in got] == ["b", "c"]
        assert [m.id for m in got] == [seen.id + 1, seen.id + 2]
        assert again.next(timeout=1) is None
    finally:
        again.close()


def test_past_the_streams_an_account_may_open_is_429(narrow_server):
    headers = {"Authorization": f"Bearer {narrow_server.token}"}
    listeners = []
    try:
        while len(listeners) < 16:
            listeners.append(Listener(narrow_server.port, "/v1/events", headers))
        assert all(listener.status == 200 for listener in listeners)
        refused = narrow_server.request("GET", "/v1/events")
        assert refused.status == 429
        assert "streams open" in refused.json()["error"]
    finally:
        for listener in listeners:
            listener.close()


def test_a_stream_without_a_token_is_401_when_served(narrow_server):
    listener = Listener(narrow_server.port, "/v1/events")
    try:
        assert listener.status == 401
    finally:
        listener.close()


def test_a_token_revoked_while_its_stream_is_open_stops_its_events(narrow_server):
    from tests.reliability.conftest import manage

    made = manage(
        narrow_server.data_dir,
        "shell",
        "-c",
        "from django.contrib.auth.models import User; from memadmin.accounts import tokens; "
        "token, secret = tokens.create_token(User.objects.get(username='writer'), 'read'); "
        "print(token.id, secret)",
    )
    token_id, secret = made.split()[-2:]
    listener = Listener(narrow_server.port, "/v1/events", {"Authorization": f"Bearer {secret}"})
    try:
        narrow_server.request("PUT", "/v1/memories/before", {"description": "x"})
        assert listener.collect(1)[0].json()["name"] == "before"
        manage(narrow_server.data_dir, "apitoken", "revoke", token_id)
        narrow_server.request("PUT", "/v1/memories/after", {"description": "x"})
        with pytest.raises(EOFError):
            listener.next(timeout=10)
    finally:
        listener.close()


def test_a_head_request_gets_the_streams_headers_and_ends(narrow_server):
    answer = narrow_server.request("HEAD", "/v1/events")
    assert answer.status == 200
    assert answer.headers["Content-Type"].startswith("text/event-stream")
    assert answer.body == b""


def test_a_token_limited_to_a_project_hears_that_tier_and_the_global_one_alone(db):
    from memadmin.accounts import grants, tokens
    from projects import writes as project_doors
    from projects.models import Project
    from tests.api.conftest import make_user

    project_doors.add("webdev")
    project_doors.add("mobile")
    owner = make_user("olga", "operator")
    token, secret = tokens.create_token(owner, "read", places=["webdev"])
    doors.write("a", description="global")
    doors.write("b", description="on webdev", project="webdev")
    doors.write("c", description="on mobile", project="mobile")
    heard = _first_chunk(Api(secret).get("/v1/events", after=0))
    names = [
        json.loads(line[6:])["name"] for line in heard.splitlines() if line.startswith("data: ")
    ]
    assert names == ["webdev", "a", "b"] and "mobile" not in heard  # the project added, then two
    # Read afresh for an open stream: the owner's grants taken back stop it.
    role, reach = grants.standing(owner.id, token.id)
    assert role == "operator" and not reach.sees(Project.objects.get(name="mobile").id)
    grants.revoke(None, owner, grants.WHOLE_STORE)
    assert grants.standing(owner.id, token.id)[0] is None


def test_a_paused_token_stands_for_nothing_until_resumed(db):
    from memadmin.accounts import grants, tokens
    from tests.api.conftest import make_user

    owner = make_user("olga", "operator")
    token = tokens.create_token(owner, "read")[0]
    assert grants.standing(owner.id, token.id)[0] == "operator"
    tokens.pause(token)
    assert grants.standing(owner.id, token.id)[0] is None
    tokens.pause(token, paused=False)
    assert grants.standing(owner.id, token.id)[0] == "operator"
