"""The bulk and way-back routes' part of the OpenAPI document (/v1/bulk, /v1/revisions,
/v1/change-sets, /v1/trash), built with the document's own helpers; memadmin.api.openapi
merges it in."""

from memadmin.api.openapi.core import (
    BAD_REQUEST,
    BEARER,
    CONFLICT_409,
    COUNT,
    ID,
    IF_MATCH,
    LIST_PARAMETERS,
    MOMENT,
    NAME_PATTERN,
    NO_NUL,
    NULLABLE_TEXT,
    PRECONDITION,
    TEXT,
    TOO_LARGE,
    _body,
    _error,
    _limit,
    _obj,
    _query,
    _ref,
    _responses,
    _success,
)
from memadmin.api.openapi.core import (
    SCHEMAS as CORE_SCHEMAS,
)
from memories.models import Door
from memories.reads import history as history_reads
from memories.rules import fields as f
from memories.writes import bulk
from memories.writes.history import REASON_MAX

REASON = {
    "type": ["string", "null"],
    "maxLength": REASON_MAX,
    "pattern": NO_NUL,
    "description": "why: recorded with every revision of the change",
}
NAMED = _obj({"name": TEXT, "project": NULLABLE_TEXT})
# The filters and the search of GET /v1/memories: a bulk action with matching: true takes
# every memory they find (a search's hits).
MATCHING_PARAMETERS = [p for p in LIST_PARAMETERS if p["name"] not in {"limit", "offset"}]
PAGE_LIMIT = _limit(history_reads.MAX_LIMIT, "page size (default 50)")


def _id(name: str, description: str) -> dict:
    return {"name": name, "in": "path", "required": True, "schema": ID, "description": description}


def _before(what: str) -> dict:
    return _query("before", ID, f"the page of {what} older than this id (`older`)")


CHANGE_SET = _obj(
    {
        "id": {"type": "integer", "minimum": 1},
        "at": MOMENT,
        "summary": {"type": "string", "examples": ["Set priority 3 on 12 memories"]},
        "door": {"type": "string", "enum": Door.values},
        "actor": TEXT,
        "user": NULLABLE_TEXT,
        "token": {"type": ["integer", "null"], "description": "the API token's id"},
        "reason": TEXT,
        "size": {**COUNT, "description": "the revisions it holds"},
        "undoes": {"type": ["integer", "null"], "description": "the change set it undid"},
        "undone_by": {"type": ["integer", "null"], "description": "the change set undoing it"},
    },
    description="The revisions of one bulk action, import, consolidation or undo: undone whole.",
)

