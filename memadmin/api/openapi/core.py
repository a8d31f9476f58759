"""The OpenAPI 3.1 document of /v1, built from the same limits the validators use."""

from memadmin.api.memories import SHOWN, STAMPS
from memories.models import ETAG_FIELDS, Action, Door
from memories.reads import agent_view_query, find, listing, view_diff
from memories.reads import history as history_reads
from memories.reads.filters import FILTERS
from memories.reads.search import MATCHED_BY
from memories.rules import diffs
from memories.rules import fields as f
from memories.rules.fields import SEARCH_MODES

NAME_PATTERN = f"^{f.NAME_RE.pattern}$"
TEXT = {"type": "string"}
NULLABLE_TEXT = {"type": ["string", "null"]}
MOMENT = {"type": "string", "format": "date-time"}
LINES = {"type": "array", "items": TEXT}


def _obj(properties: dict, *, required=None, description: str = "") -> dict:
    schema = {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
    }
    if description:
        schema["description"] = description
    return schema


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


MEMORY_FIELDS = {
    "name": {"type": "string", "pattern": NAME_PATTERN, "maxLength": f.MEMORY_NAME_MAX},
    "project": {"type": ["string", "null"], "description": "null: the global tier"},
    "description": TEXT,
    "priority": {"type": "integer", "minimum": f.PRIORITY_MIN, "maximum": f.PRIORITY_MAX},
    "load": {"type": "string", "enum": list(f.LOADS)},
    "tags": LINES,
    "references": LINES,
    "source": TEXT,
    "created_at": MOMENT,
    "updated_at": MOMENT,
    "verified_at": MOMENT,
    "expires_at": {"type": ["string", "null"], "format": "date-time"},
    "read_count": {"type": "integer", "minimum": 0},
    "expired": {"type": "boolean"},
    "superseded_by": {
        "type": ["string", "null"],
        "description": "the memory of the same tier that supersedes this one (null: none); "
        "a superseded memory is out of force (expired) and still found by search",
    },
}
BACKLINK = _obj({"name": TEXT, "project": NULLABLE_TEXT, "description": TEXT})
DETAIL_FIELDS = {
    **MEMORY_FIELDS,
    "body": TEXT,
    "referenced_by": {"type": "array", "items": _ref("Backlink")},
    "replaces": {
        "type": "array",
        "items": _ref("Backlink"),
        "description": "the memories this one supersedes",
    },
}
LARGEST = {
    "type": "array",
    "items": _obj({"name": TEXT, "project": NULLABLE_TEXT, "bytes": {"type": "integer"}}),
}
COUNT = {"type": "integer", "minimum": 0}
BAND = {
    "type": ["string", "null"],
    "description": "the project whose session's band it would pass; null: a session on none",
}

ERROR_DETAILS = {
    "field": {"type": "string", "description": "the field or parameter at fault"},
    "name": TEXT,
    "project": NULLABLE_TEXT,
    "projects": {"type": "array", "items": TEXT},
    "total_bytes": {"type": "integer"},
    "budget_bytes": {"type": "integer"},
    "largest": LARGEST,
    "band": BAND,
    "etag": {"type": "string", "description": "the memory's current ETag"},
    "matches": {"type": "integer"},
    "memory_count": {"type": "integer"},
    "max_bytes": {"type": "integer"},
    "retry_after": {"type": "integer"},
}

