"""Hostile and malformed input: each gets a clear 4xx in JSON, and nothing changes."""

import re

import pytest

from memories.models import Memory
from projects.models import Project


def _snapshot():
    return (
        list(Memory.objects.order_by("id").values()),
        list(Project.objects.order_by("id").values_list("name", flat=True)),
    )


@pytest.fixture
def store(write, project):
    write("rule", body="one", expires="2999-01-01")
    write("stack", project="webdev")


def _refused(response, status: int, before) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    data = response.json()
    assert isinstance(data["error"], str) and data["error"]
    assert _snapshot() == before
    return data


BAD_NAMES = ["bad%20name", ".hidden", "-dash", "a" * 129, "na%C3%AFve", "nul%00", "semi;colon"]


@pytest.mark.parametrize("name", BAD_NAMES)
@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("GET", "", None),
        ("PUT", "", {"description": "x"}),
        ("DELETE", "", None),
        ("POST", "/edit", {"old_string": "a", "new_string": "b"}),
        ("POST", "/read", None),
    ],
)
def test_bad_memory_names_are_400(api, store, name, method, suffix, body):
    before = _snapshot()
    data = _refused(api(method, f"/v1/memories/{name}{suffix}", body), 400, before)
    assert data["field"] == "name"


@pytest.mark.parametrize(
    "body",
    [
        {"description": "nul\x00here"},
        {"body": "nul\x00here"},
        {"source": "nul\x00here"},
        {"tags": ["nul\x00here"]},
        {"references": ["nul\x00here"]},
        {"project": "nul\x00here"},
    ],
)
def test_nul_in_any_field_is_400(api, store, body):
    before = _snapshot()
    _refused(api("PUT", "/v1/memories/rule", body), 400, before)


@pytest.mark.parametrize(
    "expires",
    [
        "2026-13-01",
        "2026-02-30",
        "yesterday",
        "2026-01-01T25:00:00Z",
        "2026-01-01T10:00:00",
        "9999-12-31",
        "0001-01-01T00:00:00+05:00",
        12345,
        ["2026-01-01"],
    ],
)
def test_bad_dates_are_400(api, store, expires):
    before = _snapshot()
    data = _refused(api("PUT", "/v1/memories/rule", {"expires": expires}), 400, before)
    assert data["field"] == "expires"


@pytest.mark.parametrize("period", ["0d", "90", "90y", "-1d", "1234567d", "d", "ninety days"])
def test_bad_periods_are_400(api, store, period):
    data = _refused(api.get("/v1/memories", unverified=period), 400, _snapshot())
    assert data["field"] == "unverified"


@pytest.mark.parametrize("period", ["90D", " 90d", "90d ", "090d", " "])
def test_a_period_is_written_exactly_as_the_documents_pattern(api, store, period):
    """The OpenAPI document's pattern for unverified= is the rule (fields.PERIOD_RE): what
    it does not admit is refused, and the empty value it admits is no filter."""
    pattern = next(
        parameter["schema"]["pattern"]
        for parameter in api.get("/v1/openapi.json").json()["paths"]["/v1/memories"]["get"][
            "parameters"
        ]
        if parameter["name"] == "unverified"
    )
    assert not re.fullmatch(pattern, period) and re.fullmatch(pattern, "")
    data = _refused(api.get("/v1/memories", unverified=period), 400, _snapshot())
    assert data["field"] == "unverified"
    assert api.get("/v1/memories", unverified="").json()["count"] == Memory.objects.count()


def test_whole_numbers_written_as_floats_are_whole_numbers(api, store):
    """JSON Schema's integer admits 7.0, as the document says offset and priority are."""
    response = api("POST", "/v1/memories/rule/read", {"offset": 2.0})
    assert response.status_code == 200, response.json()
    assert response.json()["offset"] == 2
    response = api("PUT", "/v1/memories/rule", {"priority": 7.0})
    assert response.status_code == 200, response.json()
    assert response.json()["priority"] == 7
    for bad in ({"offset": 2.5}, {"offset": True}):
        assert api("POST", "/v1/memories/rule/read", bad).status_code == 400


def test_a_period_reaching_before_year_one_lists_nothing(api, store):
    response = api.get("/v1/memories", unverified="999999w")
    assert response.status_code == 200
    assert response.json()["count"] == 0


