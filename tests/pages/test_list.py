"""The memory list: filters in the URL, the summary, sorting, keyset pages, fragments."""

import datetime as dt
import re
from html.parser import HTMLParser

import pytest
from django.db import connection
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memadmin.pages.memories.forms import BulkForm, MemoryListForm
from memories.reads import listing, meaning
from memories.reads.find import SORT_WORDS
from memories.rules import fields
from memories.writes import doors
from projects import writes as project_doors
from tests.conftest import backdate
from tests.pages.conftest import chrome_free


def names(html: str) -> list[str]:
    return re.findall(r'<th scope="row" class="col-name"><a href="[^"]*">([^<]+)</a>', html)


@pytest.fixture
def store(db, project):
    past = (timezone.now() - dt.timedelta(days=1)).isoformat()
    doors.write("rule", description="a standing rule", priority=0, load="inline", body="x")
    doors.write("gone", description="an expired note", priority=3, expires=past, tags=["ops"])
    backdate(
        doors.write("stale", description="old", priority=4, references=["rule"]).memory,
        days=200,
    )
    doors.write("web", project="webdev", description="web note", priority=2, tags=["ops"])
    doors.write("cites", description="cites", priority=6, references=["rule", "docs/x.md"])


def test_page_lists_every_memory_in_index_order(operator, store):
    response = operator.get("/memories/")
    html = response.content.decode()
    assert response.status_code == 200
    assert names(html) == ["rule", "web", "gone", "stale", "cites"]
    assert "5 memories, most important first" in html
    assert "site-header" in html and "<html" in html


def test_the_fragment_is_the_results_alone(operator, store, htmx):
    response = operator.get("/memories/?expired=true", **htmx)
    html = response.content.decode()
    assert chrome_free(html)
    assert 'id="filters"' not in html
    assert names(html) == ["gone"]
    assert "1 memory expired" in html
    assert "HX-Request" in response["Vary"]
    assert response["HX-Push-Url"] == "/memories/?expired=true"


def test_the_full_page_varies_on_htmx_too(operator, store):
    assert "HX-Request" in operator.get("/memories/")["Vary"]


def test_blank_parameters_are_dropped_from_a_shared_url(operator, store):
    response = operator.get("/memories/?project=*&expired=true&tag=&load=&q=")
    assert response.status_code == 302
    assert response["Location"] == "/memories/?expired=true"


def test_htmx_gets_the_clean_url_pushed_instead_of_a_redirect(operator, store, htmx):
    response = operator.get("/memories/?project=&expired=&tag=ops", **htmx)
    assert response.status_code == 200
    assert response["HX-Push-Url"] == "/memories/?project=&tag=ops"
    assert names(response.content.decode()) == ["gone"]


@pytest.mark.parametrize(
    ("query", "expected", "summary"),
    [
        ("project=", ["rule", "gone", "stale", "cites"], "4 memories in the global tier"),
        ("project=webdev", ["web"], "1 memory in webdev"),
        ("expired=true", ["gone"], "1 memory expired"),
        ("expired=false", ["rule", "web", "stale", "cites"], "4 memories not expired"),
        ("unverified=90d", ["stale"], "1 memory unverified for 90 days"),
        ("referencing=rule", ["stale", "cites"], "2 memories referencing ‘rule’"),
        ("referencing=docs/x.md", ["cites"], "1 memory referencing ‘docs/x.md’"),
        ("tag=ops", ["web", "gone"], "2 memories tagged ops"),
        ("load=inline", ["rule"], "1 memory load inline"),
        ("priority_min=2&priority_max=4", ["web", "gone", "stale"], "priority 2–4"),
        ("project=&tag=ops&expired=true", ["gone"], "1 memory in the global tier, expired, tagged"),
    ],
)
def test_filters_use_the_api_parameters(auditor, store, query, expected, summary):
    html = auditor.get("/memories/?" + query).content.decode()
    assert names(html) == expected
    assert summary in html


@pytest.mark.parametrize(
    ("query", "summary"),
    [
        ("referencing=rule", "more than 1 memories referencing ‘rule’"),
        ("unverified=90d&project=", "1 memory in the global tier, unverified for 90 days"),
    ],
)
def test_a_filter_the_tallies_do_not_keep_counts_up_to_a_bound(
    operator, store, monkeypatch, query, summary
):
    monkeypatch.setattr(listing, "PAGE_COUNT_BOUND", 1)
    html = operator.get("/memories/?" + query).content.decode()
    assert summary in html
    if "referencing" in query:
        assert names(html) == ["stale", "cites"]
        assert "These more than 1 as data" in html
        assert "every memory matching (more than 1)" in html


