"""Each ranking factor moves the order: relevance, importance (priority and reads), freshness."""

import pytest

from memories.writes import doors
from tests.reads.search.conftest import days_ago, names, set_fields


def test_relevance_a_name_hit_beats_a_description_hit_beats_a_body_hit(write, find):
    write("in-body", description="A note", body="The heron nests by the lake.")
    write("heron", description="A note", body="Nothing more.")
    write("in-description", description="A heron note", body="Nothing more.")
    assert names(find("heron")) == ["heron", "in-description", "in-body"]


def test_relevance_a_memory_named_for_a_word_beats_a_body_repeating_it(write, find):
    write("runbook", description="Steps", body="Deploy step. " * 20 + "Then rest.", priority=0)
    write("deploy-host", description="Where releases go", body="host-7", priority=5)
    assert names(find("deploy")) == ["deploy-host", "runbook"]


def _shore(write, count=24):
    """Memories all holding `the`, a third of them `lake` too."""
    for number in range(count):
        body = "the path by the shore" + (" near the lake" if number % 3 == 0 else "")
        write(f"walk-{number}", description="A walk", body=body)


def test_relevance_a_memory_holding_the_rarer_word_ranks_first(write, find):
    """Relevance sums each word's weight by how rare it is: one rare word outweighs common
    words, however often they are repeated."""
    _shore(write)
    write("commonplace", description="A walk", body="the lake, the lake and the shore again")
    write("sighting", description="A walk", body="a heron")
    assert names(find("the lake heron"))[:2] == ["sighting", "commonplace"]


def test_relevance_a_word_every_memory_holds_counts_for_almost_nothing(write, find):
    """Even in the name, where a match counts most, a word every memory holds is outweighed
    by a rare word in the body."""
    _shore(write)
    write("the-walk", description="A walk", body="the path by the shore")
    write("sighting", description="A walk", body="the heron at dawn")
    assert names(find("the heron"))[0] == "sighting"


def test_relevance_placement_holds_for_a_prefix_match(write, find):
    write("runbook", description="Steps", body="Deploys wait. " * 20 + "Then rest.", priority=0)
    write("deploy-host", description="Where releases go", body="host-7", priority=5)
    result = find("deployment")
    assert names(result) == ["deploy-host", "runbook"]
    assert {hit.matched_by for hit in result.hits} == {"prefix"}


def test_relevance_the_same_holds_for_a_scanned_term(write, find):
    write("in-body", description="A note", body="会議室は三階")
    write("in-description", description="会議室の予約", body="Nothing more.")
    assert names(find("会議室")) == ["in-description", "in-body"]


def test_importance_priority_moves_the_order(write, find):
    write("alpha", description="Heron spotted at the lake", priority=1)
    write("beta", description="Heron spotted at the lake", priority=8)
    assert names(find("heron")) == ["alpha", "beta"]
    doors.write("alpha", priority=8)
    doors.write("beta", priority=1)
    assert names(find("heron")) == ["beta", "alpha"]


def test_importance_forty_reads_outweigh_a_low_label(write, find):
    read_often = write("read-often", description="Heron spotted at the lake", priority=9).memory
    write("labelled", description="Heron spotted at the lake", priority=3)
    assert names(find("heron")) == ["labelled", "read-often"]
    set_fields(read_often, read_count=40)
    assert names(find("heron")) == ["read-often", "labelled"]


def test_freshness_a_recently_verified_note_ranks_above_a_stale_one(write, find):
    stale = write("stale", description="Heron spotted at the lake").memory
    checked = write("checked", description="Heron spotted at the lake").memory
    set_fields(stale, created_at=days_ago(700), verified_at=days_ago(700))
    set_fields(checked, created_at=days_ago(800), verified_at=days_ago(800))
    assert names(find("heron")) == ["stale", "checked"], "older verification ranks lower"
    set_fields(checked, verified_at=days_ago(2))
    assert names(find("heron")) == ["checked", "stale"], "verifying it makes it fresh"


def test_freshness_does_not_apply_to_priorities_0_and_1(write, find):
    for priority in (0, 1):
        old = write(f"old-{priority}", description=f"Rule {priority} egret", priority=priority)
        new = write(f"new-{priority}", description=f"Rule {priority} egret", priority=priority)
        set_fields(old.memory, created_at=days_ago(730), verified_at=days_ago(730))
        set_fields(new.memory, created_at=days_ago(1), verified_at=days_ago(1))
        result = find(f"egret {priority}")
        assert [hit.score for hit in result.hits][0] == pytest.approx(result.hits[1].score)
        assert names(result)[:2] == [f"new-{priority}", f"old-{priority}"], "ties: newest first"


def test_the_half_life_setting_moves_the_order(write, find, settings):
    twice = write("twice", description="A note", body="Heron, heron by the lake.").memory
    once = write("once", description="A note", body="A heron by the lake.").memory
    for number in range(4):  # a word most memories hold would weigh almost nothing
        write(f"other-{number}", description=f"Another note, number {number}")
    set_fields(twice, created_at=days_ago(400), verified_at=days_ago(400))
    set_fields(once, created_at=days_ago(1), verified_at=days_ago(1))
    settings.MEMADMIN_SEARCH_HALF_LIFE_DAYS = 100_000
    assert names(find("heron")) == ["twice", "once"], "decay too slow to matter"
    settings.MEMADMIN_SEARCH_HALF_LIFE_DAYS = 7
    assert names(find("heron")) == ["once", "twice"], "a week's half-life: fresh wins"


def test_score_is_the_documented_product(write, find):
    memory = write("heron", description="Heron", priority=10).memory
    set_fields(memory, read_count=10, created_at=days_ago(180), verified_at=days_ago(180))
    hit = find("heron").hits[0]
    importance = 1 - (10 / 20) * (10 / 20)
    freshness = 0.5 + 0.5 * 0.5
    relevance = hit.score / (importance * freshness)
    assert 0 < relevance < 1
    set_fields(memory, read_count=0, verified_at=days_ago(0))
    fresh_unread = find("heron").hits[0].score
    assert fresh_unread == pytest.approx(relevance * 0.5 * 1.0, rel=1e-3)