@pytest.mark.parametrize(
    "query",
    [
        {"project": "nul\x00"},
        {"tag": "nul\x00"},
        {"referencing": "nul\x00"},
        {"limit": str(10**20)},
        {"limit": "1.5"},
        {"offset": "x"},
        {"q": ["word"] * 21},
        {"q": "x" * 501},
        {"project": "p" * 65},
    ],
)
def test_bad_query_parameters_are_400(api, store, query):
    _refused(api.get("/v1/memories", **query), 400, _snapshot())


def test_an_inverted_priority_range_lists_nothing(api, store):
    """Each bound is a value the document admits, so the pair is answered: nothing lies in
    it (the list page, a person's screen, still says the range is inverted)."""
    response = api.get("/v1/memories", priority_min="9", priority_max="1")
    assert response.status_code == 200
    assert response.json()["count"] == 0


@pytest.mark.parametrize(
    ("method", "path", "query"),
    [
        ("GET", "/v1/memories", {"project": "nowhere"}),
        ("GET", "/v1/memories/rule", {"project": "nowhere"}),
        ("PUT", "/v1/memories/rule", {"project": "nowhere"}),
        ("DELETE", "/v1/memories/rule", {"project": "nowhere"}),
        ("POST", "/v1/memories/rule/read", {"project": "nowhere"}),
        ("PATCH", "/v1/projects/nowhere", {}),
        ("DELETE", "/v1/projects/nowhere", {}),
    ],
)
def test_unknown_projects_are_404(api, store, method, path, query):
    body = {"name": "x"} if method == "PATCH" else ({"priority": 1} if method == "PUT" else None)
    data = _refused(api(method, path, body, **query), 404, _snapshot())
    assert "nowhere" in data["error"]


def test_moving_to_an_unknown_project_is_404(api, store):
    before = _snapshot()
    _refused(api("PUT", "/v1/memories/rule", {"project": "nowhere"}), 404, before)


@pytest.mark.parametrize(
    "raw",
    [
        b"nope",
        b"description=x",
        b"[1, 2]",
        b'"text"',
        b"null",
        b"",
        b"\xff\xfe{",
        b'{"priority": NaN}',
        b'{"priority": Infinity}',
        b'{"description": "\\ud800"}',
        b"[" * 5000 + b"]" * 5000,
        b'{"description": ' + b"[" * 60 + b"]" * 60 + b"}",
        b'{"description": "x"',
    ],
)
@pytest.mark.parametrize(
    "path", ["/v1/memories/rule", "/v1/memories/rule/edit", "/v1/projects", "/v1/projects/webdev"]
)
def test_bodies_that_are_not_a_json_object_are_400(api, store, raw, path):
    method = {"/v1/projects": "POST", "/v1/projects/webdev": "PATCH"}.get(path, "PUT")
    method = "POST" if path.endswith("/edit") else method
    _refused(api(method, path, raw=raw), 400, _snapshot())


def test_an_empty_body_is_fine_for_the_read(api, store):
    assert api("POST", "/v1/memories/rule/read", raw=b"").status_code == 200


def test_the_body_is_read_as_json_whatever_its_content_type(api, store):
    response = api.client.put(
        "/v1/memories/rule",
        '{"priority": 2}',
        content_type="text/plain",
        headers={"Authorization": f"Bearer {api.token}"},
    )
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("PUT", "/v1/memories/rule"),
        ("POST", "/v1/memories/rule/edit"),
        ("POST", "/v1/memories/rule/read"),
        ("POST", "/v1/projects"),
        ("PATCH", "/v1/projects/webdev"),
    ],
)
def test_oversized_bodies_are_413(api, store, settings, method, path):
    before = _snapshot()
    raw = ('{"body": "' + "x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE + '"}').encode()
    data = _refused(api(method, path, raw=raw), 413, before)
    assert data["max_bytes"] == settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def test_huge_numbers_and_wrong_types_are_400(api, store):
    before = _snapshot()
    for body in (
        {"priority": 10**30},
        {"priority": True},
        {"verified": 1},
        {"load": ["inline"]},
        {"tags": [1]},
        {"references": {"a": 1}},
    ):
        _refused(api("PUT", "/v1/memories/rule", body), 400, before)
    _refused(api("POST", "/v1/memories/rule/read", {"offset": "10"}), 400, before)
    _refused(
        api("POST", "/v1/memories/rule/edit", {"old_string": "one", "new_string": None}),
        400,
        before,
    )