def test_the_filter_form_shows_the_filters_in_force(auditor, store):
    html = auditor.get("/memories/?project=&expired=true&unverified=90d&tag=ops").content.decode()
    assert '<option value="" selected>global</option>' in html
    assert '<option value="true" selected>expired</option>' in html
    assert '<option value="90d" selected>90 days</option>' in html
    assert 'name="tag" type="text" value="ops"' in html
    every = auditor.get("/memories/").content.decode()
    assert '<option value="*" selected>every tier</option>' in every


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("expired=perhaps", "expired is true or false"),
        ("unverified=soon", "is not a period"),
        ("priority_min=high", "Enter a whole number"),
        ("priority_min=9&priority_max=2", "The lowest priority is above the highest"),
        ("priority_max=101", "less than or equal to 100"),
        ("load=everywhere", "Select a valid choice"),
        ("sort=chaos", "sort is one of index, name, -name, tier, priority"),
        ("limit=0", "greater than or equal to 1"),
        ("offset=2001", "numbered pages reach its first 2,000 memories"),
        ("after=not-a-cursor", "That page link is not valid"),
        ("after=W1sxXV0", "That page link is not valid"),
        ("project=bad%20name", "starts with a letter or digit"),
    ],
)
def test_a_bad_value_is_a_400_with_a_sentence(auditor, store, query, message):
    response = auditor.get("/memories/?" + query)
    assert response.status_code == 400
    assert message in response.content.decode()


def test_an_unknown_project_is_a_404_with_a_sentence(auditor, store):
    response = auditor.get("/memories/?project=nowhere")
    assert response.status_code == 404
    assert "There is no project named &#x27;nowhere&#x27;." in response.content.decode()


def test_a_bad_value_under_htmx_answers_in_the_results(auditor, store, htmx):
    response = auditor.get("/memories/?expired=perhaps", **htmx)
    assert response.status_code == 400
    assert chrome_free(response.content.decode())


def test_rows_mark_expiry_ages_and_citations(auditor, store):
    html = auditor.get("/memories/").content.decode()
    gone = html[html.index('id="memory-') :].split("</tbody>")
    gone_row = next(row for row in gone if ">gone<" in row)
    assert "badge-expired" in gone_row and "is-expired" in gone_row
    rule_row = next(row for row in gone if ">rule<" in row)
    assert 'title="memories referencing rule">2</a>' in rule_row
    exact_time = r'<time datetime="[^"]+" title="\d{4}-\d\d-\d\d [\d:]+ UTC">today \d\d:\d\d</time>'
    assert re.search(exact_time, html)
    stale_row = next(row for row in gone if ">stale<" in row)
    assert "6 months ago" in stale_row


def test_sorting_by_a_column_and_back(auditor, store):
    html = auditor.get("/memories/?sort=name").content.decode()
    assert names(html) == ["cites", "gone", "rule", "stale", "web"]
    assert re.search(r'aria-sort="ascending">\s*<a href="/memories/\?sort=-name"', html)
    assert "sorted by name" in html
    reverse = auditor.get("/memories/?sort=-name").content.decode()
    assert names(reverse) == ["web", "stale", "rule", "gone", "cites"]
    assert 'aria-sort="descending"' in reverse


@pytest.mark.parametrize(
    ("sort", "first"),
    [("-read_count", None), ("created", "stale"), ("expires", "gone"), ("-verified", None)],
)
def test_other_sorts(auditor, store, sort, first):
    html = auditor.get(f"/memories/?sort={sort}").content.decode()
    assert sorted(names(html)) == ["cites", "gone", "rule", "stale", "web"]
    if first:
        assert names(html)[0] == first


@pytest.mark.parametrize("sort", list(listing.SORTS))
def test_every_sort_the_form_takes_is_served_and_said(auditor, store, sort):
    """Each sort the form accepts has its words (sort=priority once failed on the summary)."""
    response = auditor.get(f"/memories/?sort={sort}")
    assert response.status_code == 200
    if sort != "index":
        assert f"sorted by {SORT_WORDS[sort]}" in response.content.decode()


def test_keyset_pages_walk_forward_and_back(auditor, db):
    for number in range(7):
        doors.write(f"m{number}", description=f"note {number}", priority=number)
    first = auditor.get("/memories/?limit=3").content.decode()
    assert names(first) == ["m0", "m1", "m2"]
    assert "Previous" not in first
    next_url = re.search(r'href="(/memories/\?limit=3&amp;after=[^"]+)" [^>]*rel="next"', first)
    second = auditor.get(next_url.group(1).replace("&amp;", "&")).content.decode()
    assert names(second) == ["m3", "m4", "m5"]
    third_url = re.search(r'href="([^"]+)" [^>]*rel="next"', second).group(1)
    third = auditor.get(third_url.replace("&amp;", "&")).content.decode()
    assert names(third) == ["m6"] and 'rel="next"' not in third
    back_url = re.search(r'href="([^"]+)" [^>]*rel="prev"', third).group(1)
    back = auditor.get(back_url.replace("&amp;", "&")).content.decode()
    assert names(back) == ["m3", "m4", "m5"]
    assert "7 memories" in back


