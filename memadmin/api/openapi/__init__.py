"""The OpenAPI 3.1 document of /v1: the memory, project, budget and audit-log routes (core),
the insight routes (graph, hygiene) and the change feed (live), served at /v1/openapi.json."""

from functools import cache

from django.http import HttpRequest

from memadmin.api.openapi import changes, core, insights, live
from memadmin.api.responses import ok


@cache
def document() -> dict:
    return {
        "openapi": "3.1.0",
        "info": {"title": "memadmin", "version": "1", "description": core.DESCRIPTION},
        "paths": {**core.PATHS, **changes.PATHS, **insights.PATHS, **live.PATHS},
        "components": {
            "schemas": {**core.SCHEMAS, **changes.SCHEMAS, **insights.SCHEMAS, **live.SCHEMAS},
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "description": "an API token"}
            },
        },
        "security": core.BEARER,
    }


def openapi_json(request: HttpRequest):
    """No token needed: the document describes the API, it holds no memory."""
    return ok(document())


def query_parameters(path: str) -> dict[str, frozenset[str]]:
    """Each method of a documented path with the query parameters the document gives it."""
    item = document()["paths"][path]
    shared = [p["name"] for p in item.get("parameters", ()) if p["in"] == "query"]
    return {
        method.upper(): frozenset(
            shared + [p["name"] for p in operation.get("parameters", ()) if p["in"] == "query"]
        )
        for method, operation in item.items()
        if method != "parameters"
    }