SCHEMAS = {
    "Error": {
        "type": "object",
        "description": "Every failure: one human sentence, and the data behind it.",
        "properties": {"error": {"type": "string", "minLength": 1}, **ERROR_DETAILS},
        "required": ["error"],
    },
    "InlineBudgetRefusal": {
        "type": "object",
        "description": "The write would take an inline band past the budget; nothing landed.",
        "properties": {
            "error": TEXT,
            "total_bytes": {"type": "integer"},
            "budget_bytes": {"type": "integer"},
            "largest": LARGEST,
            "band": BAND,
        },
        "required": ["error", "total_bytes", "budget_bytes", "largest", "band"],
    },
    "AmbiguousName": {
        "type": "object",
        "description": "Several projects hold the name; name one with project=.",
        "properties": {"error": TEXT, "name": TEXT, "projects": {"type": "array", "items": TEXT}},
        "required": ["error", "name", "projects"],
    },
    "Memory": _obj(MEMORY_FIELDS, description="A memory as listed: no body, no backlinks."),
    "Backlink": BACKLINK,
    "MemoryDetail": _obj(DETAIL_FIELDS),
    "MemoryWritten": _obj(
        {**DETAIL_FIELDS, "notes": LINES},
        description="The memory as written, with notes (a long or near-duplicate description).",
    ),
    "MemoryEdited": _obj(
        {
            **DETAIL_FIELDS,
            "replacements": {"type": "integer", "minimum": 1},
            "context": {"type": "string", "description": "the lines around the change"},
        }
    ),
    "MemoryRead": _obj(
        {
            **MEMORY_FIELDS,
            "body": {"type": "string", "description": "up to 16,000 characters from offset"},
            "caption": {"type": "string", "examples": ["Recorded 47 days ago, verified yesterday"]},
            "offset": {"type": "integer", "minimum": 0},
            "next_offset": {"type": ["integer", "null"], "description": "null: nothing more"},
            "resolved_references": {
                "type": "array",
                "items": _obj(
                    {
                        "reference": TEXT,
                        "project": NULLABLE_TEXT,
                        "description": {
                            "type": ["string", "null"],
                            "description": "null: the reference names no memory",
                        },
                    }
                ),
            },
            "referenced_by": {"type": "array", "items": _ref("Backlink")},
        }
    ),
    "SearchHit": _obj(
        {
            **MEMORY_FIELDS,
            "score": {"type": "number", "description": "higher ranks first"},
            "matched_by": {
                "type": "string",
                "enum": list(MATCHED_BY),
                "description": "which sense of the search answered; reference: it cites the query; "
                "semantic: found by meaning "
                "alone (a guess, no word of the query in it)",
            },
            "similarity": {
                "type": ["number", "null"],
                "description": "the cosine of the memory's meaning to the query's, when the "
                "mode asked for meaning and it was near enough; null otherwise",
            },
            "scanned_terms": {
                "type": "array",
                "items": TEXT,
                "description": "the terms matched as plain text",
            },
            "verified": {
                "type": "boolean",
                "description": "verified since it was recorded",
            },
            "body": {"type": "string", "description": "present when the body is short"},
        },
        required=[*MEMORY_FIELDS, "score", "matched_by", "scanned_terms", "similarity", "verified"],
        description="A search hit: a listed memory with its score and the sense that matched.",
    ),
    "MemoryList": _obj(
        {
            "memories": {
                "type": "array",
                "items": {"anyOf": [_ref("Memory"), _ref("SearchHit")]},
                "description": "Memory items in index order; with q, SearchHit items, best first",
            },
            "count": {**COUNT, "description": "every match, not just this page"},
            "summary": {"type": "string", "examples": ["3 memories tagged infra"]},
            "last_resort": {
                "type": "boolean",
                "description": "with q: nothing else answered, so each whole query was scanned "
                "for as plain text",
            },
            "capped": {
                "type": "boolean",
                "description": "with q: a text scan stopped early, or a question of many words"
                " was matched by its rarer words alone (those most memories hold left out) or"
                " their newest matches, so count is a lower bound",
            },
            "next": {
                "type": ["string", "null"],
                "description": "the URL of the next page (null: this is the last): a listing's "
                "starts after this page's last row (after=), so following it walks every "
                "memory once even as others are written; a search's is the next offset",
            },
            "previous": {
                "type": ["string", "null"],
                "description": "the URL of the page before (null: this is the first)",
            },
        },
        required=["memories", "count", "summary", "next", "previous"],
    ),
    "MemoryDeleted": _obj(
        {
            "deleted": TEXT,
            "project": NULLABLE_TEXT,
            "referenced_by": {
                "type": "array",
                "items": _ref("Backlink"),
                "description": "memories still citing it; their references stay",
            },
        }
    ),
    "MemoryWrite": {
        "type": "object",
        "description": (
            'A null or missing field keeps what is there; "" clears body or expires; [] '
            "clears a list. A `project` key moves the memory (null: the global tier). The "
            "read-only fields of a fetched memory are accepted and ignored."
        ),
        "properties": {
            "description": {
                "type": ["string", "null"],
                "maxLength": f.MAX_DESCRIPTION_CHARS,
                "description": "required to create; collapsed to one line",
            },
            "body": NULLABLE_TEXT,
            "tags": {
                "type": ["array", "null"],
                "items": {"type": "string", "maxLength": f.MAX_TAG_LENGTH},
                "maxItems": f.MAX_TAGS,
            },
            "references": {
                "type": ["array", "null"],
                "items": {"type": "string", "maxLength": f.MAX_REFERENCE_LENGTH},
                "maxItems": f.MAX_REFERENCES,
            },
            "priority": {
                "type": ["integer", "null"],
                "minimum": f.PRIORITY_MIN,
                "maximum": f.PRIORITY_MAX,
                "description": "lower is more important",
            },
            "load": {"type": ["string", "null"], "enum": [*f.LOADS, None]},
            "source": NULLABLE_TEXT,
            "expires": {
                "type": ["string", "null"],
                "description": 'RFC 3339, or YYYY-MM-DD (the whole day, server time); "" clears',
            },
            "expires_at": {"type": ["string", "null"], "description": "the same as expires"},
            "verified": {"type": ["boolean", "null"], "description": "true stamps verified_at"},
            "allow_secret": {
                "type": ["boolean", "null"],
                "description": "true lets in a credential the write would be refused for; an "
                "admin's token alone (403 otherwise), recorded in the history",
            },
            "project": {"type": ["string", "null"], "description": "moves the memory"},
            "supersedes": {
                "type": ["string", "null"],
                "pattern": "^$|" + NAME_PATTERN,
                "maxLength": f.MEMORY_NAME_MAX,
                "description": "a memory of the tier this one lands in that it supersedes ("
                '"" or null: none): '
                "marked superseded_by this one, it leaves the index and the inline band, in "
                "one change set with the write (undone as one)",
            },
            **{
                key: {"description": "read-only: ignored"}
                for key in sorted(SHOWN)
                if key not in STAMPS
            },
            **{
                stamp: {
                    "type": ["string", "null"],
                    "description": "read-only: accepted as the memory holds it (a fetched "
                    "memory sent back), any other value refused (400); verified: true stamps "
                    "verified_at",
                }
                for stamp in STAMPS
            },
        },
        "additionalProperties": False,
    },
    "MemoryEdit": {
        "type": "object",
        "properties": {
            "old_string": {"type": "string", "minLength": 1},
            "new_string": {"type": "string", "description": '"" deletes old_string'},
            "replace_all": {"type": ["boolean", "null"]},
            "verified": {"type": ["boolean", "null"]},
        },
        "required": ["old_string", "new_string"],
        "additionalProperties": False,
    },
    "MemoryReadRequest": {
        "type": "object",
        "properties": {
            "offset": {
                "type": ["integer", "null"],
                "minimum": 0,
                "maximum": f.MAX_BODY_CHARS,
                "description": "where to start, in characters of the body: past its length is "
                "refused (400) and counts no read",
            }
        },
        "additionalProperties": False,
    },
    "Project": _obj({"name": TEXT, "created_at": MOMENT, "memory_count": COUNT}),
    "ProjectList": _obj({"projects": {"type": "array", "items": _ref("Project")}, "count": COUNT}),
    "ProjectName": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "pattern": NAME_PATTERN, "maxLength": f.PROJECT_NAME_MAX}
        },
        "required": ["name"],
        "additionalProperties": False,
    },
    "ProjectDeleted": _obj({"deleted": TEXT}),
    "AgentView": _obj(
        {
            "project": {
                "type": ["string", "null"],
                "description": "the session's project as it was named at the moment; null: none",
            },
            "at": MOMENT,
            "live": {
                "type": "boolean",
                "description": "true: the view as it stands (no `at`); false: rebuilt from the "
                "revisions",
            },
            "answers_from": {
                "type": "string",
                "format": "date-time",
                "description": "the earliest moment the history kept answers for",
            },
            "purged": {
                "type": "integer",
                "minimum": 0,
                "description": "memories there at a moment asked about whose recorded state "
                "a purge erased: the rebuilt view leaves them out",
            },
            "text": {"type": "string", "description": "the [Memory] section, exactly"},
            "since": MOMENT,
            "since_text": {"type": "string", "description": "the section at `since`"},
            "diff": _ref("AgentViewDiff"),
        },
        required=["project", "at", "live", "answers_from", "purged", "text"],
        description="The agent's [Memory] section at a moment; with `since`, the section then "
        "and what changed between.",
    ),
    "AgentViewDiff": _obj(
        {
            "lines": {
                "type": "array",
                "items": TEXT,
                "description": "the text at `at` against the text at `since`, unified: each "
                "line prefixed '+', '-' or ' ', hunks as '@@' lines",
            },
            "entered": {"type": "array", "items": _ref("AgentViewChange")},
            "left": {"type": "array", "items": _ref("AgentViewChange")},
            "changed": {"type": "array", "items": _ref("AgentViewChange")},
            "renamed": {
                "type": "array",
                "items": _obj(
                    {"at": MOMENT, "from": TEXT, "to": TEXT, "actor": TEXT},
                    description="the session's project renamed between",
                ),
            },
        }
    ),
    "AgentViewChange": _obj(
        {
            "memory_id": {"type": "integer"},
            "name": TEXT,
            "project": NULLABLE_TEXT,
            "was": {
                "type": ["string", "null"],
                "enum": [*view_diff.PLACES, None],
                "description": "where the view at `since` showed it; null: not at all",
            },
            "now": {
                "type": ["string", "null"],
                "enum": [*view_diff.PLACES, None],
                "description": "where the view at `at` shows it; null: not at all",
            },
            "revisions": {
                "type": "array",
                "items": _obj(
                    {
                        "id": {"type": "integer"},
                        "at": MOMENT,
                        "action": {"type": "string", "enum": Action.values},
                        "actor": TEXT,
                        "user": NULLABLE_TEXT,
                        "door": {"type": "string", "enum": Door.values},
                    }
                ),
                "description": "the changes to it between the two moments, oldest first",
            },
            "why": {
                "type": "string",
                "description": "with no revision, what moved it (an expiry passing, the budget "
                "or the index's ceilings); empty otherwise",
            },
        },
        description="A memory that entered the view, left it or changed in it.",
    ),
    "Budget": _obj(
        {
            "budget_bytes": {"type": "integer"},
            "global_write_bytes": {
                "type": "integer",
                "description": "what a global write is measured against: the global inline "
                "bodies and the fullest project's",
            },
            "bands": {"type": "array", "items": _ref("Band")},
            "largest": LARGEST,
        }
    ),
    "Band": _obj(
        {
            "project": {
                "type": ["string", "null"],
                "description": "null: a session on no project (the global tier alone)",
            },
            "inline_bytes": {"type": "integer", "description": "global_bytes + project_bytes"},
            "global_bytes": {"type": "integer"},
            "project_bytes": {"type": "integer"},
            "budget_bytes": {"type": "integer"},
            "over_budget": {"type": "boolean"},
            "inline_shown": COUNT,
            "inline_not_shown": COUNT,
            "largest": LARGEST,
            "index": _ref("IndexUsage"),
        }
    ),
    "FieldChange": _obj(
        {
            "field": {"type": "string", "enum": [name for name, _ in diffs.DIFF_FIELDS]},
            "old": {"description": "the value before (absent for the body)"},
            "new": {"description": "the value after (absent for the body)"},
            "added": {**LINES, "description": "tags or references: items new in this version"},
            "removed": {**LINES, "description": "tags or references: items gone from it"},
            "diff": {**LINES, "description": "the body: a unified line diff (@@, -, +, space)"},
        },
        required=["field"],
        description="One field a revision changed.",
    ),
    "Revision": _obj(
        {
            "id": {"type": "integer", "minimum": 1},
            "at": MOMENT,
            "memory": _obj(
                {"id": {"type": "integer"}, "name": TEXT, "project": NULLABLE_TEXT},
                description="the memory as named by this revision (project null: global)",
            ),
            "action": {"type": "string", "enum": Action.values},
            "door": {"type": "string", "enum": Door.values},
            "actor": {"type": "string", "description": "a user, a token of one, or a command"},
            "user": NULLABLE_TEXT,
            "token": {"type": ["integer", "null"], "description": "the API token's id"},
            "reason": TEXT,
            "change_set": {"type": ["integer", "null"]},
            "purged": {"type": "boolean", "description": "its content was erased by a purge"},
            "changes": {"type": "array", "items": _ref("FieldChange")},
        },
        description="One change of one memory: who, through which door, when, what.",
    ),
    "RevisionPage": {
        "type": "object",
        "properties": {
            "memory": _obj({"id": {"type": "integer"}, "name": TEXT, "project": NULLABLE_TEXT}),
            "summary": {"type": "string", "examples": ["3 changes by alice, newest first"]},
            "revisions": {"type": "array", "items": _ref("Revision")},
            "count": {**COUNT, "description": "every match, not just this page"},
            "older": {"type": ["integer", "null"], "description": "before= for older changes"},
            "newer": {"type": ["integer", "null"], "description": "after= for newer changes"},
        },
        "required": ["revisions", "count", "older", "newer"],
        "additionalProperties": False,
    },
    "IndexUsage": _obj(
        {
            "entries": COUNT,
            "bytes": COUNT,
            "max_entries": COUNT,
            "max_bytes": COUNT,
            "left_out": COUNT,
            "search_only": COUNT,
            "expired": COUNT,
        }
    ),
}


