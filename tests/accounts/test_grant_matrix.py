"""The authorization matrix: every page, fragment and /v1 route, every MCP tool and resource,
for a person and an API token granted (a) the whole store, (b) one project, (c) the global
tier alone, (d) nothing, each as auditor, operator and admin. Every page request is sent
twice, as a page and as htmx's partial (`HX-Request: true`), which views answer apart.

Each answer's status is checked, and its body searched for the names, descriptions and a
marker in the bodies of the memories of every tier the principal holds no grant on, and for
those tiers' project names: none may appear. What lies past a grant is not found (404),
never forbidden, so its existence does not leak.

The routes are read from the URLconf: a route added without a row here fails
`test_every_route_is_in_the_matrix`.
"""

import json
from dataclasses import dataclass, field, replace

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from memadmin.accounts import grants, roles, tokens
from memadmin.models import OidcRoleMapping
from memories.models import Memory, Revision, TrashedMemory
from memories.writes import bulk, doors
from projects import writes as project_doors
from tests.conftest import make_user

ROLES = (roles.AUDITOR, roles.OPERATOR, roles.ADMIN)
WHOLE, PROJECT, GLOBAL, NOTHING = "whole", "project", "global", "nothing"

# What each tier holds: a memory, its description and a marker in its body; and the
# project's name. Strings nothing else on any page holds.
TIERS = {
    GLOBAL: {"memory": "globmem-k3", "description": "globdesc-k3", "marker": "GLOBMARK-k3"},
    "alpha": {
        "memory": "alphamem-k3",
        "description": "alphadesc-k3",
        "marker": "ALPHAMARK-k3",
        "project": "alphaproj-k3",
    },
    "vault": {
        "memory": "vaultmem-k3",
        "description": "vaultdesc-k3",
        "marker": "VAULTMARK-k3",
        "project": "vaultproj-k3",
    },
}
ALPHA, VAULT = TIERS["alpha"]["project"], TIERS["vault"]["project"]
EDIT = {"old_string": "VAULTMARK", "new_string": "V"}
STALE = {"If-Match": '"stale"'}
HTMX = {"HX-Request": "true"}  # a delete refused for a version mismatch, whoever may delete
# The tiers each grant sees: a project's grant reads the global tier too (a session on the
# project reads it), and never changes it.
SEEN = {
    WHOLE: {GLOBAL, "alpha", "vault"},
    PROJECT: {GLOBAL, "alpha"},
    GLOBAL: {GLOBAL},
    NOTHING: set(),
}


def forbidden(grant: str) -> list[str]:
    return [
        text
        for tier, held in TIERS.items()
        if tier not in SEEN[grant]
        for key, text in held.items()
    ]


@dataclass(frozen=True)
class Call:
    """One request of the matrix: `route` the URLconf's name for it; `tier` the tier of the
    memory, project or record it names (None: none); `htmx`: sent as htmx sends it (a page's
    form posts always are)."""

    route: str
    method: str
    path: str
    data: dict = field(default_factory=dict)
    tier: str | None = None
    htmx: bool = False


# Every route of the URLconf, by its key (`namespace:name`, or the pattern of an unnamed one),
# with no call in the matrix, and why.
NOT_CALLED = {
    "logout": "signing out ends the session the rest of the matrix runs in (test_sessions)",
    "v1/^.*$": "no route: the JSON 404 of any unknown path under /v1, called below as /v1/nope",
    "api:events": "a stream that stays open: tests/live/test_events_api.py holds it to its grants",
}


def route_keys() -> set[str]:
    def walk(patterns, prefix="", namespace=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                inner = ":".join(filter(None, [namespace, pattern.namespace or ""]))
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern), inner)
            elif isinstance(pattern, URLPattern):
                if pattern.name:
                    yield f"{namespace}:{pattern.name}" if namespace else pattern.name
                else:
                    yield prefix + str(pattern.pattern)

    return set(walk(get_resolver().url_patterns))


