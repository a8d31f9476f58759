"""memories.reads.budget_report.budget_report: every band against the budget, shared by /v1 and the
dashboard's budget page."""

import datetime as dt

from django.utils import timezone

from memories.reads import budget
from memories.reads.budget_report import budget_report


def test_report_marks_a_band_over_budget_and_counts_what_it_cannot_show(write, project, settings):
    write("rule", load="inline", body="g" * 60)
    write("stack", project="webdev", load="inline", body="p" * 30, priority=9)
    write("gone", load="search", expires=(timezone.now() - dt.timedelta(days=1)).isoformat())
    settings.MEMADMIN_INLINE_MAX_BYTES = 80  # lowered beneath what the store holds
    report = budget_report()
    global_band, webdev = report.bands
    assert not global_band.over_budget
    assert webdev.over_budget
    assert (webdev.inline_shown, webdev.inline_not_shown) == (1, 1)
    assert global_band.index.expired == 1
    assert report.fullest is webdev


def test_report_queries_grow_neither_with_bands_nor_with_memories(
    write, project, other_project, django_assert_num_queries
):
    """Each band is what a session on it is given, each tier read once for every band."""
    for number in range(30):
        write(f"m{number}", load="inline" if number % 2 else "index", body="x", tags=["t"])
        write(f"p{number}", project="webdev", tags=["t"])
        write(f"q{number}", project="infra", load="inline", body="y")
    # Once: the inline totals, the projects (which name the rows too), every tier's tallies
    # beside its expired memories by load (one statement), every tier's inline bodies and
    # first index candidates (one statement).
    with django_assert_num_queries(4):
        budget_report()


def test_the_largest_are_those_the_write_door_names(write, project, other_project):
    past = (timezone.now() - dt.timedelta(days=1)).isoformat()
    for number, (band, size) in enumerate([(None, 50), ("webdev", 70), ("infra", 30)]):
        write(f"rule{number}", project=band, load="inline", body="x" * size)
    write("small", load="inline", body="y")
    write("gone", load="inline", body="z" * 90, expires=past)
    now = timezone.now()
    report = budget_report(now)
    every = budget.largest_inline((0, project.id, other_project.id), now, limit=10)
    assert report.largest == every and [row["name"] for row in every][:1] == ["rule1"]
    for band in report.bands[1:]:
        tier = project.id if band.project == "webdev" else other_project.id
        assert band.largest == budget.largest_inline((0, tier), now, limit=5)
