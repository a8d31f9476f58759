"""The overview: each figure is a link to the list filtered to it."""

import datetime as dt

from django.utils import timezone

from memories.models import Memory
from memories.writes import doors
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
    with django_assert_num_queries(11):  # session, user, role; five counts, projects; bands (2)
        auditor.get("/")
