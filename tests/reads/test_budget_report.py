"""memories.reads.budget_report.budget_report: every band against the budget, shared by /v1 and the
dashboard's budget page."""

import datetime as dt

from django.utils import timezone

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


def test_report_queries_grow_with_bands_not_with_memories(
    write, project, django_assert_num_queries
):
    """Each band is what a session on it is given, so each costs its own few queries."""
    for number in range(30):
        write(f"m{number}", load="inline" if number % 2 else "index", body="x", tags=["t"])
        write(f"p{number}", project="webdev", tags=["t"])
    # Per tier, read once for every band holding it: its inline bodies, its index, its
    # tallies and its expired memories by load; per band, its largest inline bodies. And once,
    # the inline totals, the projects, the largest of every band, the projects the rows name.
    global_tier, project_tier = 4, 4
    global_band, project_band = global_tier + 1, project_tier + 1
    with django_assert_num_queries(3 + 1 + global_band + project_band):
        budget_report()