def calls(ids: dict) -> list[Call]:
    """The matrix's requests, the ids of the store's records filled in."""
    g, a, v = (TIERS[t]["memory"] for t in (GLOBAL, "alpha", "vault"))
    gq, aq, vq = "?project=", f"?project={ALPHA}", f"?project={VAULT}"
    page = [
        Call("overview", "GET", "/"),
        Call("login", "GET", "/sign-in/"),
        Call("memories:list", "GET", "/memories/"),
        Call("memories:list", "GET", "/memories/?format=csv"),
        Call("memories:list", "GET", "/memories/?format=json"),
        Call("memories:list", "GET", "/memories/?q=k3&mode=words"),
        Call("memories:list", "GET", "/memories/?q=body+marker"),
        Call("memories:list", "GET", "/memories/?q=vault+body&mode=meaning"),
        Call("memories:list", "GET", f"/memories/{vq}", tier="vault"),
        Call("memories:bulk", "POST", "/memories/_bulk/", {"action": "verify", "id": ids["v"]}),
        Call("memories:facets", "GET", "/memories/_facets/"),
        Call("live-events", "GET", "/live/events?once=1&after=0"),
        Call("memories:columns", "POST", "/memories/_columns/", {"show": ["priority"]}),
        Call("memories:months", "GET", "/memories/_months/"),
        Call("memories:new", "GET", "/memories/_new/"),
        Call("memories:tiers", "GET", "/memories/_agent/"),
        Call("memories:tiers", "GET", f"/memories/_agent/{aq}", tier="alpha"),
        Call("memories:tiers", "GET", f"/memories/_agent/{vq}", tier="vault"),
        Call("memories:detail", "GET", f"/memories/{g}/{gq}", tier=GLOBAL),
        Call("memories:detail", "GET", f"/memories/{v}/{vq}", tier="vault"),
        Call("memories:detail", "GET", f"/memories/{v}/", tier="vault"),
        Call("memories:row", "POST", f"/memories/{v}/row/{vq}", {"priority": 1}, tier="vault"),
        Call("memories:delete", "GET", f"/memories/{v}/delete/{vq}", tier="vault"),
        Call("memories:supersede", "GET", f"/memories/{v}/supersede/{vq}", tier="vault"),
        Call("memories:history", "GET", f"/memories/{a}/history/{aq}", tier="alpha"),
        Call("memories:history", "GET", f"/memories/{v}/history/{vq}", tier="vault"),
        Call("agent/", "GET", f"/agent/{vq}", tier="vault"),
        Call("projects:list", "GET", "/projects/"),
        Call("projects:rename", "POST", f"/projects/{VAULT}/rename/", {"new_name": ALPHA}, "vault"),
        Call("projects:remove", "POST", f"/projects/{VAULT}/remove/", tier="vault"),
        Call("snapshots:page", "GET", "/snapshots/"),
        Call("snapshots:download", "GET", "/snapshots/download/"),
        Call("snapshots:preview", "POST", "/snapshots/preview/"),
        Call("snapshots:import", "POST", "/snapshots/import/"),
        Call("history:log", "GET", "/history/"),
        Call("history:export", "GET", "/history/log.csv"),
        Call("history:export", "GET", "/history/log.json"),
        Call("history:revision", "GET", f"/history/revisions/{ids['rv']}/", tier="vault"),
        Call(
            "history:restore_version",
            "POST",
            f"/history/revisions/{ids['rv']}/restore/",
            tier="vault",
        ),
        Call("history:change_sets", "GET", "/history/changes/"),
        Call("history:change_set", "GET", f"/history/changes/{ids['cv']}/", tier="vault"),
        Call("history:trash", "GET", "/history/trash/"),
        Call("history:trash_restore", "POST", f"/history/trash/{ids['tv']}/restore/", tier="vault"),
        Call("history:trash_purge", "POST", f"/history/trash/{ids['tv']}/purge/", tier="vault"),
        Call("tokens", "GET", "/tokens/"),
        Call("token-revoke", "POST", f"/tokens/{ids['other_token']}/revoke/"),
        Call("token-pause", "POST", f"/tokens/{ids['other_token']}/pause/"),
        Call("token-rotate", "POST", f"/tokens/{ids['other_token']}/rotate/"),
        Call("accounts", "GET", "/accounts/"),
        Call("account-change", "POST", f"/accounts/{ids['other_user']}/", {"role": "auditor"}),
        Call("account-grants", "POST", f"/accounts/{ids['other_user']}/grants/", {"tier": ""}),
        Call("sign-in-unlock", "POST", "/accounts/unlock/", {"kind": "account", "value": "x"}),
        Call("group-roles", "POST", "/accounts/group-roles/", {"group": "k3", "role": "admin"}),
        Call("group-role-remove", "POST", f"/accounts/group-roles/{ids['mapping']}/remove/"),
        Call("oidc-start", "GET", "/sign-in/oidc/"),
        Call("oidc-callback", "GET", "/sign-in/oidc/callback/?code=x&state=y"),
        Call("insights:graph", "GET", "/graph/"),
        Call("insights:graph-data", "GET", "/graph/data/"),
        Call("insights:around", "GET", f"/graph/around/{v}/{vq}", tier="vault"),
        Call("insights:around-data", "GET", f"/graph/around/{v}/data/{vq}", tier="vault"),
        Call("insights:around-data", "GET", f"/graph/around/{g}/data/{gq}", tier=GLOBAL),
        Call("insights:budget", "GET", "/budget/"),
        Call("insights:set-load", "POST", "/budget/set-load/", {"id": ids["v"]}),
        Call("insights:set-priority", "POST", "/budget/set-priority/", {"id": ids["v"]}),
        Call("insights:hygiene", "GET", "/hygiene/"),
        Call("insights:verify", "POST", "/hygiene/verify/", {"id": ids["v"]}),
        Call("insights:compare", "GET", f"/hygiene/compare/?id={ids['v']}&id={ids['g']}"),
        Call("insights:consolidation", "GET", "/hygiene/consolidation/"),
        *(
            Call("insights:hygiene-section", "GET", f"/hygiene/{section}/")
            for section in ("dangling", "orphans", "shadows", "unverified", "duplicates")
        ),
    ]
    api = [
        Call("api:memories", "GET", "/v1/memories"),
        Call("api:memories", "GET", "/v1/memories?q=k3&mode=words"),
        Call("api:memories", "GET", "/v1/memories?q=body+marker"),
        Call("api:memories", "GET", "/v1/memories?q=vault+body&mode=meaning"),
        Call("api:memories", "GET", f"/v1/memories{vq}", tier="vault"),
        Call("api:memory", "GET", f"/v1/memories/{g}{gq}", tier=GLOBAL),
        Call("api:memory", "GET", f"/v1/memories/{v}", tier="vault"),
        Call("api:memory", "PUT", f"/v1/memories/{v}{vq}", {"priority": 1}, tier="vault"),
        Call("api:memory", "DELETE", f"/v1/memories/{v}{vq}", STALE, tier="vault"),
        Call("api:memory-edit", "POST", f"/v1/memories/{v}/edit{vq}", EDIT, "vault"),
        Call("api:memory-read", "POST", f"/v1/memories/{v}/read{vq}", tier="vault"),
        Call("api:memory-history", "GET", f"/v1/memories/{v}/history{vq}", tier="vault"),
        Call("api:memory-graph", "GET", f"/v1/memories/{v}/graph{vq}", tier="vault"),
        Call("api:memory-graph", "GET", f"/v1/memories/{g}/graph{gq}", tier=GLOBAL),
        Call("api:projects", "GET", "/v1/projects"),
        Call("api:project", "PATCH", f"/v1/projects/{VAULT}", {"name": ALPHA}, tier="vault"),
        Call("api:project", "DELETE", f"/v1/projects/{VAULT}", tier="vault"),
        Call(
            "api:bulk",
            "POST",
            "/v1/bulk",
            {"action": "verify", "memories": [{"name": v, "project": VAULT}]},
            tier="vault",
        ),
        Call("api:revision", "GET", f"/v1/revisions/{ids['rv']}", tier="vault"),
        Call("api:revision-restore", "POST", f"/v1/revisions/{ids['rv']}/restore", tier="vault"),
        Call("api:change-sets", "GET", "/v1/change-sets"),
        Call("api:change-set", "GET", f"/v1/change-sets/{ids['cv']}", tier="vault"),
        Call("api:change-set-undo", "POST", f"/v1/change-sets/{ids['cv']}/undo", tier="vault"),
        Call("api:trash", "GET", "/v1/trash"),
        Call("api:trash-restore", "POST", f"/v1/trash/{ids['tv']}/restore", tier="vault"),
        Call("api:trashed", "DELETE", f"/v1/trash/{ids['tv']}", tier="vault"),
        Call("api:budget", "GET", "/v1/budget"),
        Call("api:agent-view", "GET", "/v1/agent-view"),
        Call("api:agent-view", "GET", f"/v1/agent-view{vq}", tier="vault"),
        Call("api:audit", "GET", "/v1/audit"),
        Call("api:graph", "GET", "/v1/graph"),
        Call("api:hygiene", "GET", "/v1/hygiene"),
        Call("api:consolidation", "GET", "/v1/hygiene/consolidation"),
        Call("api:openapi", "GET", "/v1/openapi.json"),
        Call("v1", "GET", "/v1"),
        Call("v1/^.*$", "GET", "/v1/nope"),
    ]
    tool = {"name": v}  # on a session on the vault's project: past the grants, 403 first
    mcp = [
        Call("mcp", "TOOL", "/mcp", {"name": "memory_search", "arguments": {"queries": ["k3"]}}),
        Call("mcp", "TOOL", "/mcp", {"name": "memory_read", "arguments": {"name": g}}, GLOBAL),
        Call(
            "mcp",
            "TOOL",
            f"/mcp{aq}",
            {"name": "memory_search", "arguments": {"queries": ["body marker"]}},
            "alpha",
        ),
        Call("mcp", "TOOL", f"/mcp{vq}", {"name": "memory_read", "arguments": tool}, "vault"),
        Call(
            "mcp",
            "TOOL",
            f"/mcp{vq}",
            {"name": "memory_write", "arguments": {**tool, "description": "x"}},
            "vault",
        ),
        Call(
            "mcp",
            "TOOL",
            f"/mcp{vq}",
            {"name": "memory_edit", "arguments": {**tool, "old_string": "V", "new_string": "W"}},
            "vault",
        ),
        Call("mcp", "RESOURCE", "/mcp", {"uri": "memory://index"}),
        Call("mcp", "RESOURCE", f"/mcp{vq}", {"uri": "memory://index"}, "vault"),
        Call("mcp", "LIST", "/mcp", {"method": "tools/list"}),
        Call("mcp", "LIST", "/mcp", {"method": "resources/list"}),
        # Last: it deletes the vault's memory for whoever may.
        Call("mcp", "TOOL", f"/mcp{vq}", {"name": "memory_delete", "arguments": tool}, "vault"),
    ]
    partials = [replace(call, htmx=True) for call in page if call.method == "GET"]
    return page + partials + api + mcp


