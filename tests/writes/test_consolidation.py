"""The consolidation plan applied: one change set a cluster, refused when stale, undone."""

import pytest

from memories.models import Memory, TrashedMemory
from memories.reads import consolidation as plans
from memories.rules.errors import BadRequest
from memories.rules.fields import MAX_REFERENCES
from memories.writes import consolidation, doors, history, undo
from tests.conftest import write_duplicates, write_to_review


def state(name, project=None) -> dict:
    memory = Memory.objects.select_related("project").get(name=name, project__name=project)
    snapshot = history.snapshot(memory)
    snapshot.pop("updated_at")
    return snapshot


@pytest.fixture
def store(db, project):
    write_duplicates()


def _cluster(survivor: str):
    return next(c for c in plans.plan().clusters if c.survivor.name == survivor)


NAMES = ["deploy-night", "nightly-deploy", "cite-it"]


def test_applying_a_cluster_merges_repoints_and_trashes_in_one_change_set(store):
    cluster = _cluster("deploy-night")
    receipt = consolidation.apply([cluster.key])
    assert (receipt.planned, receipt.applied, receipt.refused, receipt.skipped) == (1, 1, 0, 0)
    outcome = receipt.outcomes[0]
    survivor = Memory.objects.get(name="deploy-night")
    assert survivor.tags == ["ops", "deploy"]
    assert survivor.references == ["runbook", "https://ci.example/deploy"]
    assert survivor.description == "The production deploy runs every night at two"  # unchanged
    assert Memory.objects.get(name="cite-it").references == ["deploy-night", "tz"]
    assert not Memory.objects.filter(name="nightly-deploy").exists()
    assert TrashedMemory.objects.filter(revision__name="nightly-deploy").exists()
    assert (outcome.trashed, outcome.repointed) == (1, 1)
    assert outcome.change_set.revisions.count() == 3
    assert sorted(outcome.change_set.revisions.values_list("name", flat=True)) == sorted(NAMES)


def test_undoing_the_change_set_restores_everything(store):
    before = {name: state(name) for name in NAMES}
    receipt = consolidation.apply([_cluster("deploy-night").key])
    undo.undo(receipt.outcomes[0].change_set.id)
    assert {name: state(name) for name in NAMES} == before
    assert not TrashedMemory.objects.filter(revision__name="nightly-deploy").exists()


@pytest.mark.parametrize(
    "change",
    [
        lambda: doors.write("deploy-night", priority=1),  # the survivor
        lambda: doors.write("nightly-deploy", tags=["other"]),  # a source
        lambda: doors.write("cite-it", description="Who ships releases"),  # a re-pointed one
        lambda: doors.write("new-cite", description="Also cites", references=["nightly-deploy"]),
        lambda: doors.write("cite-it", references=["tz"]),  # no longer cites the source
    ],
    ids=["survivor", "source", "repointed", "new citing memory", "citation dropped"],
)
def test_a_cluster_changed_since_the_plan_was_drawn_is_refused_and_nothing_lands(store, change):
    key = _cluster("deploy-night").key
    change()
    before = {name: state(name) for name in NAMES}
    receipt = consolidation.apply([key])
    assert (receipt.applied, receipt.refused) == (0, 1)
    assert "Changed since the plan was drawn" in receipt.outcomes[0].reason
    assert "draw the plan again" in receipt.outcomes[0].reason
    assert {name: state(name) for name in NAMES} == before


def test_a_read_is_not_a_change(store):
    key = _cluster("deploy-night").key
    doors.read("deploy-night")
    assert consolidation.apply([key]).applied == 1


def test_the_whole_plan_counts_planned_applied_refused_and_skipped(store):
    keys = plans.plan().keys
    assert len(keys) == 2
    first = consolidation.apply(keys)
    assert (first.planned, first.applied, first.refused, first.skipped) == (2, 2, 0, 0)
    assert Memory.objects.get(name="page-cites").references == ["copy-b"]
    again = consolidation.apply(keys)  # a second click on the same plan
    assert (again.planned, again.applied, again.refused, again.skipped) == (2, 0, 0, 2)
    assert plans.plan().count == 0


