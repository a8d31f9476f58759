"""Priority drift: histograms per tier and read counts that argue with priorities."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memories.reads import drift
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
    assert [m.memory.project_name for m in section.items] == [None, "webdev"]


def test_a_section_counts_up_to_its_bound(write, reads, monkeypatch):
    for number in range(4):
        reads(write(f"hot{number}", priority=12).memory, 20 + number)
    monkeypatch.setattr(drift, "COUNT_BOUND", 3)
    section = drift.unimportant_read_often(limit=2)
    assert [m.memory.name for m in section.items] == ["hot3", "hot2"]
    assert (section.count, section.more, section.count_label) == (3, True, "3+")
    monkeypatch.setattr(drift, "COUNT_BOUND", 4)
    section = drift.unimportant_read_often(limit=2)
    assert (section.count, section.more, section.count_label) == (4, False, "4")


@pytest.mark.engine("sqlite")
def test_the_never_read_section_reads_one_range_of_the_read_order_index(write):
    write("rule", priority=1)
    with CaptureQueriesContext(connection) as queries:
        drift.important_unread()
    assert len(queries) == 2  # the page, and its bounded count
    for query in queries:
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN QUERY PLAN " + query["sql"])
            plan = " ".join(row[-1] for row in cursor.fetchall())
        assert "memory_read_order (read_count=? AND priority<?)" in plan and "TEMP" not in plan
