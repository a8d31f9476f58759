"""The OpenAPI document against the API itself: schemathesis generates requests from it,
in process through the WSGI app, and checks every answer against what it declares, that no
answer is a server error, and that no operation declaring a token answers without one.

Two phases: every operation on its own, then the stateful phase, which chains operations
along the links schemathesis infers (a PUT's memory fetched, edited, read, deleted; a
project added, renamed, removed). A fixed seed makes CI reproducible. The default run keeps
every operation, every check and both phases at 50 examples an operation and 25 chains of up
to 8 steps (at 100 and 50 they took a seventh of each pass's CPU: 73 of 526 s on SQLite);
`RELIABILITY_LONG=1` runs 1,000 examples an operation (tests/scale.py).
"""

import jsonschema
import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, seed, settings
from hypothesis import strategies as st
from schemathesis.checks import CHECKS as REGISTERED_CHECKS

from memadmin.accounts import tokens
from memadmin.wsgi import application
from memories.models import ChangeSet, Memory, Revision, TrashedMemory
from memories.rules.fields import NAME_RE
from memories.writes import bulk, doors
from projects import writes as project_doors
from tests.scale import LONG

from .conftest import make_user

# Some operations refuse schema-valid input as the API contract says and no schema can: by
# the store's state (a PUT creating a memory without a description: 400; an edit whose
# old_string the body holds nowhere or more than once: 400; a read's offset past the body:
# 400; an If-Match naming a version no longer current: 412), by a combination of parameters
# (the audit log's `since` not before `until`, `before` given with `after`; a hygiene
# `offset` with no `section`: 400; the agent view's moments to come or before the history
# kept), or by a value only the API gives (a list's `after` or `before` cursor, which names a
# row), or by a calendar no pattern can hold (a date filter's 2026-02-30). There these answer
# valid data too.
ACCEPTED = ["2xx", "3xx", "401", "403", "404", "409", "429"]
STATE_REFUSALS = {
    "PUT /v1/memories/{name}": ["400", "412"],
    "POST /v1/memories/{name}/edit": ["400", "412"],
    "POST /v1/memories/{name}/read": ["400"],
    "DELETE /v1/memories/{name}": ["412"],
    "GET /v1/memories": ["400"],
    "GET /v1/audit": ["400"],
    "GET /v1/memories/{name}/history": ["400"],
    "GET /v1/change-sets/{change_set_id}": ["400"],
    "GET /v1/hygiene": ["400"],
    # A moment to come, `since` not before `at`, or one before the history kept.
    "GET /v1/agent-view": ["400"],
    "GET /v1/graph": ["400"],
    # A cluster key is the plan it was drawn as: one naming a memory twice is refused.
    "POST /v1/hygiene/consolidation": ["400"],
    # An action without the value it sets, a tag the tag rules refuse, or filters without
    # matching: true (and matching: true with a list of memories).
    "POST /v1/bulk": ["400"],
    "POST /v1/revisions/{revision_id}/restore": ["412"],
}
CONFIG = schemathesis.Config.from_dict(
    {
        "operations": [
            {
                "include-name": name,
                "checks": {
                    "positive_data_acceptance": {"expected-statuses": [*ACCEPTED, *statuses]}
                },
            }
            for name, statuses in STATE_REFUSALS.items()
        ]
    }
)
# /v1/events answers a stream that stays open (tests/live/test_events_api.py reads it).
schema = schemathesis.openapi.from_wsgi("/v1/openapi.json", application, config=CONFIG).exclude(
    path="/v1/events"
)

# Every check schemathesis has, as `st run --checks all` runs them (max_response_time is an
# option of its own there, not one of "all"): the document and the code agree both ways,
# invalid input refused and valid input accepted.
CHECKS = REGISTERED_CHECKS.get_all()
SEED = 20261129
EXAMPLES = 1000 if LONG else 50
PROJECTS = ["webdev", "infra"]
MEMORIES = ["deploy-host", "runbook", "notes", "handbook"]
# Words of the stored memories for each sense: word, prefix, plain text, synonyms.
SEARCHES = [["deploys"], ["deploym"], ["host-7"], ["kind", "rules"], ["東京"]]


# Random names almost never meet a stored memory or project, so half of the generated
# requests are pointed at ones the store holds: the success paths get fuzzed too.
# The rows an id in a path names (a revision, a change set, a trash entry) as the store
# fixture made them, so that the way back is fuzzed on rows there are; fixed for a test, as
# hypothesis draws alike when it replays a case.
ROWS = {"revision_id": Revision, "change_set_id": ChangeSet, "trashed_id": TrashedMemory}
KNOWN_IDS: dict[str, list[int]] = {}


def _known_ids(path_parameters):
    (key,) = path_parameters
    ids = KNOWN_IDS.get(key)
    if not ids or not isinstance(path_parameters[key], int):
        return st.just(path_parameters)
    return st.one_of(st.just(path_parameters), st.sampled_from(ids).map(lambda found: {key: found}))


