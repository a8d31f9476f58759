"""The insight routes' part of the OpenAPI document (/v1/graph, /v1/memories/{name}/graph,
/v1/hygiene, /v1/hygiene/consolidation), built with the document's own helpers;
memadmin.api.openapi merges it in."""

from memadmin.api.openapi.core import (
    AMBIGUOUS_409,
    BAD_REQUEST,
    BEARER,
    COUNT,
    LINES,
    LIST_PARAMETERS,
    MEMORY_404,
    MEMORY_FIELDS,
    NAME,
    NULLABLE_TEXT,
    TEXT,
    TIER,
    UNKNOWN_PROJECT,
    _body,
    _limit,
    _obj,
    _offset,
    _query,
    _ref,
    _responses,
    _success,
)
from memories.reads import consolidation, graph, hygiene
from memories.rules import fields as f
from memories.writes import consolidation as consolidate

NODE_KINDS = ["memory", *graph.DANGLING_KINDS]
SCOPE_PARAMETERS = [p for p in LIST_PARAMETERS if p["name"] not in {"q", "limit", "offset"}]
NODE_CAP = _query(
    "limit",
    {"type": "integer", "minimum": 1, "maximum": graph.MAX_NODE_CAP},
    f"the most nodes to draw (default {graph.DEFAULT_NODE_CAP}); past it whole clusters are "
    "kept, largest first",
)
VERSION = {
    "type": "integer",
    "minimum": 0,
    "description": "the id of the memory's latest revision when the plan was drawn",
}
KEY = {
    "type": "string",
    "pattern": consolidation.KEY_RE.pattern,
    "description": "names the cluster and the version of every memory it touches; applying "
    "it refuses a cluster changed since",
}
OUTCOMES = [consolidate.APPLIED, consolidate.REFUSED, consolidate.SKIPPED]


def _section(item: dict) -> dict:
    return _obj(
        {
            "count": COUNT,
            "more": {
                "type": "boolean",
                "description": f"the count stopped at {hygiene.COUNT_BOUND:,}: there are more"
                " (a scope beyond one tier)",
            },
            "drawn_from": {
                **NULLABLE_TEXT,
                "description": "the part of the scope the list was drawn from when not all of"
                f" it: a scope beyond one tier's dangling targets are those its newest"
                f" {hygiene.SCOPE_READ:,} memories cite",
            },
            "limit": COUNT,
            "offset": COUNT,
            "items": {"type": "array", "items": item},
        }
    )