@pytest.fixture
def store(db):
    """Three tiers, each with a memory, a revision, a change set and a trashed memory."""
    for tier in ("alpha", "vault"):
        project_doors.add(TIERS[tier]["project"])
    ids = {}
    for tier, held in TIERS.items():
        project = held.get("project")
        memory = doors.write(
            held["memory"],
            project=project,
            description=held["description"],
            body=f"{held['marker']} body",
            references=[TIERS[tier]["memory"] + "-note"],
            load="inline",
        ).memory
        doors.write(held["memory"] + "-gone", project=project, description=held["description"])
        doors.delete(held["memory"] + "-gone", project=project)
        ids[tier[0]] = memory.id
        done = bulk.set_priority([memory.id], 2)
        ids["c" + tier[0]] = done.change_set_id
    vault = Memory.objects.get(name=TIERS["vault"]["memory"])
    ids["rv"] = Revision.objects.filter(memory_id=vault.id).order_by("id").first().id
    ids["tv"] = TrashedMemory.objects.get(revision__name=TIERS["vault"]["memory"] + "-gone").id
    bystander = make_user("bystander-k3", roles.OPERATOR)
    ids["other_user"] = bystander.id
    ids["other_token"] = tokens.create_token(bystander, "read")[0].id
    ids["mapping"] = OidcRoleMapping.objects.create(group="k3-staff", role=roles.AUDITOR).id
    return ids


