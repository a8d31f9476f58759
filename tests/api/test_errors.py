"""Failures outside the domain: unknown routes, wrong methods, the unexpected; JSON always."""

import pytest
from django.db import OperationalError

from memories.reads import listing
from tests.conftest import busy_error


@pytest.mark.parametrize(
    "path",
    ["/v1", "/v1/", "/v1/nope", "/v1/memories/", "/v1/memories/a/b", "/v1/projects/a/b", "/v1/%00"],
)
@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
def test_unknown_routes_are_json_404(api, path, method):
    response = api(method, path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert "openapi.json" in response.json()["error"]


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("POST", "/v1/memories", "GET, HEAD"),
        ("PATCH", "/v1/memories/rule", "DELETE, GET, HEAD, PUT"),
        ("GET", "/v1/memories/rule/edit", "POST"),
        ("GET", "/v1/memories/rule/read", "POST"),
        ("PUT", "/v1/projects", "GET, HEAD, POST"),
        ("GET", "/v1/projects/webdev", "DELETE, PATCH"),
        ("DELETE", "/v1/budget", "GET, HEAD"),
        ("POST", "/v1/openapi.json", "GET, HEAD"),
        ("OPTIONS", "/v1/memories", "GET, HEAD"),
    ],
)
def test_a_wrong_method_is_json_405_with_allow(anonymous, method, path, allowed):
    response = anonymous(method, path)
    assert response.status_code == 405
    assert response["Allow"] == allowed
    assert response.json()["allowed"] == allowed.split(", ")
    assert method in response.json()["error"]


def test_head_answers_like_get(api):
    assert api("HEAD", "/v1/memories").status_code == 200


def test_an_unexpected_failure_is_a_json_500(api, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(listing, "list_dicts", broken)
    response = api.get("/v1/memories")
    assert response.status_code == 500
    assert response.json() == {"error": "Something failed on the server; its log says what."}


def test_a_locked_database_is_503_with_retry_after(api, monkeypatch):
    def locked(*args, **kwargs):
        raise busy_error()

    monkeypatch.setattr(listing, "list_dicts", locked)
    response = api.get("/v1/memories")
    assert response.status_code == 503
    assert response["Retry-After"] == "2"
    assert response.json()["retry_after"] == 2


def test_another_database_failure_is_a_json_500(api, monkeypatch):
    def failing(*args, **kwargs):
        raise OperationalError("disk I/O error")

    monkeypatch.setattr(listing, "list_dicts", failing)
    response = api.get("/v1/memories")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"


def test_a_host_this_server_does_not_serve_is_a_json_400_under_v1(api, settings):
    settings.ALLOWED_HOSTS = ["example.org"]
    response = api.get("/v1/memories")
    assert response.status_code == 400
    assert response.json()["error"].startswith("The request was refused")


def test_a_failure_in_a_middleware_is_a_json_500_under_v1(api, settings):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "tests.api.test_errors.BrokenMiddleware"]
    api.client.raise_request_exception = False
    response = api.get("/v1/memories")
    assert response.status_code == 500
    assert response.json() == {"error": "Something failed on the server; its log says what."}


class BrokenMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        raise RuntimeError("a middleware failed")


def test_a_query_of_more_fields_than_the_server_reads_is_a_json_400(api):
    response = api.get("/v1/memories?" + "&".join(f"tag={i}" for i in range(3000)))
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"] == (
        "The request carries more than 1,050 parameters; this server reads at most 1,050."
    )