def _error(description: str, schema: str = "Error", headers: dict | None = None) -> dict:
    response = {
        "description": description,
        "content": {"application/json": {"schema": _ref(schema)}},
    }
    if headers:
        response["headers"] = headers
    return response


def _success(description: str, schema: str, *, etag: bool = False, location: bool = False):
    response = _error(description, schema)
    headers = {}
    if etag:
        headers["ETag"] = {"schema": TEXT, "description": ETAG}
    if location:
        headers["Location"] = {"schema": TEXT}
    if headers:
        response["headers"] = headers
    return response


ETAG = (
    "the memory's version, for If-Match. It covers what a write can conflict with: "
    + ", ".join(field.removesuffix("_id") for field in ETAG_FIELDS)
    + ". Not read_count: the agent's read (POST .../read, MCP memory_read) leaves it as it is."
)
UNAUTHORIZED = _error(
    "No token, or an unknown or revoked one.",
    headers={"WWW-Authenticate": {"schema": TEXT}},
)
FORBIDDEN = _error("The token's scope or its user's role does not allow this.")
BAD_REQUEST = _error("Malformed JSON, a bad parameter, or an invalid field (see `field`).")
TOO_LARGE = _error("The request body is larger than the server accepts.")
BUSY = _error(
    "The store is busy with another write; retry after Retry-After seconds.",
    headers={"Retry-After": {"schema": TEXT}},
)
CONFLICT_409 = {
    "description": "Refused: the inline budget, a name clash, or a name several projects hold.",
    "content": {
        "application/json": {
            "schema": {"anyOf": [_ref("InlineBudgetRefusal"), _ref("AmbiguousName"), _ref("Error")]}
        }
    },
}
AMBIGUOUS_409 = _error("Several projects hold the name and none was named.", "AmbiguousName")
MEMORY_404 = _error("No such memory, or no such project.")
UNKNOWN_PROJECT = _error("The project named by project= does not exist.")
PRECONDITION = _error(
    "If-Match names a version that is no longer current (`etag`: the current) or a memory "
    "that does not exist; or If-None-Match: * names one that does."
)