@dataclass
class Principal:
    kind: str  # person or token
    grant: str
    role: str

    @property
    def label(self) -> str:
        return f"{self.kind}-{self.grant}-{self.role}"


PRINCIPALS = [
    Principal(kind, grant, role)
    for kind in ("person", "token")
    for grant in (WHOLE, PROJECT, GLOBAL)
    for role in ROLES
] + [Principal(kind, NOTHING, "") for kind in ("person", "token")]


def _holder(principal: Principal):
    """The account and the client that speak as the principal."""
    user = make_user(f"p-{principal.label}", None)
    place = {WHOLE: grants.WHOLE_STORE, PROJECT: ALPHA, GLOBAL: None}.get(principal.grant)
    if principal.kind == "person":
        if place is not None or principal.grant == GLOBAL:
            grants.grant(None, user, principal.role, place)
        client = Client()
        client.force_login(user)
        return client, None
    # A token of an owner holding the role on the whole store, limited to the grant's tier;
    # for (d), one whose owner's grants were all taken back since.
    grants.grant(None, user, principal.role or roles.OPERATOR, grants.WHOLE_STORE)
    scope = "read" if principal.role == roles.AUDITOR else "write"
    places = None if principal.grant in (WHOLE, NOTHING) else [place]
    secret = tokens.create_token(user, scope, places=places)[1]
    if principal.grant == NOTHING:
        grants.revoke(None, user, grants.WHOLE_STORE)
    return Client(), secret


