"""Property tests: any sequence of door calls keeps the store's invariants."""

import contextlib

import pytest
from django.db import connection, transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memories import engine
from memories.models import Memory
from memories.reads import budget
from memories.rules.budget import band_total, budget_bytes
from memories.rules.errors import DomainError
from memories.writes import doors
from projects import writes as project_doors
from tests.scale import LONG

NAMES = st.sampled_from(["alpha", "beta", "gamma"])
TIERS = st.sampled_from([None, "p1", "p2"])
BODIES = st.text(alphabet=st.sampled_from("aé字🙂 \n"), max_size=40)

OPERATIONS = st.one_of(
    st.tuples(
        st.just("write"),
        NAMES,
        TIERS,
        st.fixed_dictionaries(
            {"body": BODIES, "load": st.sampled_from(["inline", "inline", "index", "search"])},
            optional={
                "priority": st.integers(0, 100),
                "tags": st.lists(st.sampled_from(["x", "y"]), max_size=2),
                "references": st.lists(NAMES, max_size=2),
            },
        ),
    ),
    st.tuples(st.just("move"), NAMES, TIERS, TIERS),
    st.tuples(st.just("delete"), NAMES, TIERS),
    st.tuples(st.just("edit"), NAMES, TIERS, st.sampled_from(["a", "é", "字"])),
)


def _apply(operation) -> None:
    kind, name, tier, *rest = operation
    if kind == "write":
        doors.write(name, project=tier, description=f"about {name}", **rest[0])
    elif kind == "move":
        doors.move(name, project=tier, to=rest[0])
    elif kind == "delete":
        doors.delete(name, project=tier)
    else:
        doors.edit(name, project=tier, old_string=rest[0], new_string="b", replace_all=True)


def _check_invariants(created: dict[int, object]) -> None:
    rows = list(Memory.objects.values("id", "name", "project_id", "created_at"))
    for row in rows:
        if row["id"] in created:
            assert row["created_at"] == created[row["id"]], "created_at moved"
        created[row["id"]] = row["created_at"]
    global_names = {r["name"] for r in rows if r["project_id"] is None}
    project_names = {r["name"] for r in rows if r["project_id"] is not None}
    assert not global_names & project_names, "a global name is also a project's"
    totals = budget.inline_totals(timezone.now())
    for tier in {0, *totals}:
        assert band_total(totals, tier) <= budget_bytes(), "a band past budget"


@pytest.mark.django_db
@settings(
    max_examples=1000 if LONG else 150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(operations=st.lists(OPERATIONS, min_size=5, max_size=30))
def test_any_sequence_of_writes_keeps_the_invariants(operations, settings_override):
    with transaction.atomic():
        project_doors.add("p1")
        project_doors.add("p2")
        created: dict[int, object] = {}
        for operation in operations:
            # A refusal lands nothing; the invariants below prove it.
            with contextlib.suppress(DomainError):
                _apply(operation)
            _check_invariants(created)
        report = engine.of(connection).index.check()
        assert report.ok, report.problems
        transaction.set_rollback(True)


@pytest.fixture
def settings_override(settings):
    settings.MEMADMIN_INLINE_MAX_BYTES = 40
    return settings
