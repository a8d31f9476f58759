"""What the agent is given: the inline band and the index with its ceilings and footer."""

import datetime as dt

from django.utils import timezone

from memories.models import Memory
from memories.reads.agent_view import TierReads, agent_view
from tests.conftest import restore


def test_index_lists_index_memories_and_counts_the_rest(write):
    write("rule", load="inline", body="Always answer in kind.", priority=0)
    write("note", description="Where deploys go", priority=3)
    write("hidden", load="search")
    write("gone", expires=(timezone.now() - dt.timedelta(days=1)).isoformat())
    view = agent_view(None)
    text = view.text()
    assert "## rule\nAlways answer in kind." in text
    assert "- note (priority 3, 0d): Where deploys go" in text
    assert "hidden" not in text and "gone" not in text
    assert "Listed nowhere here: 1 search-only and 1 expired memories" in text


def test_index_is_capped_at_200_entries_with_a_tag_footer(db):
    restore(
        *(
            {"name": f"m{number:03d}", "tags": ["infra"] if number % 3 else ["people"]}
            for number in range(230)
        )
    )
    view = agent_view(None)
    assert len(view.index.lines) == 200
    assert view.index.left_out == 30
    footer = view.index.footer()
    assert footer.startswith("30 more memories not shown here, most common tags infra (")
    assert footer.endswith("use `memory_search` to find them.")


def test_index_is_capped_at_8_kib(db):
    restore(*({"name": f"m{number:03d}", "description": "d" * 150} for number in range(100)))
    view = agent_view(None)
    assert view.index.bytes <= 8192
    assert 0 < len(view.index.lines) < 100
    assert view.index.left_out == 100 - len(view.index.lines)


def test_project_view_groups_global_first_under_one_budget(write, project):
    write("g-low", priority=9)
    write("w-top", project="webdev", priority=1)
    text = agent_view(project).text()
    assert text.index("Global:") < text.index("- g-low") < text.index("Project webdev:")
    assert text.index("Project webdev:") < text.index("- w-top")


def test_over_budget_band_shows_bodies_that_fit_and_lists_the_rest(write, settings):
    write("first", load="inline", body="a" * 60, priority=0)
    write("second", load="inline", body="b" * 30, priority=1)
    settings.MEMADMIN_INLINE_MAX_BYTES = 70  # as after lowering the budget
    view = agent_view(None)
    assert [m.name for m in view.inline_shown] == ["first"]
    assert [m.name for m, _ in view.inline_unshown.lines] == ["second"]
    text = view.text()
    assert "Inline memories total 0.1 KiB against the 0.1 KiB inline budget" in text
    assert "b" * 30 not in text, "no body is cut partway or shown past the budget"


def test_the_index_of_a_project_band_is_cut_in_index_order_across_both_tiers(db, project):
    """Taken a tier at a time and merged: the 200 that survive are the first in index order."""
    now = timezone.now()
    # Several memories share a created_at, so the id breaks their tie as the index does.
    restore(
        *(
            {
                "name": f"m{number:03d}",
                "project": "webdev" if number % 3 else None,
                "priority": number % 7,
                "description": "d",
                "created_at": now - dt.timedelta(days=3 * (number % 2)),
            }
            for number in range(260)
        )
    )
    expected = list(
        Memory.objects.filter(tier__in=(0, project.id))
        .order_by("priority", "-created_at", "-id")
        .values_list("name", flat=True)[:200]
    )
    view = agent_view(project)
    assert sorted(m.name for m, _ in view.index.lines) == sorted(expected)
    assert view.index.left_out == 60


def test_the_left_out_tags_are_counted_only_when_shown(db, django_assert_num_queries):
    restore(
        *(
            {"name": f"m{number:03d}", "tags": ["ops"], "priority": 1}
            if number < 200
            else {"name": f"m{number:03d}", "tags": ["people"], "priority": 9}
            for number in range(210)
        )
    )
    view = agent_view(None)
    assert view.index.left_out == 10
    with django_assert_num_queries(1):
        assert view.index.left_out_tags == [("people", 10)]
    with django_assert_num_queries(0):
        view.text()


def test_the_rows_a_view_reads_carry_aware_moments(write):
    """Ages and index order are worked out from them: a naive moment would be read in the
    machine's own zone."""
    write("rule", load="inline", body="Always answer in kind.")
    write("note", description="Where deploys go")
    view = agent_view(None)
    shown = view.inline_shown + [memory for memory, _ in view.index.lines]
    moments = [memory.created_at for memory in shown]
    assert moments and all(moment.utcoffset() == dt.timedelta(0) for moment in moments)


def test_reads_expecting_every_tier_read_them_all_with_the_first(
    write, project, other_project, django_assert_num_queries
):
    """The budget page builds one band's view, then the report of every band: the first
    read of a band takes every tier's rows and tallies, so the report reads nothing more."""
    other = other_project
    write("rule", load="inline", body="Always answer in kind.")
    write("web-note", project="webdev")
    write("other-rule", project="infra", load="inline", body="Say so.")
    reads = TierReads(timezone.now())
    reads.know_projects([project, other])
    reads.expect_every_tier()
    with django_assert_num_queries(2):  # the rows, then the tallies
        alone = agent_view(None, reads.now, reads=reads)
    with django_assert_num_queries(0):
        by_other = agent_view(other, reads.now, reads=reads)
        by_web = agent_view(project, reads.now, reads=reads)
    assert [m.name for m in alone.inline_shown] == ["rule"]
    assert [m.name for m in by_other.inline_shown] == ["other-rule", "rule"]  # most recent first
    assert [m.name for m, _ in by_web.index.lines] == ["web-note"]
    assert by_web.text() == agent_view(project).text()