SCHEMAS = {
    "GraphNode": _obj(
        {
            "id": TEXT,
            "kind": {"type": "string", "enum": NODE_KINDS},
            "label": TEXT,
            "degree": COUNT,
            "cluster": {
                "type": "integer",
                "minimum": 0,
                "description": "which connected piece of the drawn graph, 0 the largest",
            },
            "name": TEXT,
            "project": NULLABLE_TEXT,
            "tier": TEXT,
            "url": {
                "type": "string",
                "description": "the memory's page: /memories/{name}/?project= and its project "
                "(empty: the global tier)",
            },
            "description": TEXT,
            "load": {"type": "string", "enum": list(f.LOADS)},
            "priority": {"type": "integer"},
            "read_count": COUNT,
            "expired": {"type": "boolean"},
            "in_scope": {
                "type": "boolean",
                "description": "false: drawn because it cites or is cited by a memory in scope",
            },
            "target": {"type": "string", "description": "a dangling target as written"},
            "depth": {"type": "integer", "description": "hops from the centre"},
        },
        required=["id", "kind", "label", "degree", "cluster"],
        description="A memory (kind memory) or a target no memory of the citing band holds.",
    ),
    "GraphEdge": _obj(
        {"id": TEXT, "source": TEXT, "target": TEXT, "cross_tier": {"type": "boolean"}},
        description="A reference: source cites target.",
    ),
    "Graph": _obj(
        {
            "nodes": {"type": "array", "items": _ref("GraphNode")},
            "edges": {"type": "array", "items": _ref("GraphEdge")},
            "shown_nodes": COUNT,
            "total_nodes": COUNT,
            "shown_edges": COUNT,
            "total_edges": COUNT,
            "capped": {"type": "boolean"},
            "cap": COUNT,
            "isolated": {
                "type": "integer",
                "minimum": 0,
                "description": "memories in scope with no reference in or out (not drawn); "
                "counted when the graph is whole (partial false), else 0",
            },
            "centre": NULLABLE_TEXT,
            "depth": {"type": ["integer", "null"]},
            "partial": {
                "type": "boolean",
                "description": "a neighbourhood stopped at the cap before its depth, or the "
                "store-wide graph drawn from its newest references alone (filtered: from its "
                "newest memories' references) (totals: at least)",
            },
            "summary": TEXT,
        }
    ),
    "DanglingTarget": _obj(
        {
            "target": TEXT,
            "kind": {"type": "string", "enum": list(graph.DANGLING_KINDS)},
            "citing_count": COUNT,
            "citing": {"type": "array", "items": _ref("Backlink")},
            "held_elsewhere": {
                "type": "array",
                "items": TEXT,
                "description": "tiers holding a memory of this name outside the citing band",
            },
        }
    ),
    "Shadow": _obj(
        {
            "memory": _ref("Backlink"),
            "shadows": _ref("Backlink"),
            "ratio": {"type": "number", "minimum": 0, "maximum": 1},
        },
        description="A project memory whose description says what a global one says.",
    ),
    "HoldingSecret": _obj(
        {
            "memory": _ref("Backlink"),
            "found": {
                "type": "array",
                "items": _obj(
                    {
                        "field": TEXT,
                        "kind": TEXT,
                        "line": {"type": "integer", "minimum": 1},
                        "shown": {"type": "string", "description": "the line, credentials masked"},
                    }
                ),
            },
        },
        description="A memory holding a credential by the write doors' rule, its lines masked.",
    ),
    "DuplicateGroup": _obj(
        {
            "size": COUNT,
            "identical": {"type": "boolean"},
            "memories": {"type": "array", "items": _ref("Backlink")},
        }
    ),
    "ConsolidationMember": _obj(
        {**MEMORY_FIELDS, "version": VERSION},
        description="A memory of a cluster, as listed, with its version.",
    ),
    "ConsolidationDiff": _obj(
        {"survivor": LINES, "member": LINES},
        description="the words of each that the other lacks, run by run",
    ),
    "ConsolidationReview": _obj(
        {
            "key": KEY,
            "memory": _ref("ConsolidationMember"),
            "merged": _obj(
                {
                    "tags": {"type": "array", "items": TEXT},
                    "references": {"type": "array", "items": TEXT},
                },
                description="the survivor's tags and references once this member's are merged",
            ),
            "repoint": {"type": "array", "items": _ref("ConsolidationRepoint")},
            "differences": _obj(
                {
                    "description": _ref("ConsolidationDiff"),
                    "body": _ref("ConsolidationDiff"),
                    "tags": _ref("ConsolidationDiff"),
                    "priority": _obj(
                        {"survivor": {"type": "integer"}, "member": {"type": "integer"}}
                    ),
                },
                description="what the member says, tags and ranks that the survivor does not, "
                "and the reverse",
            ),
        },
        description="A member that says something its survivor does not: never trashed by the "
        "one-click apply; its key merges it into the survivor when applied with "
        '"reviewed": true.',
    ),
    "ConsolidationRepoint": _obj(
        {
            "name": TEXT,
            "project": NULLABLE_TEXT,
            "version": VERSION,
            "references": {"type": "array", "items": TEXT},
        },
        description="a memory outside the cluster naming a source: its references "
        "once they name the survivor",
    ),
    "ConsolidationCluster": _obj(
        {
            "key": {
                "oneOf": [KEY, {"type": "null"}],
                "description": "the one-click apply of the sources that lose nothing (null when "
                "every other member needs review)",
            },
            "kind": {
                "type": "string",
                "enum": [consolidation.EXACT, consolidation.NEAR],
                "description": "exact: the same description and body; near: alike in meaning",
            },
            "similarity": {
                "type": "number",
                "description": "the least cosine of a member to the cluster's centre",
            },
            "survivor": _ref("ConsolidationMember"),
            "sources": {
                "type": "array",
                "items": _ref("ConsolidationMember"),
                "description": "put in the trash by the one-click apply: exact duplicates, or "
                "a description and body each contained in the survivor's",
            },
            "merged": _obj(
                {
                    "tags": {"type": "array", "items": TEXT},
                    "references": {"type": "array", "items": TEXT},
                },
                description="the survivor's tags and references once the sources' are merged in",
            ),
            "repoint": {"type": "array", "items": _ref("ConsolidationRepoint")},
            "review": {
                "type": "array",
                "items": _ref("ConsolidationReview"),
                "description": "members that need review: merged by hand, never in one click",
            },
        }
    ),
    "ConsolidationPlan": _obj(
        {
            "count": COUNT,
            "limit": COUNT,
            "clusters": {"type": "array", "items": _ref("ConsolidationCluster")},
        },
        description="Clusters of duplicates within a tier, the largest and closest first.",
    ),
    "ConsolidationApply": _obj(
        {
            "clusters": {
                "type": "array",
                "items": KEY,
                "minItems": 1,
                "maxItems": consolidation.PLAN_MAX,
            },
            "reviewed": {
                "type": "boolean",
                "description": "true: the keys include reviews, merged by hand after their "
                "differences were read (default false: such a key is refused)",
            },
        },
        required=["clusters"],
    ),
    "ConsolidationReceipt": _obj(
        {
            "planned": COUNT,
            "applied": COUNT,
            "refused": COUNT,
            "skipped": COUNT,
            "clusters": {
                "type": "array",
                "items": _obj(
                    {
                        "key": TEXT,
                        "outcome": {"type": "string", "enum": OUTCOMES},
                        "survivor": TEXT,
                        "reason": TEXT,
                        "change_set": {
                            "type": ["integer", "null"],
                            "description": "the change set an applied cluster is, to undo",
                        },
                        "trashed": COUNT,
                        "repointed": COUNT,
                    }
                ),
            },
        }
    ),
    "Hygiene": _obj(
        {
            "period": TEXT,
            "dangling": _section(_ref("DanglingTarget")),
            "orphans": _section(_ref("Memory")),
            "shadows": _section(_ref("Shadow")),
            "unverified": _section(_ref("Memory")),
            "duplicates": _section(_ref("DuplicateGroup")),
            "secrets": _section(_ref("HoldingSecret")),
        },
        required=["period"],
        description="Every list, or the one section= names.",
    ),
}

