"""The overview: each figure is a link to the list filtered to it."""

import datetime as dt

from django.utils import timezone

from memories.models import Memory
from memories.writes import doors
from projects import writes as project_doors
from tests.conftest import backdate


def test_figures_and_their_links(auditor, project, small_budget):
    past = (timezone.now() - dt.timedelta(days=2)).isoformat()
    doors.write("gone", description="expired", expires=past)
    backdate(doors.write("stale", description="old", references=["docs/a.md"]).memory, days=120)
    doors.write("web", project="webdev", description="w", references=["docs/a.md", "nowhere"])
    doors.write("big", project="webdev", description="b", body="x" * 90, load="inline")
    Memory.objects.filter(name="big").update(body="x" * 150)  # past the doors, as a lowered key
    html = auditor.get("/").content.decode()
    assert 'href="/memories/?expired=true"' in html
    assert '<span class="card-figure">1</span>\n    <span class="card-label">expired' in html
    assert 'href="/memories/?unverified=90d"' in html
    assert '3</span>\n    <span class="card-label">dangling references to 2 targets' in html
    assert 'href="/memories/?referencing=docs%2Fa.md"' in html
    assert "band over the inline budget" in html
    assert 'href="/memories/?project=webdev&amp;load=inline"' in html
    assert 'href="/memories/?project="' in html and 'href="/memories/?project=webdev"' in html
    assert "4 memories in 2 tiers" in html


def test_an_empty_store(auditor):
    html = auditor.get("/").content.decode()
    assert "0 memories in 1 tier" in html and "Every reference names a memory." in html


def test_a_fixed_number_of_queries(auditor, project, django_assert_num_queries):
    for number in range(20):
        doors.write(f"m{number}", project="webdev", description="m", references=[f"d{number}"])
    # session, user, role; the counts (one statement over the tallies), projects; bands (2);
    # the change feed's last id, which the page's live stream starts after
    with django_assert_num_queries(8):
        auditor.get("/")


def test_dangling_is_one_definition_on_the_overview_and_hygiene(auditor, project):
    """Resolved in the citing memory's band, as a memory's page, the graph and Hygiene do."""
    project_doors.add("infra")
    doors.write("only-infra", project="infra", description="held by one project")
    doors.write("also-web", project="webdev", description="one of two")
    doors.write("also-web", project="infra", description="two of two")
    doors.write("web", project="webdev", description="w", references=["only-infra", "also-web"])
    doors.write("g", description="global", references=["only-infra", "also-web", "docs/a.md"])
    # Dangling: web -> only-infra (another project's), g -> also-web (two projects hold it:
    # which one is meant depends on the session), g -> docs/a.md. Not: web -> also-web (its
    # own project's), g -> only-infra (the one memory of that name).
    overview = auditor.get("/").content.decode()
    assert '3</span>\n    <span class="card-label">dangling references to 3 targets' in overview
    assert "Hygiene</a> lists the same 3 targets" in overview
    hygiene = auditor.get("/hygiene/").content.decode()
    assert '<p class="section-count">3 <span class="section-unit">targets</span></p>' in hygiene


def test_a_band_over_the_budget_says_what_it_refuses(auditor, project, small_budget):
    doors.write("big", project="webdev", description="b", body="x" * 90, load="inline")
    html = auditor.get("/").content.decode()
    assert "over the inline budget</strong>" not in html
    Memory.objects.filter(name="big").update(body="x" * 150)  # past the doors, as a lowered key
    html = auditor.get("/").content.decode()
    assert "<strong>webdev is over the inline budget</strong> (0.1 KiB of 0.1 KiB)" in html
    assert "and so is one adding them to the global tier, whose memories are in webdev" in html
    assert 'href="/budget/?project=webdev">What webdev spends inline' in html
    Memory.objects.filter(name="big").update(project=None)
    html = auditor.get("/").content.decode()
    assert "<strong>The global tier is over the inline budget</strong>" in html
