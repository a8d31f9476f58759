"""Reads the pages added: citation counts, backlinks in bulk, the overview, bands, ages."""

import datetime as dt

import pytest
from django.http import QueryDict
from django.utils import timezone

from memadmin.pages.query import canonical_query
from memadmin.web.markdown import render_markdown
from memories.models import Memory
from memories.reads import backlinks, budget, overview
from memories.reads.params import tier_param
from memories.rules import captions
from memories.rules.tiers import ANY_TIER
from memories.writes import doors
from projects.reads import tier_usage


@pytest.fixture
def cited(db, project, other_project):
    doors.write("g", description="global target")
    doors.write("p", project="webdev", description="web target")
    doors.write("p", project="infra", description="infra target")
    doors.write("c1", description="cites both", references=["g", "p"])
    doors.write("c2", project="webdev", description="cites p", references=["p", "g"])
    doors.write("c3", project="infra", description="cites p", references=["p"])
    doors.write("self", description="cites itself", references=["self", "g"])


def test_citation_counts_agree_with_referenced_by(cited):
    memories = list(Memory.objects.all())
    counts = backlinks.citation_counts(memories)
    many = backlinks.referenced_by_each(memories)
    for memory in memories:
        expected = backlinks.referenced_by(memory)
        assert counts[memory.id] == len(expected), memory
        assert [m.id for m in many[memory.id]] == [m.id for m in expected], memory
    g = Memory.objects.get(name="g")
    assert counts[g.id] == 3  # c1, c2 and self; self does not count itself for itself
    assert counts[Memory.objects.get(name="self").id] == 0


def test_citations_of_a_page_take_one_query(cited, django_assert_num_queries):
    memories = list(Memory.objects.all())
    with django_assert_num_queries(1):
        backlinks.citation_counts(memories)
    with django_assert_num_queries(1):
        backlinks.referenced_by_each(memories)


def test_the_overview_figures(cited, small_budget):
    past = (timezone.now() - dt.timedelta(days=1)).isoformat()
    doors.write("gone", description="expired", expires=past, references=["nowhere", "docs/a"])
    doors.write("also", description="also", references=["nowhere"])
    Memory.objects.filter(name="g").update(verified_at=timezone.now() - dt.timedelta(days=100))
    doors.write("big", project="webdev", description="big", body="x" * 90, load="inline")
    Memory.objects.filter(name="big").update(body="x" * 120)
    figures = overview.overview()
    assert figures.total == 10 and figures.expired == 1 and figures.unverified == 1
    assert [(t.project, t.count) for t in figures.tiers] == [(None, 5), ("infra", 2), ("webdev", 3)]
    # c1 (global) citing "p", which two projects hold, is dangling as its page shows it.
    assert figures.dangling_references == 4 and figures.dangling_target_count == 3
    assert figures.dangling_targets == [("nowhere", 2), ("docs/a", 1), ("p", 1)]
    assert [b.project for b in figures.bands_over] == ["webdev"]


def test_bands_are_global_alone_then_each_project_with_global(cited):
    doors.write("gi", description="gi", body="abc", load="inline")
    doors.write("wi", project="webdev", description="wi", body="hello", load="inline")
    found = {band.project: band.bytes for band in budget.bands(timezone.now())}
    assert found == {None: 3, "infra": 3, "webdev": 8}
    usage = {u.project.name if u.project else None: u for u in tier_usage(timezone.now())}
    assert (usage["webdev"].inline_bytes, usage["webdev"].band_bytes) == (5, 8)
    assert usage[None].memory_count == 3 + 1


@pytest.mark.parametrize(
    ("delta", "words"),
    [
        (dt.timedelta(hours=-2), "today"),
        (dt.timedelta(days=-47), "47 days ago"),
        (dt.timedelta(days=1, hours=1), "tomorrow"),
        (dt.timedelta(days=12, hours=1), "in 12 days"),
        (dt.timedelta(days=400), "in 13 months"),
        (dt.timedelta(days=1000), "in 2 years"),
    ],
)
def test_relative_ages(delta, words):
    now = timezone.now().replace(hour=12)
    assert captions.relative(now + delta, now) == words


def test_record_caption(db):
    memory = doors.write("n", description="n").memory
    now = memory.created_at + dt.timedelta(days=47)
    assert captions.record_caption(memory, now) == "Recorded 47 days ago, not verified since"
    # The seed's wording for the bug it fixed is "Saved today"; a note of today is recorded.
    assert captions.record_caption(memory) == "Recorded today, not verified since"
    assert captions.read_caption(memory, now).endswith(
        "This is what you recorded then, not live state."
    )


def test_markdown_never_passes_raw_html():
    html = render_markdown('<b onclick="x">hi</b> [a](javascript:x) **ok**')
    assert html.startswith('<p>&lt;b onclick="x"&gt;hi&lt;/b&gt; [a](javascript:x) ')
    assert html.endswith("<strong>ok</strong></p>\n")


@pytest.mark.parametrize(
    ("query", "clean"),
    [
        ("project=*&tag=&expired=true", "expired=true"),
        ("project=&load=", "project="),
        ("q=a&q=&q=b", "q=a&q=b"),
        ("project=%20webdev%20", "project=webdev"),
    ],
)
def test_canonical_query(query, clean):
    assert canonical_query(QueryDict(query)).urlencode() == clean


def test_tier_param():
    assert tier_param(QueryDict("")) is ANY_TIER
    assert tier_param(QueryDict("project=")) is None
    assert tier_param(QueryDict("project=webdev")) == "webdev"
