"""The OpenAPI document's /v1/events: the change feed as Server-Sent Events."""

from memadmin.api.openapi.core import BAD_REQUEST, BEARER, _error, _obj, _query, _responses
from memories.reads import changes
from memories.reads.filters import BY_KEY, TAG

TEXT = {"type": "string"}
NULLABLE_TEXT = {"type": ["string", "null"]}
KINDS = (
    "create, update, move, edit, delete, restore, revert, undo, import, purge (a memory's); "
    + ", ".join(changes.PROJECT_KINDS)
    + " (a project's)"
)

SCHEMAS = {
    "Change": _obj(
        {
            "id": {"type": "integer", "description": "the feed's id, also the event's `id:`"},
            "at": {**TEXT, "format": "date-time"},
            "kind": {**TEXT, "description": KINDS},
            "name": {**TEXT, "description": "the memory's name, or the project's"},
            "project": {**NULLABLE_TEXT, "description": "its tier after the change; null global"},
            "previous_name": {**TEXT, "description": "a project's name before a rename"},
            "memory_id": {
                "type": ["integer", "null"],
                "description": "the memory's row id, the same through renames and moves",
            },
            "revision": {
                "type": ["integer", "null"],
                "description": "the memory's revision (GET /v1/memories/{name}/history)",
            },
            "door": TEXT,
            "actor": {**TEXT, "description": "who changed it"},
        },
        required=["id", "at", "kind", "name", "project", "memory_id", "revision", "door", "actor"],
        description="The data of one `change` event.",
    ),
}

STREAM = {
    "description": (
        "A stream of Server-Sent Events (text/event-stream), open until the client closes it "
        "or it stays idle past the server's idle timeout. Each committed change the token "
        "may see is an event `change` whose `id:` is the change's and whose data is a Change "
        "as JSON; a comment line is sent when it has been quiet (a heartbeat); an event "
        "`reset` says more changed than a stream replays since the id it resumed from: read "
        "the store afresh."
    ),
    "content": {
        "text/event-stream": {
            "schema": TEXT,
            "x-event-data": {"$ref": "#/components/schemas/Change"},
        }
    },
}

PATHS = {
    "/v1/events": {
        "get": {
            "operationId": "streamEvents",
            "summary": "The committed changes, as Server-Sent Events",
            "description": (
                "Every change to the store after it commits, on every app server, in commit "
                "order, filtered as /v1/memories filters (`project`, `tag`). Resumes from "
                "the `Last-Event-ID` header (as an EventSource reconnecting sends it) or "
                "`after`, without losing or repeating a change; without either, from now. "
                "Serve it unbuffered behind a proxy (README, 'Behind a proxy')."
            ),
            "parameters": [
                _query("project", BY_KEY["project"].schema, BY_KEY["project"].description),
                _query("tag", TAG.schema, "changes of memories holding this tag before or after"),
                _query(
                    "after",
                    {"type": "integer", "minimum": 0},
                    "the id of the last change the client has; the stream starts past it",
                ),
                {
                    "name": "Last-Event-ID",
                    "in": "header",
                    "schema": {"type": "string", "pattern": "^[0-9]{1,20}$"},
                    "description": "as `after`, and preferred to it",
                },
            ],
            "security": BEARER,
            "responses": _responses(
                "200",
                STREAM,
                _400=BAD_REQUEST,
                _404=_error("The project named by project= does not exist."),
                _429=_error("The server's or the account's streams are all open."),
            ),
        }
    }
}