def test_a_door_refusal_refuses_the_cluster_alone(store):
    many = [f"https://example.com/{n}" for n in range(MAX_REFERENCES)]
    doors.write("nightly-deploy", references=many)
    keys = plans.plan().keys
    before = {name: state(name) for name in NAMES}
    receipt = consolidation.apply(keys)
    assert (receipt.planned, receipt.applied, receipt.refused) == (2, 1, 1)
    refused = next(o for o in receipt.outcomes if o.outcome == consolidation.REFUSED)
    assert refused.reason.startswith("Refused: ") and str(MAX_REFERENCES) in refused.reason
    assert {name: state(name) for name in NAMES} == before
    assert not Memory.objects.filter(name="copy-a").exists()  # the other cluster applied


def test_the_budget_holds(store, settings):
    """Nothing a plan writes grows a band, so a band already past the budget still merges."""
    doors.write("big", description="inline", body="x" * 200, load="inline")
    settings.MEMADMIN_INLINE_MAX_BYTES = 100
    assert consolidation.apply([_cluster("deploy-night").key]).applied == 1


def test_a_survivor_gone_is_refused(store):
    key = _cluster("deploy-night").key
    doors.delete("deploy-night")
    receipt = consolidation.apply([key])
    assert receipt.refused == 1 and "no longer in the store" in receipt.outcomes[0].reason


@pytest.mark.parametrize("keys", [[], "1.1-2.2-", None, ["nonsense"], [{}], [["1.1-2.2-"]], [1]])
def test_bad_requests(db, keys):
    with pytest.raises(BadRequest):
        consolidation.apply(keys)


def test_more_keys_than_a_plan_holds_are_refused_repeats_included(db):
    # schemathesis sent 501 copies of one key: the document's maxItems counts them all.
    with pytest.raises(BadRequest, match=f"At most {plans.PLAN_MAX} clusters"):
        consolidation.apply(["1.1-2.2-"] * (plans.PLAN_MAX + 1))


def test_the_receipt_as_json(store):
    data = consolidation.apply([_cluster("deploy-night").key]).to_dict()
    assert {k: data[k] for k in ("planned", "applied", "refused", "skipped")} == {
        "planned": 1,
        "applied": 1,
        "refused": 0,
        "skipped": 0,
    }
    (cluster,) = data["clusters"]
    assert cluster["outcome"] == "applied" and cluster["survivor"] == "'deploy-night' (global)"
    assert isinstance(cluster["change_set"], int)


# --- members to review: never in one click, merged by hand ---------------------------------


@pytest.fixture
def to_review(store):
    write_to_review()


def test_the_whole_plan_leaves_a_member_to_review_alone(to_review):
    plan = plans.plan()
    receipt = consolidation.apply(plan.keys)
    assert (receipt.planned, receipt.applied, receipt.refused) == (2, 2, 0)
    assert Memory.objects.filter(name="deploy-at-two").exists()
    assert not Memory.objects.filter(name__in=["nightly-deploy", "copy-a"]).exists()


def test_a_review_key_is_refused_in_one_click_and_merged_when_reviewed(to_review):
    review = _cluster("deploy-night").reviews[0]
    before = state("deploy-at-two")
    refused = consolidation.apply([review.merge.key])
    assert refused.refused == 1
    assert "'deploy-at-two' says something 'deploy-night' does not" in refused.outcomes[0].reason
    assert state("deploy-at-two") == before

    merged = consolidation.apply([review.merge.key], reviewed=True)
    assert merged.applied == 1 and merged.outcomes[0].trashed == 1
    assert not Memory.objects.filter(name="deploy-at-two").exists()
    assert Memory.objects.get(name="deploy-night").tags == ["ops", "night"]
    assert merged.outcomes[0].change_set.summary.endswith("after review")
    undo.undo(merged.outcomes[0].change_set.id)
    assert state("deploy-at-two") == before


def test_a_key_naming_a_review_beside_sources_is_refused_whole(to_review):
    cluster = _cluster("deploy-night")
    review = cluster.reviews[0]
    both = plans._planned(cluster.survivor, [*cluster.sources, review.memory], 1.0, plans.NEAR)
    plans._with_repoints([both])
    receipt = consolidation.apply([both.key])
    assert receipt.refused == 1
    assert Memory.objects.filter(name__in=["nightly-deploy", "deploy-at-two"]).count() == 2
