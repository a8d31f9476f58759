"""The one rule of "says the same": vectors alike, and what differs alike in meaning too."""

from memories.models import GLOBAL_TIER
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
