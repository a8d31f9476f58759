"""Priority drift: histograms per tier and read counts that argue with priorities."""

from memories.reads import drift
from memories.reads.filters import MemoryFilters
from tests.conftest import backdate


def test_histograms_per_tier_global_first(write, project, other_project):
    write("a", priority=0)
    write("b", priority=0)
    write("c", priority=7)
    write("w", project="webdev", priority=3)
    histograms = drift.priority_histograms()
    assert [(h.tier, h.counts) for h in histograms] == [
        ("global", {0: 2, 7: 1}),
        ("infra", {}),
        ("webdev", {3: 1}),
    ]
    assert round(histograms[0].important_share, 2) == 0.67
    assert histograms[1].important_share == 0.0
    assert histograms[0].to_dict() == {
        "project": None,
        "tier": "global",
        "total": 3,
        "counts": {"0": 2, "7": 1},
        "important_share": 0.6667,
    }


def test_histograms_take_two_queries(write, project, django_assert_num_queries):
    for number in range(10):
        write(f"m{number}", priority=number, project="webdev" if number % 2 else None)
    with django_assert_num_queries(2):
        drift.priority_histograms()


def test_important_but_never_read(write, reads, expire):
    backdate(write("rule", priority=1).memory, days=90)
    backdate(write("read-rule", priority=0).memory, days=90)
    reads(write("x", priority=2).memory, 0)
    backdate(write("inline-rule", priority=0, load="inline", body="b").memory, days=90)
    backdate(write("minor", priority=6).memory, days=90)
    expire(backdate(write("gone", priority=0).memory, days=90))
    reads(backdate(write("used", priority=0).memory, days=90), 3)
    section = drift.important_unread()
    assert [m.memory.name for m in section.items] == ["read-rule", "rule"]
    assert section.items[0].reason == "priority 0 but never read in 90 days"
    assert section.items[0].suggested_priority == drift.SUGGESTED_PRIORITY
    assert section.count == 2


def test_unimportant_but_read_often(write, reads, project):
    reads(write("hot", priority=15).memory, 40)
    reads(write("warm", priority=10, project="webdev").memory, 10)
    reads(write("cold", priority=15).memory, 9)
    reads(write("important", priority=2).memory, 90)
    section = drift.unimportant_read_often()
    assert [m.memory.name for m in section.items] == ["hot", "warm"]
    assert section.items[0].reason == "priority 15 but read 40 times"
    filtered = drift.unimportant_read_often(MemoryFilters(project="webdev"))
    assert [m.memory.name for m in filtered.items] == ["warm"]
