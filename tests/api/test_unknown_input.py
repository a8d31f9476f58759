"""/v1 refuses what it would otherwise ignore: a query parameter or a body field a route does
not take, a stamp no write sets, an offset past a body."""

import pytest

from memories.models import Memory


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/v1/memories", None),
        ("GET", "/v1/memories/tz", None),
        ("PUT", "/v1/memories/tz", {"priority": 1}),
        ("POST", "/v1/memories/tz/read", None),
        ("GET", "/v1/projects", None),
        ("GET", "/v1/budget", None),
        ("GET", "/v1/audit", None),
        ("GET", "/v1/hygiene", None),
    ],
)
def test_an_unknown_query_parameter_is_400_naming_it(api, write, method, path, body):
    write("tz")
    response = api(method, path, body, foo="bar")
    assert response.status_code == 400
    error = response.json()
    assert error["field"] == "foo"
    assert error["error"].startswith(f"Unknown query parameter 'foo'; {method} {path} takes ")
    assert Memory.objects.get(name="tz").priority == 5  # the PUT landed nothing
    assert Memory.objects.get(name="tz").read_count == 0


def test_several_unknown_parameters_are_named_together(api):
    response = api.get("/v1/memories", foo="1", bar="2", tag="ops")
    assert response.status_code == 400
    assert response.json()["error"].startswith("Unknown query parameters 'bar', 'foo';")


def test_a_route_that_takes_no_parameter_says_so(api):
    response = api.get("/v1/budget", project="")
    assert response.json()["error"] == (
        "Unknown query parameter 'project'; GET /v1/budget takes none."
    )


def test_every_parameter_the_document_declares_is_taken(api, write):
    """The accepted parameters are the document's own: each is answered, not refused as
    unknown (a value that is wrong for it may still be 400, naming it)."""
    write("tz")
    document = api.get("/v1/openapi.json").json()
    for path, item in document["paths"].items():
        if "get" not in item:
            continue
        shared = item.get("parameters", [])
        for parameter in [*shared, *item["get"].get("parameters", [])]:
            if parameter["in"] != "query":
                continue
            response = api.get(path.replace("{name}", "tz") + f"?{parameter['name']}=")
            if response.streaming:  # /v1/events: a stream opened is a parameter taken
                assert response.status_code == 200, (path, parameter)
                response.live_stream.close()
                b"".join(response.streaming_content)
                continue
            assert "Unknown query" not in response.json().get("error", ""), (path, parameter)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/memories/tz", {"priority": 1, "colour": "red"}),
        ("/v1/memories/tz/edit", {"old_string": "a", "new_string": "b", "colour": "red"}),
        ("/v1/memories/tz/read", {"colour": "red"}),
    ],
)
def test_an_unknown_body_field_is_400_naming_it(api, write, path, body):
    write("tz", body="a")
    method = "PUT" if path.endswith("tz") else "POST"
    response = api(method, path, body)
    assert response.status_code == 400
    assert response.json()["field"] == "colour"
    assert "Unknown field 'colour'" in response.json()["error"]
    tz = Memory.objects.get(name="tz")
    assert (tz.priority, tz.body, tz.read_count) == (5, "a", 0)


@pytest.mark.parametrize("stamp", ["verified_at", "created_at"])
def test_a_put_setting_a_stamp_is_refused_naming_it(api, write, stamp):
    write("tz")
    before = Memory.objects.get(name="tz")
    response = api("PUT", "/v1/memories/tz", {"priority": 1, stamp: "2020-01-01T00:00:00Z"})
    assert response.status_code == 400
    assert response.json()["field"] == stamp
    assert response.json()["error"].startswith(f"{stamp} cannot be set")
    after = Memory.objects.get(name="tz")
    assert (after.priority, getattr(after, stamp)) == (5, getattr(before, stamp))


def test_a_new_memory_cannot_be_given_a_stamp(api):
    response = api(
        "PUT", "/v1/memories/tz", {"description": "x", "verified_at": "2020-01-01T00:00:00Z"}
    )
    assert response.status_code == 400
    assert 'stamped now by "verified": true' in response.json()["error"]
    assert not Memory.objects.filter(name="tz").exists()


def test_the_stamps_a_memory_was_fetched_with_go_back_as_they_are(api, write):
    write("tz")
    fetched = api.get("/v1/memories/tz").json()
    same_instant = fetched["verified_at"].replace("Z", "+00:00")
    response = api(
        "PUT", "/v1/memories/tz", {**fetched, "verified_at": same_instant, "priority": 1}
    )
    assert response.status_code == 200
    assert response.json()["verified_at"] == fetched["verified_at"]
    verified = api("PUT", "/v1/memories/tz", {**fetched, "verified": True})
    assert verified.status_code == 200
    assert verified.json()["verified_at"] > fetched["verified_at"]


@pytest.mark.parametrize("offset", ["1e99", str(2**70), "6", "16001"])
def test_a_read_past_the_body_is_400_and_counts_no_read(api, write, offset):
    write("tz", body="UTC+9")
    response = api("POST", "/v1/memories/tz/read", raw='{"offset": ' + offset + "}")
    assert response.status_code == 400
    assert response.json() == {
        "error": "offset is past the end of the body of 'tz', which has 5 characters: give 0 to 5.",
        "field": "offset",
    }
    assert Memory.objects.get(name="tz").read_count == 0


def test_a_read_at_the_end_of_the_body_is_an_empty_page(api, write):
    write("tz", body="UTC+9")
    data = api("POST", "/v1/memories/tz/read", {"offset": 5}).json()
    assert (data["body"], data["next_offset"], data["read_count"]) == ("", None, 1)
    empty = write("empty").memory
    assert api("POST", "/v1/memories/empty/read", {"offset": 0}).status_code == 200
    assert api("POST", "/v1/memories/empty/read", {"offset": 1}).status_code == 400
    empty.refresh_from_db()
    assert empty.read_count == 1


def test_a_caller_without_a_token_learns_that_before_any_parameter_is_named(client):
    response = client.get("/v1/memories", {"foo": "bar"}, secure=True)
    assert response.status_code == 401
    assert "foo" not in response.json()["error"]
