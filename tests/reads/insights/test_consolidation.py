"""The consolidation plan drawn: clusters within a tier, the survivor, the merge, re-points."""

import pytest

from memories.reads import consolidation
from memories.rules.errors import BadRequest, UnknownProject
from tests.conftest import write_duplicates


@pytest.fixture
def store(db, project):
    write_duplicates()


def _by_survivor(found):
    return {c.survivor.name: c for c in found.clusters}


def test_the_plan_clusters_exact_and_near_duplicates_each_within_one_tier(store):
    found = consolidation.plan()
    clusters = _by_survivor(found)
    assert found.count == 2
    assert set(clusters) == {"deploy-night", "copy-b"}
    near, exact = clusters["deploy-night"], clusters["copy-b"]
    assert near.kind == consolidation.NEAR and 0.63 <= near.similarity < 1
    assert [m.name for m in near.sources] == ["nightly-deploy"]
    # The same words in the global tier are not the project's duplicate: tiers stay apart.
    assert exact.kind == consolidation.EXACT and exact.similarity == 1.0
    assert [m.name for m in exact.sources] == ["copy-a"]
    assert exact.survivor.project_name == "webdev"


def test_the_survivor_is_the_most_important_and_takes_the_sources_tags_and_references(store):
    near = _by_survivor(consolidation.plan())["deploy-night"]
    assert near.tags == ["ops", "deploy"]
    assert near.tags_added == ["deploy"]
    # Its reference to the source would name itself after the merge: it goes.
    assert near.references == ["runbook", "https://ci.example/deploy"]
    assert near.references_added == ["https://ci.example/deploy"]


def test_references_elsewhere_naming_a_source_are_repointed_to_the_survivor(store):
    near = _by_survivor(consolidation.plan())["deploy-night"]
    assert [(r.memory.name, r.references, r.replaces) for r in near.repoints] == [
        ("cite-it", ["deploy-night", "tz"], ["nightly-deploy"])
    ]
    exact = _by_survivor(consolidation.plan())["copy-b"]
    assert [(r.memory.name, r.references) for r in exact.repoints] == [("page-cites", ["copy-b"])]


def test_one_tier_alone(store):
    assert [c.survivor.name for c in consolidation.plan("webdev").clusters] == ["copy-b"]
    assert [c.survivor.name for c in consolidation.plan(None).clusters] == ["deploy-night"]
    with pytest.raises(UnknownProject):
        consolidation.plan("nowhere")


def test_the_key_binds_every_memory_it_touches_to_its_version(store):
    near = _by_survivor(consolidation.plan())["deploy-night"]
    keyed = consolidation.parse_key(near.key)
    assert keyed.survivor == near.survivor.id
    assert keyed.sources == [m.id for m in near.sources]
    assert keyed.repoints == [r.memory.id for r in near.repoints]
    assert all(version > 0 for version in keyed.versions.values())
    assert consolidation.redrawn(keyed)[1] == []


def test_the_plan_as_json(store):
    data = consolidation.plan(limit=1).to_dict()
    assert data["count"] == 2 and data["limit"] == 1 and len(data["clusters"]) == 1
    assert data["clusters"][0]["kind"] == "exact"  # the closest first, among clusters of a size
    cluster = consolidation.plan(None).to_dict()["clusters"][0]
    assert set(cluster) == {
        "key",
        "kind",
        "similarity",
        "survivor",
        "sources",
        "merged",
        "repoint",
        "review",
    }
    assert cluster["survivor"]["name"] == "deploy-night"
    assert cluster["survivor"]["version"] > 0
    assert cluster["merged"] == {
        "tags": ["ops", "deploy"],
        "references": ["runbook", "https://ci.example/deploy"],
    }
    assert cluster["repoint"][0]["references"] == ["deploy-night", "tz"]


@pytest.mark.parametrize(
    "key", ["", "1.1", "1.1-", "a.1-2.2-", "1.1-2.2-3", "1.1-1.1-", 12, None, "1.1-2.2-;drop"]
)
def test_a_key_the_plan_did_not_give_is_refused(key):
    with pytest.raises(BadRequest):
        consolidation.parse_key(key)
