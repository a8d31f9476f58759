"""Per-tier agent views: the exact text a session is given, and its budgets."""

import pytest

from memories.reads.agent_view import agent_view
from memories.writes import doors
from tests.pages.conftest import chrome_free


@pytest.fixture
def store(db, project):
    doors.write(
        "rule",
        description="answer in kind",
        body="Match the user's language.",
        load="inline",
        priority=0,
    )
    doors.write("note", description="where deploys go", priority=3)
    doors.write("hidden", description="search only", load="search")
    doors.write("web", project="webdev", description="uses pnpm", priority=1)


def test_the_global_view_is_the_exact_text(auditor, store):
    html = auditor.get("/memories/_agent/").content.decode()
    text = agent_view(None).text()
    assert '<pre class="agent-text" id="agent-text" tabindex="0">\n' in html
    assert text.replace("'", "&#x27;") in html
    assert 'data-copy="#agent-text"' in html
    assert "A session on no project: the global tier alone" in html
    assert "- web" not in html


def test_a_project_view_adds_its_tier(auditor, store, project):
    response = auditor.get("/memories/_agent/?project=webdev")
    html = response.content.decode()
    assert "Project webdev:" in html and "- web (priority 1" in html
    assert 'aria-current="page">webdev</a>' in html
    assert agent_view(project).text().replace("'", "&#x27;") in html
    assert (
        '<a href="/memories/_agent/" hx-get="/memories/_agent/" hx-target="#tier" '
        'hx-push-url="true">no project (global)</a>'
    ) in html
    # The global body a session on the project is given, marked global.
    assert (
        '<li><a class="mono" href="/memories/rule/?project=">rule</a> '
        '<span class="muted">26 bytes, global</span></li>'
    ) in html


def test_the_budgets_and_what_is_listed_nowhere(auditor, store):
    html = auditor.get("/memories/_agent/").content.decode()
    assert "0.0 KiB of 32.0 KiB" in html
    assert "1 of 200 entries" in html
    assert "<dt>search-only</dt><dd>1</dd>" in html


def test_an_over_budget_band_lists_what_it_cannot_show(auditor, store, settings):
    doors.write("long", description="a long rule", body="x" * 80, load="inline", priority=1)
    settings.MEMADMIN_INLINE_MAX_BYTES = 60
    html = auditor.get("/memories/_agent/").content.decode()
    assert "over the budget" in html and "Past the budget, listed by description only" in html


def test_switching_tier_is_a_fragment(auditor, store, htmx):
    response = auditor.get("/memories/_agent/?project=webdev", **htmx)
    assert chrome_free(response.content.decode())
    assert "HX-Request" in response["Vary"]


@pytest.mark.parametrize(("query", "status"), [("project=nowhere", 404), ("project=a%20b", 400)])
def test_a_bad_project_is_refused(auditor, store, query, status):
    assert auditor.get("/memories/_agent/?" + query).status_code == status


def test_a_fixed_number_of_queries(auditor, project, django_assert_num_queries):
    for number in range(30):
        doors.write(f"m{number}", project="webdev", description="m", tags=["t"])
    # Sign-in (3), the projects once (the tabs, the session's and the names its rows give);
    # the view: both tiers' inline bodies and index in one statement, then both tiers'
    # tallies beside their expired memories (one statement); the oldest revision kept, from
    # when the view can be rebuilt; the change feed's last id, which the page's live stream
    # starts after.
    with django_assert_num_queries(8):
        auditor.get("/memories/_agent/?project=webdev")