PATHS = {
    "/v1/graph": {
        "get": {
            "operationId": "getGraph",
            "summary": "The store-wide backlink graph of the memories the filters admit",
            "parameters": [*SCOPE_PARAMETERS, NODE_CAP],
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("Nodes and references, capped, with the totals.", "Graph"),
                _400=BAD_REQUEST,
                _404=UNKNOWN_PROJECT,
            ),
        }
    },
    "/v1/memories/{name}/graph": {
        "parameters": [NAME, TIER],
        "get": {
            "operationId": "getMemoryGraph",
            "summary": "What a memory references and what references it, 1 to 3 hops out",
            "parameters": [
                _query(
                    "depth",
                    {"type": "integer", "minimum": 1, "maximum": graph.MAX_DEPTH},
                    "hops from the memory (default 1)",
                ),
                NODE_CAP,
            ],
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("The neighbourhood, nearest first.", "Graph"),
                _400=BAD_REQUEST,
                _404=MEMORY_404,
                _409=AMBIGUOUS_409,
            ),
        },
    },
    "/v1/hygiene": {
        "get": {
            "operationId": "getHygiene",
            "summary": "Dangling references, orphans, shadows, the verification queue, "
            "near-duplicates; memories holding a credential",
            "parameters": [
                *(
                    {**p, "description": "the verification queue's period (default 90d)"}
                    if p["name"] == "unverified"
                    else p
                    for p in SCOPE_PARAMETERS
                ),
                _query(
                    "section",
                    {"type": "string", "enum": ["", *hygiene.LISTS]},
                    "one list alone (empty: every list but secrets, which is asked for alone)",
                ),
                _limit(500, f"items of each list (default {hygiene.SECTION_LIMIT})"),
                _offset("items to skip; needs section="),
            ],
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("Each list's count and first items.", "Hygiene"),
                _400=BAD_REQUEST,
                _404=UNKNOWN_PROJECT,
            ),
        }
    },
    "/v1/hygiene/consolidation": {
        "get": {
            "operationId": "getConsolidationPlan",
            "summary": "The consolidation review: clusters of duplicates and the plan of each",
            "parameters": [
                {
                    **TIER,
                    "description": "absent: every tier; empty: the global tier; a name: that "
                    "project's tier",
                },
                _limit(
                    consolidation.PLAN_MAX, f"clusters drawn (default {consolidation.PLAN_LIMIT})"
                ),
            ],
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("The plan, cluster by cluster.", "ConsolidationPlan"),
                _400=BAD_REQUEST,
                _404=UNKNOWN_PROJECT,
            ),
        },
        "post": {
            "operationId": "applyConsolidation",
            "summary": "Apply clusters of the plan by their keys, each one change set",
            "description": "Needs a write token. A cluster changed since its plan was drawn is "
            "refused, one whose sources are gone skipped; undo an applied one through its "
            "change set. A key naming a member that says something its survivor does not (a "
            'review) is refused unless "reviewed" is true.',
            "requestBody": _body("ConsolidationApply"),
            "security": BEARER,
            "responses": _responses(
                "200",
                _success("What became of each cluster.", "ConsolidationReceipt"),
                _400=BAD_REQUEST,
            ),
        },
    },
}