def _send(client: Client, secret: str | None, call: Call):
    headers = {} if secret is None else {"Authorization": f"Bearer {secret}"}
    if call.method in ("TOOL", "RESOURCE", "LIST"):
        method, params = {
            "TOOL": ("tools/call", call.data),
            "RESOURCE": ("resources/read", call.data),
            "LIST": (call.data.get("method"), {}),
        }[call.method]
        message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        headers["Accept"] = "application/json, text/event-stream"
        return client.post(
            call.path, json.dumps(message), content_type="application/json", headers=headers
        )
    if call.path.startswith("/v1") and call.data is STALE:
        return client.delete(call.path, headers={**headers, **STALE})
    if call.path.startswith("/v1"):
        return getattr(client, call.method.lower())(
            call.path,
            data=json.dumps(call.data) if call.data else None,
            content_type="application/json",
            headers=headers,
        )
    if call.method == "GET":
        return client.get(call.path, headers={**headers, **(HTMX if call.htmx else {})})
    return client.post(call.path, call.data, headers={**headers, **HTMX})


def _body(response) -> str:
    if getattr(response, "streaming", False):
        content = b"".join(response.streaming_content)
    else:
        content = response.content
    return content.decode("utf-8", "replace")  # a snapshot is a zip


def _expected(principal: Principal, call: Call, reference: int) -> set[int]:
    """The statuses this principal may get, given what the whole store's principal of the
    same kind and role got (`reference`)."""
    is_page = not call.path.startswith(("/v1", "/mcp"))
    if call.route in (
        "login",
        "oidc-start",
        "oidc-callback",
        "v1",
        "v1/^.*$",
        "api:openapi",
        "agent/",
    ):
        # Open to all: the sign-in pages, /v1's own 404s, its document; a redirect.
        return {reference}
    if call.route == "live-events" and (principal.kind == "token" or principal.grant == NOTHING):
        return {401}  # an EventSource cannot follow a sign-in: the page falls back to polling
    if principal.kind == "token" and is_page:
        # A token opens no page: it is sent to the sign-in page (htmx: told to go there).
        return {302, 200} if call.method == "POST" or call.htmx else {302}
    if principal.kind == "person" and not is_page:
        return {401}  # a session is no credential for /v1 and /mcp
    if principal.grant == NOTHING:
        return {403} if is_page else {401, 403}
    past = call.tier is not None and call.tier not in SEEN[principal.grant]
    if principal.grant == WHOLE:
        return {reference}
    if reference in (401, 403):
        # The role refuses it, wherever the grant lies (or, past it, the name is not found).
        return {reference, 404} if past else {reference}
    if call.route.startswith(
        ("snapshots:", "accounts", "account-", "sign-in-unlock", "group-role")
    ):
        return {403}  # the store's admins alone
    if call.route in (
        "history:trash_purge",
        "api:trashed",
        "token-revoke",
        "token-pause",
        "token-rotate",
    ):
        return {403, 404}  # the store's admins alone; past the grant, not found
    if past:
        # MCP: a session past the grants is refused (403) before any tool runs; a tool
        # naming what lies past them answers a tool error (200, checked below).
        return {200, 403, 404} if call.path.startswith("/mcp") else {404}
    return {reference}