SCHEMAS = {
    "BulkAction": {
        "type": "object",
        "description": "One bulk action, on the memories named or (matching: true) on every "
        "memory the query's filters and search find. All or nothing: one refused row refuses "
        "the whole action and nothing lands.",
        "properties": {
            "action": {"type": "string", "enum": list(bulk.ACTIONS)},
            "memories": {
                "type": "array",
                "minItems": 1,
                "maxItems": bulk.BULK_LIMIT,
                "items": {
                    "anyOf": [
                        {"type": "string", "pattern": NAME_PATTERN, "maxLength": f.MEMORY_NAME_MAX},
                        {
                            "type": "object",
                            "properties": {
                                "name": {
                                    "type": "string",
                                    "pattern": NAME_PATTERN,
                                    "maxLength": f.MEMORY_NAME_MAX,
                                },
                                "project": {
                                    "type": ["string", "null"],
                                    "pattern": f"^({f.NAME_RE.pattern})?$",
                                    "maxLength": f.PROJECT_NAME_MAX,
                                    "description": 'null or "": the global tier; left out: '
                                    "whichever tier holds the name",
                                },
                            },
                            "required": ["name"],
                            "additionalProperties": False,
                        },
                    ]
                },
                "description": "the memories to change: a name (found in whichever tier holds "
                "it) or {name, project}; not with matching",
            },
            "matching": {
                "type": "boolean",
                "description": "true: every memory the query's filters (and q) find, at most "
                f"{bulk.BULK_LIMIT:,}; the query takes filters only with it",
            },
            "priority": {
                "type": "integer",
                "minimum": f.PRIORITY_MIN,
                "maximum": f.PRIORITY_MAX,
                "description": "set_priority: the priority to set",
            },
            "shift": {
                "type": "integer",
                "minimum": -f.PRIORITY_MAX,
                "maximum": f.PRIORITY_MAX,
                "description": "shift_priority: added to each priority, held within "
                f"{f.PRIORITY_MIN} and {f.PRIORITY_MAX}",
            },
            "load": {
                "type": "string",
                "enum": list(f.LOADS),
                "description": "set_load: the load to set",
            },
            "tag": {
                "type": "string",
                "minLength": 1,
                "maxLength": f.MAX_TAG_LENGTH,
                "pattern": "\\S",
                "description": "add_tag, remove_tag: the tag (told apart regardless of case)",
            },
            "to": {
                "type": ["string", "null"],
                "pattern": f"^({f.NAME_RE.pattern})?$",
                "maxLength": f.PROJECT_NAME_MAX,
                "description": 'move (required): a project\'s name; null or "": the global tier',
            },
            "reason": REASON,
        },
        "required": ["action"],
        "additionalProperties": False,
    },
    "BulkReceipt": _obj(
        {
            "changed": {**COUNT, "description": "memories changed"},
            "memories": {
                "type": "array",
                "items": _ref("Memory"),
                "description": "the memories as the action left them (none for delete)",
            },
            "deleted": {
                "type": "array",
                "items": _ref("MemoryDeleted"),
                "description": "delete: each memory deleted, with those still citing it",
            },
            "unchanged": {
                "type": "array",
                "items": NAMED,
                "description": "memories holding what the action sets already: not written",
            },
            "missing": {**COUNT, "description": "memories gone before the action reached them"},
            "change_set": {
                "anyOf": [_ref("ChangeSet"), {"type": "null"}],
                "description": "the change set recorded, to undo whole; null: nothing changed",
            },
        }
    ),
    "BulkRefused": {
        "type": "object",
        "description": "Nothing was changed: every refused row with its reason.",
        "properties": {
            "error": TEXT,
            "refused": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": TEXT,
                        "project": NULLABLE_TEXT,
                        "error": TEXT,
                        "status": {"type": "integer"},
                    },
                    "required": ["name", "project", "error", "status"],
                    "description": "a row's refusal, with its details (the inline budget's "
                    "total_bytes, budget_bytes, largest and band...)",
                },
            },
        },
        "required": ["error", "refused"],
    },
    "ChangeSet": CHANGE_SET,
    "ChangeSetList": _obj(
        {
            "change_sets": {"type": "array", "items": _ref("ChangeSet")},
            "older": {"type": ["integer", "null"], "description": "before= for older sets"},
        }
    ),
    "ChangeSetPage": _obj(
        {
            "change_set": _ref("ChangeSet"),
            "revisions": {"type": "array", "items": _ref("Revision")},
            "count": COUNT,
            "older": {"type": ["integer", "null"], "description": "before= for older changes"},
            "newer": {"type": ["integer", "null"], "description": "after= for newer changes"},
        }
    ),
    "Undone": _obj(
        {
            "undone": _ref("ChangeSet"),
            "change_set": {**_ref("ChangeSet"), "description": "the undo, itself undoable"},
            "skipped": {
                "type": "array",
                "items": _obj(
                    {
                        "name": TEXT,
                        "project": NULLABLE_TEXT,
                        "reason": TEXT,
                        "revision": {
                            "type": ["integer", "null"],
                            "description": "the revision it changed in since",
                        },
                    }
                ),
                "description": "memories changed since by another revision: left as they are",
            },
        }
    ),
    "UndoRefused": {
        "type": "object",
        "description": "Nothing was undone: the set was undone already, left nothing to undo, "
        "or a rule refuses an old state (each row in refused).",
        "properties": {
            "error": TEXT,
            "change_set": {"type": "integer"},
            "refused": {
                "type": "array",
                "items": _obj(
                    {
                        "name": TEXT,
                        "project": NULLABLE_TEXT,
                        "reason": TEXT,
                        "revision": {"type": ["integer", "null"]},
                    }
                ),
            },
        },
        "required": ["error", "change_set", "refused"],
    },
    "RevisionDetail": _obj(
        {
            **CORE_SCHEMAS["Revision"]["properties"],
            "restorable": {
                "type": "boolean",
                "description": "it left a version to put back (not a deletion, not purged)",
            },
        },
        description="One revision, as the history lists it, and whether its version can be "
        "restored.",
    ),
    "Trashed": _obj(
        {
            "id": {"type": "integer", "minimum": 1, "description": "restores or purges it"},
            "name": TEXT,
            "project": NULLABLE_TEXT,
            "description": TEXT,
            "load": {"type": "string", "enum": list(f.LOADS)},
            "priority": {"type": "integer"},
            "tags": {"type": "array", "items": TEXT},
            "body_bytes": COUNT,
            "deleted_at": MOMENT,
            "revision": {"type": "integer", "description": "its deletion"},
            "door": {"type": "string", "enum": Door.values},
            "actor": TEXT,
            "user": NULLABLE_TEXT,
            "token": {"type": ["integer", "null"]},
            "reason": TEXT,
        },
        description="A deleted memory, restorable until purged.",
    ),
    "TrashList": _obj(
        {
            "trash": {"type": "array", "items": _ref("Trashed")},
            "count": {**COUNT, "description": "every memory in the trash"},
            "older": {"type": ["integer", "null"], "description": "before= for older entries"},
        }
    ),
    "Purged": _obj({"purged": TEXT}),
    "Reason": {
        "type": "object",
        "properties": {"reason": REASON},
        "additionalProperties": False,
    },
}