@schema.hook
def flatmap_path_parameters(context, path_parameters):
    if path_parameters and set(path_parameters) <= set(ROWS):
        return _known_ids(path_parameters)
    if not path_parameters or not NAME_RE.fullmatch(path_parameters.get("name", "")):
        # A name generated to break the pattern is left broken: negative data stays negative.
        return st.just(path_parameters)
    known = PROJECTS if context.operation.path.startswith("/v1/projects") else MEMORIES
    return st.one_of(
        st.just(path_parameters),
        st.sampled_from(known).map(lambda name: {**path_parameters, "name": name}),
    )


def _conforms(context, query: dict) -> bool:
    """Whether every parameter of a generated query holds to its schema: only such a query is
    pointed at the store's projects and words, so a query generated to be refused stays so
    (schemathesis expects a refusal of it whatever the hook makes of it)."""
    schemas = {param.name: param.definition["schema"] for param in context.operation.query}
    return all(
        key in schemas and jsonschema.Draft202012Validator(schemas[key]).is_valid(value)
        for key, value in query.items()
    )


@schema.hook
def flatmap_query(context, query):
    if not query or not _conforms(context, query):
        return st.just(query)
    strategy = st.just(query)
    if "project" in query:
        strategy = st.one_of(
            strategy,
            st.sampled_from(["", *PROJECTS]).map(lambda project: {**query, "project": project}),
        )
    if "q" in query:
        # Alone: beside random tag or referencing filters, a search would match nothing.
        strategy = st.one_of(strategy, st.sampled_from(SEARCHES).map(lambda q: {"q": q}))
    return strategy


@schema.hook
def flatmap_body(context, body):
    if context.operation.method.upper() != "PUT" or not isinstance(body, dict):
        return st.just(body)
    # A create needs a description; without one, most generated PUTs would only meet 400.
    return st.one_of(st.just(body), st.just({**body, "description": "fuzzed memory"}))


@schema.hook
def flatmap_headers(context, headers):
    if not headers or "If-Match" not in headers:
        return st.just(headers)
    return st.one_of(
        st.just(headers), st.just({k: v for k, v in headers.items() if k != "If-Match"})
    )


@pytest.fixture
def in_process(db):
    """Keep the test's connection (and its transaction) open across WSGI requests, as
    Django's test client does; the handler would close it after every response."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def store(in_process, settings):
    settings.MEMADMIN_INLINE_MAX_BYTES = 4096
    for name in PROJECTS:
        project_doors.add(name)
    doors.write("deploy-host", description="Where deploys go", body="host-7\n" * 40)
    doors.write("runbook", description="How to deploy", references=["deploy-host", "https://x"])
    doors.write("handbook", description="House rules", body="Be kind. " * 300, load="inline")
    doors.write("tokyo", description="Meeting place", body="会議は東京で行います")
    for project in PROJECTS:
        doors.write("notes", project=project, description=f"Notes of {project}", body="a a")
    # A change set to undo, a memory in the trash to restore or purge, versions to restore.
    bulk.set_priority(list(Memory.objects.filter(name="notes").values_list("id", flat=True)), 4)
    doors.write("old-note", description="Gone", body="was here")
    doors.delete("old-note")
    for key, model in ROWS.items():
        KNOWN_IDS[key] = list(model.objects.order_by("id").values_list("id", flat=True)[:20])


# The fuzzing admin's token, known before the cases are generated (at collection): the
# bearer fixture makes the token of this secret for each test's store.
SECRET_PART = "f" * 43
SECRET = tokens.TOKEN_PREFIX + SECRET_PART


@schema.auth(refresh_interval=None)
class Bearer:
    """The token as schemathesis' own auth: it then knows which requests carry a valid one
    (a request it generated without one, to be refused, is sent without one)."""

    def get(self, case, context):
        return SECRET

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@pytest.fixture
def bearer(store, monkeypatch):
    monkeypatch.setattr(tokens.secrets, "token_urlsafe", lambda size: SECRET_PART)
    assert tokens.create_token(make_user("fuzz", "admin"), "write")[1] == SECRET


@schema.parametrize()
@seed(SEED)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_api_keeps_its_openapi_document(case, bearer):
    case.call_and_validate(checks=CHECKS)


Workflow = schema.as_state_machine()


def test_chains_of_operations_keep_the_document(bearer):
    class Authorized(Workflow):
        """Each chain starts from the fixture's store: what one chain wrote is rolled back,
        so a failing chain replays alike while hypothesis shrinks it."""

        def setup(self):
            self.chain = transaction.atomic()
            self.chain.__enter__()

        def teardown(self):
            transaction.set_rollback(True)
            self.chain.__exit__(None, None, None)

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(
                response, checks=CHECKS, transport_kwargs=kwargs, recorder=self.recorder
            )

    Authorized.run(
        settings=settings(
            max_examples=EXAMPLES // 2,
            stateful_step_count=8,
            derandomize=True,  # the state machine's fixed seed
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
    )