def _mcp_refused(response) -> bool:
    """Whether an MCP answer is a refusal: a tool error, or a JSON-RPC error."""
    if response.status_code != 200:
        return True
    answer = response.json()
    return "error" in answer or bool(answer.get("result", {}).get("isError"))


def test_every_route_is_in_the_matrix(db):
    ids = dict.fromkeys(["v", "g", "rv", "cv", "tv", "other_user", "other_token", "mapping"], 1)
    called = {call.route for call in calls(ids)}
    assert route_keys() == called | set(NOT_CALLED)


# The statuses the whole store's principals got, by (kind, role) and call: a test of this
# worker that ran first leaves them here for the others, which compare theirs to them.
REFERENCE: dict[tuple[str, str], list[int]] = {}


def _reference(principal: Principal, ids: dict) -> list[int]:
    """What the principal of the same kind and role holding the whole store gets, per call."""
    key = (principal.kind, principal.role or roles.OPERATOR)
    if key not in REFERENCE:
        client, secret = _holder(Principal(key[0], WHOLE, key[1]))
        REFERENCE[key] = [_send(client, secret, call).status_code for call in calls(ids)]
    return REFERENCE[key]


@pytest.mark.parametrize("principal", PRINCIPALS, ids=lambda p: p.label)
def test_the_matrix(store, principal):
    hidden = forbidden(principal.grant)
    their_client, their_secret = _holder(principal)
    whole = principal.grant == WHOLE
    references = None if whole else _reference(principal, store)
    failures, statuses, partials = [], [], 0
    for number, call in enumerate(calls(store)):
        response = _send(their_client, their_secret, call)
        body = _body(response)
        status = response.status_code
        statuses.append(status)
        reference = status if whole else references[number]
        if status >= 500:
            failures.append(f"{call.method} {call.path}: {status}")
            continue
        allowed = _expected(principal, call, reference)
        if status not in allowed:
            failures.append(f"{call.method} {call.path}: {status}, expected {sorted(allowed)}")
        past = call.tier is not None and call.tier not in SEEN[principal.grant]
        if call.path.startswith("/mcp") and past and not _mcp_refused(response):
            failures.append(f"{call.method} {call.path} {call.data}: not refused")
        if status >= 400:
            # A refusal may name what was asked for, as it would a name nothing holds.
            for asked in hidden:
                if asked in call.path or asked in json.dumps(call.data):
                    body = body.replace(asked, "")
        person = principal.kind == "person"
        if person and call.htmx and call.path == "/memories/" and status == 200:
            # The header reached the view: it answered the list's partial, not the page.
            assert "<html" not in body
            partials += 1
        leaked = [text for text in hidden if text in body]
        if leaked:
            failures.append(f"{call.method} {call.path}: shows {leaked}")
    if whole:
        REFERENCE[(principal.kind, principal.role)] = statuses
    assert not failures, "\n".join(failures)
    assert partials == (principal.kind == "person" and principal.grant != NOTHING)