UNDONE_409 = _error("Nothing was undone: each refused row says why.", "UndoRefused")
BULK_409 = {
    "description": "Nothing was changed: a row refused (the inline budget, a name clash), or "
    "a name several projects hold.",
    "content": {"application/json": {"schema": {"anyOf": [_ref("BulkRefused"), _ref("Error")]}}},
}
REVISION_ID = _id("revision_id", "a revision's id, as the history gives it")
CHANGE_SET_ID = _id("change_set_id", "a change set's id")
TRASHED_ID = _id("trashed_id", "a trash entry's id, as GET /v1/trash gives it")

PATHS = {
    "/v1/bulk": {
        "post": {
            "operationId": "bulkAction",
            "summary": "A bulk action on named memories or every memory matching the filters",
            "description": "Needs a write token. The list page's bulk actions (set or shift "
            "the priority, set the load, add or remove a tag, mark verified, move, delete) "
            "through the same doors: all or nothing, in one change set (`change_set`) that "
            "POST /v1/change-sets/{change_set_id}/undo undoes. With matching: true the query "
            "takes GET /v1/memories's filters and q; without it, no query parameter.",
            "parameters": MATCHING_PARAMETERS,
            "requestBody": _body("BulkAction"),
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("Every memory changed (or held it already).", "BulkReceipt"),
                _400=_error(
                    "A bad value, an action without the value it sets, or a refused row's bad "
                    "field (`refused`)."
                ),
                _404=_error("A memory named, a project or the tier moved to does not exist."),
                _409=BULK_409,
                _413=TOO_LARGE,
            ),
        }
    },
    "/v1/revisions/{revision_id}": {
        "parameters": [REVISION_ID],
        "get": {
            "operationId": "getRevision",
            "summary": "One revision: who changed what, and whether its version can be restored",
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("The revision.", "RevisionDetail"),
                _404=_error("No such revision."),
            ),
        },
    },
    "/v1/revisions/{revision_id}/restore": {
        "parameters": [REVISION_ID],
        "post": {
            "operationId": "restoreRevision",
            "summary": "Make the memory again what this revision left it",
            "description": "Needs a write token. A new revision through the write door: the "
            "budget and tier rules hold; created_at, verified_at and read_count stay.",
            "parameters": [IF_MATCH],
            "requestBody": _body("Reason", required=False),
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("The memory as restored.", "MemoryWritten", etag=True),
                _400=BAD_REQUEST,
                _404=_error("No such revision."),
                _409=_error(
                    "Refused: the revision removed the memory, its history was purged, the "
                    "memory is in the trash, or a rule refuses the version (the inline "
                    "budget, a name clash)."
                ),
                _412=PRECONDITION,
                _413=TOO_LARGE,
            ),
        },
    },
    "/v1/change-sets": {
        "get": {
            "operationId": "listChangeSets",
            "summary": "The change sets (bulk actions, imports, undos), newest first",
            "parameters": [PAGE_LIMIT, _before("change sets")],
            "security": BEARER,
            "responses": _responses(
                "200", _success("A page of change sets.", "ChangeSetList"), _400=BAD_REQUEST
            ),
        }
    },
    "/v1/change-sets/{change_set_id}": {
        "parameters": [CHANGE_SET_ID],
        "get": {
            "operationId": "getChangeSet",
            "summary": "One change set and a page of its revisions, newest first",
            "parameters": [
                PAGE_LIMIT,
                _before("revisions"),
                _query(
                    "after",
                    {**ID, "minimum": 0},
                    "the page of revisions newer than this id (`newer`); not with before",
                ),
            ],
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("The change set and its revisions.", "ChangeSetPage"),
                _400=BAD_REQUEST,
                _404=_error("No such change set."),
            ),
        },
    },
    "/v1/change-sets/{change_set_id}/undo": {
        "parameters": [CHANGE_SET_ID],
        "post": {
            "operationId": "undoChangeSet",
            "summary": "Undo a change set, leaving the memories changed since",
            "description": "Needs a write token. One compensating revision per memory, in a "
            "change set of their own; a memory changed since to another state is left as it "
            "is and listed in `skipped` with the revision it changed in. All or nothing for "
            "the rest: a rule refusing any old state (a name taken, a project gone, the "
            "budget) refuses the undo (409), as does a set undone already.",
            "requestBody": _body("Reason", required=False),
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("Undone.", "Undone"),
                _400=BAD_REQUEST,
                _404=_error("No such change set."),
                _409=UNDONE_409,
                _413=TOO_LARGE,
            ),
        },
    },
    "/v1/trash": {
        "get": {
            "operationId": "listTrash",
            "summary": "The deleted memories, most recently deleted first",
            "parameters": [PAGE_LIMIT, _before("entries")],
            "security": BEARER,
            "responses": _responses(
                "200", _success("A page of the trash.", "TrashList"), _400=BAD_REQUEST
            ),
        }
    },
    "/v1/trash/{trashed_id}": {
        "parameters": [TRASHED_ID],
        "delete": {
            "operationId": "purgeTrashed",
            "summary": "Purge a memory from the trash, and its history's content, for good",
            "description": "Needs an admin's write token (403 otherwise).",
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("Purged.", "Purged"),
                _404=_error("No such entry in the trash."),
            ),
        },
    },
    "/v1/trash/{trashed_id}/restore": {
        "parameters": [TRASHED_ID],
        "post": {
            "operationId": "restoreTrashed",
            "summary": "Bring a memory back from the trash as it was deleted",
            "description": "Needs a write token. Its id, created_at, verified_at and "
            "read_count come back with it.",
            "requestBody": _body("Reason", required=False),
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("The memory, back.", "MemoryDetail", etag=True),
                _400=BAD_REQUEST,
                _404=_error("No such entry in the trash, or its project is gone."),
                _409=CONFLICT_409,
                _413=TOO_LARGE,
            ),
        },
    },
}