def _responses(ok_status: str, ok_response: dict, **others) -> dict:
    responses = {ok_status: ok_response, "401": UNAUTHORIZED, "403": FORBIDDEN, "503": BUSY}
    responses.update({status.lstrip("_"): response for status, response in others.items()})
    return dict(sorted(responses.items()))


def _query(name: str, schema: dict, description: str, **extra) -> dict:
    return {"name": name, "in": "query", "schema": schema, "description": description, **extra}


def _limit(maximum: int, description: str) -> dict:
    return _query("limit", {"type": "integer", "minimum": 1, "maximum": maximum}, description)


def _offset(description: str) -> dict:
    return _query("offset", {"type": "integer", "minimum": 0, "maximum": 10_000_000}, description)


TIER = _query(
    "project",
    {"type": "string", "pattern": f"^({f.NAME_RE.pattern})?$", "maxLength": f.PROJECT_NAME_MAX},
    "absent: find the name in any tier; empty: the global tier; a name: that project's tier",
)
NAME = {
    "name": "name",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": NAME_PATTERN, "maxLength": f.MEMORY_NAME_MAX},
}
PROJECT_PATH = {
    "name": "name",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": NAME_PATTERN, "maxLength": f.PROJECT_NAME_MAX},
}
IF_MATCH = {
    "name": "If-Match",
    "in": "header",
    "schema": TEXT,
    "description": "the ETag last read (or a list of them): a memory at another version is "
    "refused with 412; * matches the memory if it exists. On a PUT, a memory that does not "
    "exist matches nothing (412)",
}
IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "schema": TEXT,
    "description": "*: create only; a memory of the name in the tier the PUT addresses is "
    "refused with 412 and left as it is",
}
NO_NUL = "^[^\\u0000]*$"  # a query's text holds no NUL character (refused: 400)
PRIORITY_BOUND = {"type": "integer", "minimum": f.PRIORITY_MIN, "maximum": f.PRIORITY_MAX}
LIST_PARAMETERS = [
    *(_query(flt.key, flt.schema, flt.description) for flt in FILTERS),
    _query(
        "q",
        {
            "type": "array",
            "items": {"type": "string", "maxLength": 500},
            "maxItems": 20,
        },
        "search: repeat for synonyms (q=terse&q=brevity); hits are ranked. Each query is"
        f" searched for by its first {f.MAX_QUERY_TERMS} words and terms; one of punctuation"
        " alone is scanned for among the newest memories only (capped)",
        style="form",
        explode=True,
    ),
    _query(
        "mode",
        {"type": "string", "enum": ["", *SEARCH_MODES], "default": SEARCH_MODES[0]},
        "with q: find by words and meaning fused (hybrid), by words alone, or by meaning alone;"
        " empty is the default",
    ),
    _limit(500, "page size (default 50)"),
    _offset("rows to skip"),
]

