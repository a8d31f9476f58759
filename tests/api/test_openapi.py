"""The OpenAPI document: valid 3.1, and the routes it describes are exactly those served."""

import re

from django.urls import get_resolver

from memadmin.api.openapi import document

from .conftest import Api


def test_the_document_is_openapi_3_1_with_bearer_security(anonymous):
    data = anonymous.get("/v1/openapi.json").json()
    assert data == document()
    assert data["openapi"] == "3.1.0"
    assert data["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "an API token",
    }
    assert data["paths"]["/v1/openapi.json"]["get"]["security"] == []


def test_every_documented_method_is_served_and_every_served_one_documented(anonymous):
    api_patterns = next(
        p for p in get_resolver().url_patterns if str(p.pattern) == "v1/"
    ).url_patterns
    served = {"/v1/" + re.sub(r"<\w+:(\w+)>", r"{\1}", str(p.pattern)) for p in api_patterns}
    served.discard("/v1/^.*$")
    assert set(document()["paths"]) == served
    for path, operations in document()["paths"].items():
        documented = {m.upper() for m in operations if m != "parameters"}
        example = re.sub(r"\{\w+_id\}", "1", path.replace("{name}", "x"))
        allow = anonymous("OPTIONS", example)["Allow"]
        assert set(allow.split(", ")) - {"HEAD"} == documented, path


def _resolve(schema: dict) -> list[dict]:
    """The object schemas a response schema allows, references and anyOf followed."""
    if "$ref" in schema:
        return _resolve(document()["components"]["schemas"][schema["$ref"].split("/")[-1]])
    if "anyOf" in schema:
        return [branch for option in schema["anyOf"] for branch in _resolve(option)]
    return [schema]


def test_every_operation_documents_its_errors_in_the_error_shape():
    for path, operations in document()["paths"].items():
        for method, operation in operations.items():
            if method == "parameters" or path == "/v1/openapi.json":
                continue
            assert {"401", "403", "503"} <= set(operation["responses"]), (method, path)
            for status, response in operation["responses"].items():
                if status < "400":
                    continue
                schema = response["content"]["application/json"]["schema"]
                for option in _resolve(schema):
                    assert "error" in option["required"], (method, path, status)


def test_a_missing_memory_is_404_on_the_read(api):
    response = api("POST", "/v1/memories/absent/read")
    assert response.status_code == 404
    assert response.json() == {"error": "There is no memory named 'absent'.", "name": "absent"}


def test_the_document_needs_no_database(django_assert_num_queries, db):
    with django_assert_num_queries(0):
        assert Api(None).get("/v1/openapi.json").status_code == 200
