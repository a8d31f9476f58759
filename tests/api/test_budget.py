"""/v1/budget and the budget report it shares with the dashboard."""

import datetime as dt

from django.utils import timezone

from memories.budget import budget_report


def test_budget_route_reports_every_band(api, write, project, settings):
    settings.MEMADMIN_INLINE_MAX_BYTES = 100
    write("rule", load="inline", body="g" * 40)
    write("stack", project="webdev", load="inline", body="p" * 30)
    write("note", description="An index entry")
    response = api.get("/v1/budget")
    assert response.status_code == 200
    data = response.json()
    assert data["budget_bytes"] == 100
    assert data["global_write_bytes"] == 70
    global_band, webdev = data["bands"]
    assert (global_band["project"], global_band["inline_bytes"]) == (None, 40)
    assert (webdev["project"], webdev["inline_bytes"]) == ("webdev", 70)
    assert (webdev["global_bytes"], webdev["project_bytes"]) == (40, 30)
    assert webdev["over_budget"] is False
    assert webdev["largest"] == [
        {"name": "rule", "project": None, "bytes": 40},
        {"name": "stack", "project": "webdev", "bytes": 30},
    ]
    assert global_band["index"]["entries"] == 1
    assert global_band["index"]["max_entries"] == 200
    assert data["largest"][0] == {"name": "rule", "project": None, "bytes": 40}


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
    # Per band: its inline bodies, its index a tier at a time, the index's count, the
    # search-only and expired counts, its largest inline bodies.
    global_band, project_band = 1 + 1 + 4, 1 + 2 + 4
    with django_assert_num_queries(3 + global_band + project_band):
        budget_report()