CURSOR = {"type": "string", "maxLength": find.CURSOR_MAX}
# A listing's order and its pages, as the list page takes them: /v1/memories alone.
PAGE_PARAMETERS = [
    _query(
        "sort",
        {"type": "string", "enum": ["", *listing.SORTS], "default": "index"},
        "a listing's order (a search is ranked, best first): "
        + "; ".join(f"{key}: {find.SORT_WORDS[key]}" for key in listing.SORTS),
    ),
    _query(
        "after",
        CURSOR,
        "the page after the row this cursor names (from `next`); not with offset, before or q",
    ),
    _query(
        "before",
        CURSOR,
        "the page before the row this cursor names (from `previous`); not with offset or q",
    ),
]

ID = {"type": "integer", "minimum": 1, "maximum": f.MAX_ID}
MOMENT_QUERY = {"type": "string", "maxLength": 40}
VIEW_MOMENT = {**MOMENT_QUERY, "pattern": f"^({agent_view_query.MOMENT.pattern})?$"}
AUDIT_FILTERS = [
    _query("user", {"type": "string", "maxLength": 150}, "changes by this username"),
    _query("door", {"type": "string", "enum": ["", *Door.values]}, "changes through this door"),
    _query("action", {"type": "string", "enum": ["", *Action.values]}, "changes of this kind"),
    _query(
        "since",
        MOMENT_QUERY,
        "changes at or after this RFC 3339 time, or from the start of this YYYY-MM-DD",
    ),
    _query(
        "until",
        MOMENT_QUERY,
        "changes before this RFC 3339 time, or up to the end of this YYYY-MM-DD",
    ),
    _query("change_set", ID, "the changes of one bulk action, import or undo"),
    _limit(history_reads.MAX_LIMIT, "page size (default 50)"),
    _query("before", ID, "the page of changes older than this revision id (`older`)"),
    _query(
        "after",
        {**ID, "minimum": 0},
        "the page of changes newer than this revision id (`newer`); not with before",
    ),
]