def test_each_page_runs_a_fixed_number_of_queries(auditor, project, django_assert_num_queries):
    """Session, user, role, projects, the columns the user hides, the bands' inline totals,
    page, count, citations: whatever the rows."""
    doors.write("seed", description="seed", references=["x"])
    for size in (3, 40):
        for number in range(size):
            doors.write(
                f"n{size}-{number}",
                project="webdev" if number % 2 else None,
                description=f"note {number}",
                references=["seed", f"n{size}-0"],
                tags=["a", "b"],
            )
        # Two of them the columns the user hides and the change feed's last id, which the
        # page's live stream starts after.
        with django_assert_num_queries(10):
            auditor.get("/memories/")
        with django_assert_num_queries(11):  # the project's id, for the tier filter
            auditor.get("/memories/?project=webdev&tag=a&referencing=seed")


def test_the_search_box_ranks_and_says_how_each_hit_was_found(auditor, store, htmx):
    response = auditor.get("/memories/?q=standing&q=expired&mode=words", **htmx)
    html = response.content.decode()
    assert response.status_code == 200
    assert set(names(html)) == {"rule", "gone"}
    assert "2 memories matching ‘standing’ or ‘expired’, best first" in html
    assert html.count('class="badge badge-sense"') == 2 and "word match" in html
    assert "badge-meaning" not in html
    assert (
        "aria-sort" not in html
        and 'href="/memories/?q=standing&amp;q=expired&amp;sort=' not in (html)
    )


def test_a_search_keeps_to_the_filters_and_pages_by_offset(auditor, db):
    for number in range(5):
        doors.write(f"deploy-{number}", description=f"deploy step {number}", tags=["ops"])
    doors.write("other", description="deploy elsewhere")
    first = auditor.get("/memories/?q=deploy&tag=ops&limit=2").content.decode()
    assert "5 memories matching ‘deploy’, tagged ops, best first" in first
    assert len(names(first)) == 2
    assert 'href="/memories/?q=deploy&amp;tag=ops&amp;limit=2&amp;offset=2"' in first
    last = auditor.get("/memories/?q=deploy&tag=ops&limit=2&offset=4").content.decode()
    assert len(names(last)) == 1 and 'rel="next"' not in last
    assert 'href="/memories/?q=deploy&amp;tag=ops&amp;limit=2&amp;offset=2" ' in last


class _Inputs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found: dict[str, dict] = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input" and "id" in attrs:
            self.found[attrs["id"]] = attrs


def inputs(html: str) -> dict[str, dict]:
    """Every <input> with an id, by id: its attributes."""
    parser = _Inputs()
    parser.feed(html)
    return parser.found


def test_the_inputs_limits_are_the_form_fields(operator, store):
    query = "?tag=ops&referencing=rule&priority_min=1&priority_max=9&q=rule"
    drawn = inputs(operator.get("/memories/" + query).content.decode())
    assert drawn["f-tag"] == {
        "id": "f-tag",
        "name": "tag",
        "type": "text",
        "value": "ops",
        "maxlength": str(fields.MAX_TAG_LENGTH),
        "autocomplete": "off",
        "list": "tag-suggestions",
    }
    assert drawn["f-referencing"]["maxlength"] == str(fields.MAX_REFERENCE_LENGTH)
    assert drawn["f-referencing"]["value"] == "rule"
    priorities = (str(fields.PRIORITY_MIN), str(fields.PRIORITY_MAX))
    for key, name, value in [("f-pmin", "priority_min", "1"), ("f-pmax", "priority_max", "9")]:
        assert (drawn[key]["name"], drawn[key]["type"], drawn[key]["value"]) == (
            name,
            "number",
            value,
        )
        assert (drawn[key]["min"], drawn[key]["max"]) == priorities
    assert (drawn["f-pmin"]["placeholder"], drawn["f-pmax"]["placeholder"]) == priorities
    assert MemoryListForm().fields["q"].max_length == fields.MAX_QUERY_CHARS
    assert drawn["f-q-1"]["maxlength"] == drawn["f-q-more"]["maxlength"] == "500"
    assert (drawn["bulk-priority"]["min"], drawn["bulk-priority"]["max"]) == priorities
    shift = BulkForm().fields["shift"]
    assert (drawn["bulk-shift"]["min"], drawn["bulk-shift"]["max"]) == (
        str(shift.min_value),
        str(shift.max_value),
    )
    graph = inputs(operator.get("/graph/?tag=ops").content.decode())
    hygiene = inputs(operator.get("/hygiene/?tag=ops").content.decode())
    for tag in (graph["g-tag"], hygiene["h-tag"]):
        assert (tag["maxlength"], tag["value"]) == (str(fields.MAX_TAG_LENGTH), "ops")


