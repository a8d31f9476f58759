"""The one rule of "says the same": vectors alike, and what differs alike in meaning too."""

from collections import Counter

import numpy as np
import pytest

from memories import embedding
from memories.models import GLOBAL_TIER, Memory
from memories.reads import meaning
from memories.rules import similarity


def test_differing_words_leave_function_words_out_and_keep_negations():
    assert similarity.differing_words(
        "The cache service uses Redis", "The cache service dropped Redis"
    ) == (["uses"], ["dropped"])
    assert similarity.differing_words("Deploys go to host-7", "No deploys go to host-7") == (
        [],
        ["no"],
    )
    assert similarity.differing_words("Alice works in Europe", "Alice works in the Europe") == (
        [],
        [],
    )


def test_a_reworded_fact_is_the_same_and_a_changed_one_is_not():
    assert meaning.say_the_same(
        [
            ("Nightly database backups run at 02:00 UTC", "Database backups run nightly at 02:00"),
            ("The cache service uses Redis", "The cache service dropped Redis"),
            ("Production deploys go to host-7", "Production deploys go to host-8"),
            ("Carmen prefers Spanish in chat", "In chat Carmen prefers Spanish"),
            ("Carmen prefers Spanish in chat", "Carmen prefers English in chat"),
        ]
    ) == [True, False, False, True, False]
    assert meaning.say_the_same([]) == []


# Facts said again in another order, whose other words static word vectors find unalike.
REWORDED = [
    (
        "Invoices go out on the first business day of the month",
        "Invoices are sent on the month's first business day",
    ),
    ("The weekly report is due Friday at noon", "Send the weekly report by noon on Friday"),
]


def test_a_fact_said_in_another_order_is_the_same_though_its_other_words_are_unalike():
    for a, b in REWORDED:
        ours, theirs = similarity.differing_words(a, b)
        u, v = embedding.embed_words([" ".join(ours), " ".join(theirs)])
        assert u @ v < meaning.DIFFERENCE_COSINE, "the differing words alone would say no"
    assert meaning.say_the_same(REWORDED + [(b, a) for a, b in REWORDED]) == [True] * 4


def test_reworded_is_another_order_with_the_same_denial():
    assert all(similarity.reworded(a, b) for a, b in REWORDED)
    assert similarity.reworded("Never deploy on Fridays", "On Fridays never deploy")
    # A fact changed in place keeps its frame: the differing words decide.
    assert not similarity.reworded(
        "The cache service uses Redis", "The cache service dropped Redis"
    )
    assert not similarity.reworded(
        "Database migrations run before the new code is deployed",
        "Database migrations run after the new code is deployed",
    )
    # Denied on one side only: not a rewording, however the words move.
    assert not similarity.reworded(
        "Deploys to staging need approval", "Approval is not needed for deploys to staging"
    )
    assert not similarity.reworded(
        "Staging deploys don't need approval", "Approval is needed for staging deploys"
    )
    assert not similarity.reworded("Backups run nightly", "Backups run nightly")
    # A word said twice on one side is not a word moved.
    assert not similarity.reworded(
        "The cache service caches the cache keys", "The cache service caches keys"
    )


def test_the_write_door_notes_a_fact_said_in_another_order(write):
    write("invoice-day", description=REWORDED[0][0])
    result = write("invoicing", description=REWORDED[0][1])
    assert any("'invoice-day' already says" in note for note in result.notes)


def test_pairs_are_bounded_per_memory(write, monkeypatch):
    for n in range(4):
        write(f"backups-nightly-{n}", description="Nightly database backups run at 02:00 UTC")
    assert len(meaning.near_duplicate_pairs(GLOBAL_TIER)) == 6
    monkeypatch.setattr(meaning, "NEIGHBOURS_KEPT", 1)
    pairs = meaning.near_duplicate_pairs(GLOBAL_TIER)
    seen = [m for a, b, _ in pairs for m in (a, b)]
    assert pairs and len(seen) == len(set(seen)), "each memory in one pair at most"


def test_a_contradiction_gets_no_note_from_the_write_door(write):
    write("cache-redis", description="The cache service uses Redis")
    result = write("cache-no-redis", description="The cache service dropped Redis")
    assert not any("already says something very similar" in note for note in result.notes)
    result = write("redis-cache", description="The cache service uses Redis, as decided")
    assert any("'cache-redis' already says" in note for note in result.notes)