def _body(schema: str, *, required: bool = True) -> dict:
    return {"required": required, "content": {"application/json": {"schema": _ref(schema)}}}


BEARER = [{"bearer": []}]

PATHS = {
    "/v1/memories": {
        "get": {
            "operationId": "listMemories",
            "summary": "List memories in index order (or a sort), or search them with q",
            "parameters": [*LIST_PARAMETERS, *PAGE_PARAMETERS],
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("A page of memories and the count of all that match.", "MemoryList"),
                _400=BAD_REQUEST,
                _404=UNKNOWN_PROJECT,
            ),
        }
    },
    "/v1/memories/{name}": {
        "parameters": [NAME, TIER],
        "get": {
            "operationId": "getMemory",
            "summary": "One memory with its body and what references it",
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("The memory.", "MemoryDetail", etag=True),
                _400=BAD_REQUEST,
                _404=MEMORY_404,
                _409=AMBIGUOUS_409,
            ),
        },
        "put": {
            "operationId": "putMemory",
            "summary": "Create (201) or update (200) a memory; omitted fields keep their value",
            "description": "Needs a write token.",
            "parameters": [IF_MATCH, IF_NONE_MATCH],
            "requestBody": _body("MemoryWrite"),
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("Updated.", "MemoryWritten", etag=True),
                _201=_success("Created.", "MemoryWritten", etag=True, location=True),
                _400=BAD_REQUEST,
                _404=_error("The project addressed or moved to does not exist."),
                _409=CONFLICT_409,
                _412=PRECONDITION,
                _413=TOO_LARGE,
            ),
        },
        "delete": {
            "operationId": "deleteMemory",
            "summary": "Delete a memory; those citing it keep their references",
            "description": "Needs a write token.",
            "parameters": [IF_MATCH],
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("Deleted.", "MemoryDeleted"),
                _400=BAD_REQUEST,
                _404=MEMORY_404,
                _409=AMBIGUOUS_409,
                _412=PRECONDITION,
            ),
        },
    },
    "/v1/memories/{name}/edit": {
        "parameters": [NAME, TIER],
        "post": {
            "operationId": "editMemory",
            "summary": "Replace old_string, found exactly once (or everywhere), in the body",
            "description": "Needs a write token.",
            "parameters": [IF_MATCH],
            "requestBody": _body("MemoryEdit"),
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("Edited.", "MemoryEdited", etag=True),
                _400=_error("old_string found nowhere, or more than once without replace_all."),
                _404=MEMORY_404,
                _409=CONFLICT_409,
                _412=PRECONDITION,
                _413=TOO_LARGE,
            ),
        },
    },
    "/v1/memories/{name}/read": {
        "parameters": [NAME, TIER],
        "post": {
            "operationId": "readMemory",
            "summary": "The agent's read: the body with its caption; counts one read",
            "description": "The only route that increments read_count. A read token is enough.",
            "requestBody": _body("MemoryReadRequest", required=False),
            "security": BEARER,
            "responses": _responses(
                "200",
                _success(
                    "Up to 16,000 characters of the body from offset.", "MemoryRead", etag=True
                ),
                _400=BAD_REQUEST,
                _404=MEMORY_404,
                _409=AMBIGUOUS_409,
                _413=TOO_LARGE,
            ),
        },
    },
    "/v1/memories/{name}/history": {
        "parameters": [NAME, TIER],
        "get": {
            "operationId": "getMemoryHistory",
            "summary": "The memory's revisions, newest first, with what each changed",
            "parameters": AUDIT_FILTERS,
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("A page of the memory's revisions.", "RevisionPage"),
                _400=BAD_REQUEST,
                _404=MEMORY_404,
                _409=AMBIGUOUS_409,
            ),
        },
    },
    "/v1/audit": {
        "get": {
            "operationId": "getAudit",
            "summary": "Every change to the store, newest first, filtered",
            "description": "The dashboard's audit log. A project removed since is still "
            "found by the name its revisions recorded.",
            "parameters": [
                {
                    **TIER,
                    "description": "absent: every tier; empty: the global tier; a name: that "
                    "project's tier (a change moving a memory counts for both tiers)",
                },
                _query(
                    "memory",
                    {"type": "string", "maxLength": f.MEMORY_NAME_MAX},
                    "changes of memories of this name, in any tier",
                ),
                *AUDIT_FILTERS,
            ],
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("A page of the log and the count of all that match.", "RevisionPage"),
                _400=BAD_REQUEST,
            ),
        }
    },
    "/v1/projects": {
        "get": {
            "operationId": "listProjects",
            "summary": "Every project with its memory count",
            "security": BEARER,
            "responses": _responses("200", _success("The projects, by name.", "ProjectList")),
        },
        "post": {
            "operationId": "addProject",
            "summary": "Add a project",
            "description": "Needs a write token.",
            "requestBody": _body("ProjectName"),
            "security": BEARER,
            "responses": _responses(
                "201",
                _success("Added.", "Project", location=True),
                _400=BAD_REQUEST,
                _409=_error("A project of that name exists."),
                _413=TOO_LARGE,
            ),
        },
    },
    "/v1/projects/{name}": {
        "parameters": [PROJECT_PATH],
        "patch": {
            "operationId": "renameProject",
            "summary": "Rename a project; its memories move with it",
            "description": "Needs a write token.",
            "requestBody": _body("ProjectName"),
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("Renamed.", "Project"),
                _400=BAD_REQUEST,
                _404=_error("No such project."),
                _409=_error("A project of the new name exists."),
                _413=TOO_LARGE,
            ),
        },
        "delete": {
            "operationId": "removeProject",
            "summary": "Remove a project; refused while any memory remains in it",
            "description": "Needs a write token.",
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("Removed.", "ProjectDeleted"),
                _404=_error("No such project."),
                _409=_error("Memories remain in the project (`memory_count`)."),
            ),
        },
    },
    "/v1/budget": {
        "get": {
            "operationId": "getBudget",
            "summary": "Inline bytes of every band against the budget, and index usage",
            "security": BEARER,
            "responses": _responses("200", _success("The budget report.", "Budget")),
        }
    },
    "/v1/agent-view": {
        "get": {
            "operationId": "getAgentView",
            "summary": "The agent's [Memory] section of a session, now or at a past moment",
            "description": "As the MCP resource `memory://index` gives it. With `at`, rebuilt "
            "from the revisions: the memories, their expiries and the projects' names as they "
            "stood then (the budget is the setting's). With `since`, the section then too and "
            "what changed between, line by line and memory by memory, with who changed it. A "
            "moment is RFC 3339, a date and time with no offset (the server's time zone) or a "
            "day (its start); a moment to come, `since` not before `at`, or a moment before the "
            "history kept (`answers_from`) is refused, 400.",
            "parameters": [
                {
                    **TIER,
                    "description": "the session's project (as it is named now or was then); "
                    "absent or empty: a session on no project",
                },
                _query("at", VIEW_MOMENT, "the moment; absent: now"),
                _query("since", VIEW_MOMENT, "an earlier moment to diff the section with"),
            ],
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("The section, and with `since` the diff.", "AgentView"),
                _400=BAD_REQUEST,
                _404=_error("No project has that name, now or then."),
            ),
        }
    },
    "/v1/openapi.json": {
        "get": {
            "operationId": "getOpenAPI",
            "summary": "This document",
            "security": [],
            "responses": {
                "200": {
                    "description": "The OpenAPI document.",
                    "content": {"application/json": {"schema": {"type": "object"}}},
                }
            },
        }
    },
}

DESCRIPTION = """\
The JSON API of memadmin, the store of an AI agent's durable memory.

Every response is JSON; every failure is `{"error": "<one sentence>", ...details}`.
Authenticate with `Authorization: Bearer <token>` (`manage.py apitoken create USER --scope
read|write`). A read token may call every GET and the agent's read; writes need a write token
whose user is an operator or admin. Every write is recorded in the history as made through the
api door by the token's user (`GET /v1/audit`, `GET /v1/memories/{name}/history`). An
unknown route answers 404, a wrong method 405 (with Allow), malformed JSON or parameters 400,
a query parameter or body field a route does not take 400 naming it, a body over the
server's limit 413 (refused from its Content-Length, before it is read).

Refusals the HTTP server makes before the request reaches the application are the same JSON
error: a request line over 4,094 bytes (414 URI Too Long; a long `q=` belongs in fewer
synonyms), more than 100 header fields or a header line over 8,190 bytes (431 Request Header
Fields Too Large), a malformed request line, header or chunked body (400), and a connection
past the number one client address may hold open at once (429). A reverse proxy in front
adds its own answers (413, 502, 504...), in its own format.
"""