def test_a_value_drawn_in_a_filter_input_is_escaped(auditor, store):
    html = auditor.get("/memories/", {"tag": '"><b>x'}).content.decode()
    assert inputs(html)["f-tag"]["value"] == '"><b>x'
    assert "<b>x" not in html


def test_the_search_form_keeps_every_synonym(auditor, store):
    html = auditor.get("/memories/?q=terse&q=brevity").content.decode()
    assert 'name="q" type="search" value="terse"' in html
    assert 'name="q" type="search" value="brevity"' in html
    assert 'id="f-q-more" class="search-input" name="q" type="search" value=""' in html


def test_a_search_that_only_the_text_scan_answers_says_so(auditor, db):
    doors.write("paths", description="config lives at /etc/nginx/sites-enabled/app.conf")
    html = auditor.get("/memories/?q=nginx/sites-enabled").content.decode()
    assert names(html) == ["paths"]
    assert "text match" in html or "whole-query scan" in html


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("q=x&after=abc", "A search pages by offset"),
        ("q=" + "x" * 501, "at most 500 characters"),
        ("q=x&mode=fuzzy", "mode is hybrid, words or meaning."),
    ],
)
def test_bad_search_input_is_a_400(auditor, store, query, message):
    response = auditor.get("/memories/?" + query)
    assert response.status_code == 400 and message in response.content.decode()


def test_a_search_page_runs_a_fixed_number_of_queries(auditor, db, django_assert_num_queries):
    for size in (3, 30):
        for number in range(size):
            doors.write(f"s{size}-{number}", description="deploy notes", references=["x"])
        meaning.held_count()  # the new vectors read into this process's copy beforehand
        # The references citing the query among them; with the meaning beside the words:
        # the vectors' state, the near ones held against the filters, and the page's
        # memories loaded once the two are fused (the words' hits are read without them),
        # the columns the user hides, and the change feed's last id, which the page's live
        # stream starts after. PostgreSQL reads the words' statistics first (each time inside
        # the test's transaction: outside one they are kept while the store stands still).
        with django_assert_num_queries(13 + (connection.vendor == "postgresql")):
            auditor.get("/memories/?q=deploy")


PARAMETERS = [
    "project", "expired", "unverified", "referencing", "tag", "load", "q", "priority_min",
    "priority_max", "sort", "limit", "offset", "after", "before",
]  # fmt: skip


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    query=st.lists(
        st.tuples(st.sampled_from(PARAMETERS), st.text(max_size=40)), min_size=1, max_size=4
    )
)
def test_no_query_string_makes_a_500(auditor, store, query):
    response = auditor.get("/memories/", query, HTTP_HX_REQUEST="true")
    assert response.status_code in (200, 400, 404), response.content.decode()[:300]


def test_the_drawn_once_parts_follow_what_they_show(admin, auditor, project):
    """The filter form, the bulk controls and the navigation are kept per process: a new
    project shows in the first two, and the navigation follows the role and the page."""
    admin.get("/memories/")
    project_doors.add("research")
    html = admin.get("/memories/").content.decode()
    # The same address as before, drawn again: in the tier filter and in the bulk move.
    assert html.count('<option value="research">research</option>') == 2
    assert 'href="/accounts/"' in html
    assert 'href="/accounts/"' not in auditor.get("/memories/").content.decode()
    current = admin.get("/projects/").content.decode()
    assert re.search(r'href="/projects/" aria-current="page"', current)


def test_a_hit_found_by_meaning_is_shown_as_such(auditor, db, htmx):
    doors.write("deploy-host", description="Production deploys go to host-7 through the bastion")
    doors.write("subtitles", description="Subtitles are delivered as SRT and TTML")
    html = auditor.get("/memories/?q=which+server+receives+our+releases", **htmx).content.decode()
    assert names(html)[0] == "deploy-host"
    assert 'class="badge badge-meaning" title="similarity 0.' in html
    assert ">similar in meaning</span>" in html and "word match" not in html
    words = auditor.get("/memories/?q=which+server+receives+our+releases&mode=words").content
    assert names(words.decode()) == [] and b"badge-meaning" not in words
    page = auditor.get("/memories/?q=bastion&mode=meaning").content.decode()
    assert '<option value="meaning" selected>meaning only</option>' in page


def test_a_filter_refused_is_named_as_the_page_labels_it_and_said_once(auditor):
    response = auditor.get("/memories/", {"priority_min": "abc"})
    page = response.content.decode()
    assert response.status_code == 400
    assert page.count("Priority from: Enter a whole number.") == 1
    assert "priority_min:" not in page