def test_pairs_by_cells_find_what_every_pair_finds(write, monkeypatch):
    for n in range(3):
        write(f"backups-nightly-{n}", description="Nightly database backups run at 02:00 UTC")
        write(f"cache-redis-{n}", description="The cache service uses Redis")
    write("subtitles", description="Subtitles are delivered as SRT and TTML")
    every_pair = meaning.near_duplicate_pairs(GLOBAL_TIER)
    assert len(every_pair) == 6
    monkeypatch.setattr(meaning, "EXACT_UP_TO", 2)  # 7 memories: 2 cells, both probed
    monkeypatch.setattr(meaning, "_held", meaning._Vectors())  # a new process: drawn anew
    by_cells = meaning.near_duplicate_pairs(GLOBAL_TIER)
    assert [(a, b) for a, b, _ in by_cells] == [(a, b) for a, b, _ in every_pair]
    assert np.allclose([c for *_, c in by_cells], [c for *_, c in every_pair], atol=1e-5)


def test_pairs_span_a_project_and_the_global_tier_not_two_projects(write, project, other_project):
    write("backups-nightly", description="Nightly database backups run at 02:00 UTC")
    web = write(
        "backups-web", description="Nightly database backups run at 02:00 UTC", project="webdev"
    )
    infra = write(
        "backups-infra", description="Nightly database backups run at 02:00 UTC", project="infra"
    )
    ids = dict(Memory.objects.values_list("name", "id"))
    pairs = meaning.alike_pairs(
        {
            GLOBAL_TIER: [ids["backups-nightly"]],
            project.id: [web.memory.id],
            other_project.id: [infra.memory.id],
        }
    )
    found = {tuple(sorted((a, b))) for a, b, _ in pairs}
    assert found == {
        tuple(sorted((ids["backups-nightly"], web.memory.id))),
        tuple(sorted((ids["backups-nightly"], infra.memory.id))),
    }


@pytest.mark.parametrize(
    ("exact_up_to", "comparisons"), [(1000, 1), (2, meaning.CELL_PROBES)], ids=["every", "cells"]
)
def test_the_pairs_of_many_copies_stay_bounded(write, monkeypatch, exact_up_to, comparisons):
    # A row is compared once with every other, or once with each cell it probes.
    monkeypatch.setattr(meaning, "EXACT_UP_TO", exact_up_to)
    monkeypatch.setattr(meaning, "ROW_PAIRS_KEPT", 3)
    monkeypatch.setattr(meaning, "NEIGHBOURS_KEPT", 2)
    for n in range(12):
        write(f"backups-{n}", description="Nightly database backups run at 02:00 UTC")
    monkeypatch.setattr(meaning, "_held", meaning._Vectors())
    pairs = meaning.near_duplicate_pairs(GLOBAL_TIER)
    assert 0 < len(meaning._held.pairs[0]) <= 12 * 3 * comparisons
    assert max(Counter(m for a, b, _ in pairs for m in (a, b)).values()) <= 2
    write("backups-12", description="Nightly database backups run at 02:00 UTC")
    assert meaning.near_duplicate_pairs(GLOBAL_TIER)
    assert len(meaning._held.pairs[0]) <= 12 * 3 * comparisons + 3, "and a new memory's"


def test_rules_that_differ_by_a_number_are_no_near_copies(write):
    write("legacy-rule-12", description="Legacy operating rule 12 from the old wiki", priority=0)
    result = write("legacy-rule-13", description="Legacy operating rule 13 from the old wiki")
    assert not any("already says something very similar" in note for note in result.notes)
    assert meaning.near_duplicate_pairs(GLOBAL_TIER) == []
    result = write("legacy-rule-12-again", description="Legacy operating rule 12 of the old wiki")
    assert any("'legacy-rule-12' already says" in note for note in result.notes)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "Production deploys go to host-7 through the bastion",
            "Production deploys go to host-9 through the bastion",
        ),
        ("Clients must call API v2.3 or later", "Clients must call API v2.4 or later"),
        ("The release freeze starts on 2026-11-02", "The release freeze starts on 2026-11-03"),
        ("Application logs go to /var/log/app.log", "Application logs go to /var/log/web.log"),
    ],
)
def test_say_the_same_never_calls_other_facts_the_same(a, b):
    assert meaning.say_the_same([(a, b), (b, a), (a, a)]) == [False, False, True]
