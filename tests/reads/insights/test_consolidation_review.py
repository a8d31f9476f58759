"""One click trashes only what loses nothing: any other near duplicate is a review, shown with
its differences and merged by hand; on the demo store no legacy rule is offered to one click."""

import io

import pytest
from django.core.management import call_command

from memories.models import Memory
from memories.reads import consolidation
from memories.rules import facts
from tests.conftest import write_duplicates, write_to_review


@pytest.fixture
def store(db, project):
    write_duplicates()
    write_to_review()


def _near(plan):
    return next(c for c in plan.clusters if c.survivor.name == "deploy-night")


def _loses_nothing_anywhere(plan) -> bool:
    """No cluster's one click trashes a member whose description or body the survivor lacks."""
    return all(
        facts.loses_nothing(s.description, s.body, c.survivor.description, c.survivor.body)
        for c in plan.clusters
        for s in c.sources
    )


def test_a_member_saying_more_is_a_review_not_a_source(store):
    plan = consolidation.plan()
    near = _near(plan)
    assert [m.name for m in near.sources] == ["nightly-deploy"]  # contained: one click
    assert [r.memory.name for r in near.reviews] == ["deploy-at-two"]
    assert near.members == 3
    assert _loses_nothing_anywhere(plan)
    review = near.reviews[0]
    assert review.merge.key and review.merge.key not in plan.keys
    assert consolidation.parse_key(review.merge.key).sources == [review.memory.id]
    assert plan.trashed == 2 and plan.reviews == 1


def test_a_review_says_what_differs(store):
    data = _near(consolidation.plan()).to_dict()
    assert [m["name"] for m in data["sources"]] == ["nightly-deploy"]
    (review,) = data["review"]
    assert review["memory"]["name"] == "deploy-at-two"
    differences = review["differences"]
    assert "2 am" in " ".join(differences["description"]["member"])
    assert "two" in " ".join(differences["description"]["survivor"])
    assert differences["tags"] == {"survivor": [], "member": ["night"]}
    assert differences["priority"] == {"survivor": 3, "member": 5}
    assert review["merged"]["tags"] == ["ops", "night"]


def test_a_cluster_whose_members_all_need_review_has_no_one_click_key(db, write):
    write("deploy-night", description="The production deploy runs every night at two", priority=1)
    write("deploy-at-two", description="Production deploys run each night at 2 am")
    plan = consolidation.plan()
    (cluster,) = plan.clusters
    assert cluster.sources == [] and cluster.key == "" and plan.keys == []
    assert cluster.to_dict()["key"] is None
    assert [r.memory.name for r in cluster.reviews] == ["deploy-at-two"]


def test_a_fact_said_in_another_order_is_a_review_never_one_click(db, write):
    write("invoice-day", description="Invoices go out on the first business day of the month")
    write("invoicing", description="Invoices are sent on the month's first business day")
    plan = consolidation.plan()
    (cluster,) = plan.clusters
    assert cluster.sources == [] and plan.keys == [] and plan.trashed == 0
    assert {cluster.survivor.name, *(r.memory.name for r in cluster.reviews)} == {
        "invoice-day",
        "invoicing",
    }


def test_exact_and_contained_members_are_one_click(db, write):
    write("backups-0", description="Nightly database backups run at 02:00 UTC", body="pg_dump.")
    write("backups-1", description="Nightly database backups run at 02:00 UTC", body="pg_dump.")
    write("backups-2", description="nightly DATABASE  backups run at 02:00", body="PG_DUMP")
    plan = consolidation.plan()
    (cluster,) = plan.clusters
    assert sorted(m.name for m in cluster.sources) == ["backups-1", "backups-2"]
    assert cluster.reviews == []


@pytest.fixture
def demo(db):
    call_command("seed_demo", stdout=io.StringIO())


def test_on_the_demo_store_no_legacy_rule_is_offered_to_one_click(demo):
    plan = consolidation.plan(limit=consolidation.PLAN_MAX)
    trashed = [m.name for c in plan.clusters for m in c.sources]
    assert not [name for name in trashed if name.startswith("legacy-rule-")]
    # They are distinct rules: none is paired with another, for one click or for review.
    legacy = set(
        Memory.objects.filter(name__startswith="legacy-rule-").values_list("id", flat=True)
    )
    assert len(legacy) == 16
    members = {m.id for c in plan.clusters for m in (c.survivor, *c.sources)}
    members |= {r.memory.id for c in plan.clusters for r in c.reviews}
    assert not legacy & members
    assert _loses_nothing_anywhere(plan)
