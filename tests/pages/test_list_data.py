"""The list's counts and data: facets, CSV and JSON at the list's address, search by
reference, the tag filter in any case, and the list's wording."""

import csv
import io
import json

import pytest
from django.http import QueryDict

from memadmin.pages.memories import listing
from memories.models import Memory
from memories.reads import facets
from memories.reads.facets import FacetValue
from memories.writes import doors
from tests.pages.conftest import chrome_free


@pytest.fixture
def store(db, project):
    doors.write("rule", description="a standing rule", priority=0, load="inline", body="x")
    doors.write("web", project="webdev", description="web note", priority=2, tags=["Ops"])
    doors.write("cites", description="=cites", priority=6, tags=["ops", "docs"],
                references=["docs/runbook.md", "INC-2291"])  # fmt: skip


def test_the_list_loads_its_facets_and_each_adds_its_filter(auditor, store, htmx):
    page = auditor.get("/memories/?project=").content.decode()
    assert 'hx-get="/memories/_facets/?project=" hx-trigger="revealed"' in page
    assert '<a href="/memories/_facets/?project=">' in page  # without JavaScript too
    fragment = auditor.get("/memories/_facets/?project=", **htmx).content.decode()
    assert chrome_free(fragment)
    assert '<a href="/memories/?project=&amp;load=inline">inline</a>' in fragment
    assert '<a href="/memories/?project=&amp;tag=ops">ops</a> <span class="facet-count">1' in (
        fragment
    )
    # the filter already set is a link taking it off
    assert '<a href="/memories/" aria-current="true" title="Remove this filter">global</a>' in (
        fragment
    )
    assert '<datalist id="tag-suggestions" hx-swap-oob="true">' in fragment


def test_facets_without_javascript_are_a_page(auditor, store):
    page = auditor.get("/memories/_facets/?tag=OPS").content.decode()
    assert "site-header" in page and "Counts for these filters" in page
    assert '<a href="/memories/?tag=OPS">Back to the list</a>' in page


def test_a_bad_filter_on_the_facets_is_a_400(auditor, store, htmx):
    response = auditor.get("/memories/_facets/?priority_min=500", **htmx)
    assert response.status_code == 400
    assert "less than or equal to 100" in response.content.decode()


def test_the_list_links_to_its_data(auditor, store):
    page = auditor.get("/memories/?tag=ops&limit=25").content.decode()
    assert '<a href="/memories/?tag=ops&amp;format=csv" download>CSV</a>' in page
    assert '<a href="/memories/?tag=ops&amp;format=json" download>JSON</a>' in page


def test_the_list_as_csv_follows_every_filter(auditor, store):
    response = auditor.get("/memories/?tag=OPS&format=csv")
    assert response.streaming and response["Content-Type"].startswith("text/csv")
    assert 'filename="memadmin-memories-' in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0] == list(Memory.objects.get(name="web").to_dict())  # the /v1 keys, in order
    assert [(row[0], row[1]) for row in rows[1:]] == [("web", "webdev"), ("cites", "")]
    assert rows[2][2] == "'=cites"  # never a formula
    assert rows[2][6] == "docs/runbook.md\nINC-2291"


def test_the_list_as_json_is_the_v1_shape(auditor, store):
    response = auditor.get("/memories/?project=&format=json")
    data = json.loads(b"".join(response.streaming_content))
    assert data["count"] == 2 and [m["name"] for m in data["memories"]] == ["rule", "cites"]
    assert set(data["memories"][0]) == {
        "name", "project", "description", "priority", "load", "tags", "references", "source",
        "created_at", "updated_at", "verified_at", "expires_at", "read_count", "expired",
        "superseded_by",
    }  # fmt: skip
    searched = json.loads(
        b"".join(auditor.get("/memories/?q=INC-2291&format=json").streaming_content)
    )
    assert [(m["name"], m["matched_by"]) for m in searched["memories"]] == [("cites", "reference")]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("format=xml", "format is csv or json."),
        ("format=csv&priority_min=x", "whole number"),
        ("format=json&project=nowhere", "There is no project named &#x27;nowhere&#x27;."),
    ],
)
def test_bad_data_requests_are_a_400(auditor, store, query, message):
    response = auditor.get("/memories/?" + query)
    assert response.status_code in (400, 404) and message in response.content.decode()


def test_search_finds_a_cited_path_or_id(auditor, store, htmx):
    html = auditor.get("/memories/?q=docs/runbook.md&mode=words", **htmx).content.decode()
    assert "1 memory matching ‘docs/runbook.md’" in html
    assert '<span class="badge badge-sense" title="score 0.000">cites it</span>' in html
    hybrid = auditor.get("/memories/?q=docs/runbook.md", **htmx).content.decode()
    assert "cites it</span>" in hybrid  # beside the guesses by meaning, still found


def test_an_empty_search_for_a_path_offers_the_referencing_filter(auditor, store, htmx):
    html = auditor.get("/memories/?q=docs/other.md", **htmx).content.decode()
    assert "list the memories referencing it" in html
    assert 'href="/memories/?referencing=docs%2Fother.md"' in html
    plain = auditor.get("/memories/?q=zyzzyva", **htmx).content.decode()
    assert "list the memories referencing it" not in plain


def test_the_tag_filter_finds_a_tag_in_any_case(auditor, store, htmx):
    html = auditor.get("/memories/?tag=OPS", **htmx).content.decode()
    assert "2 memories tagged OPS" in html


def test_the_list_reads_right(operator, store):
    page = operator.get("/memories/").content.decode()
    # a heading that sorts says so
    assert '<th scope="col" data-col="name" class="sortable">' in page
    assert 'Refs <span class="header-note">out / in</span>' in page
    assert "Refs: the references a memory makes (out) / the memories referencing it (in)." in page
    assert 'Priority <span class="muted">(0 = most important)</span>' in page
    assert "Priority from (0, the most important)" in page
    assert "Lowest priority" not in page and "Highest priority" not in page
    # every edit reaches the server, which answers it: no browser check swallows it
    assert (
        '<form id="filters"' in page
        and 'aria-label="Search and filter memories" novalidate>' in page
    )
    assert (
        '<form class="inline-edit" method="post" action="/memories/rule/row/?project=" novalidate'
        in page
    )
    assert (
        'hx-post="/memories/_bulk/" hx-target="#results" hx-swap="innerHTML show:#flash:top" '
        "novalidate>"
    ) in page


def test_the_tag_filtered_on_is_selected_in_its_facet_whatever_its_case(auditor, store, htmx):
    fragment = auditor.get("/memories/_facets/?tag=OPS", **htmx).content.decode()
    assert '<a href="/memories/" aria-current="true" title="Remove this filter">ops</a>' in fragment


def test_a_facet_link_keeps_the_other_filters_and_drops_the_page():
    params = QueryDict("q=deploy&q=ship&load=index&tag=OPS&after=x&offset=50")
    found = [
        facets.Facet(
            "load", "Load", [FacetValue("inline", "inline", 2), FacetValue("index", "index", 1)]
        ),
        facets.Facet(
            "tag", "Tag", [FacetValue("ops", "ops", 1)], more=[FacetValue("a b", "a b", 1)]
        ),
    ]
    load, tag = listing._facet_links(params, found)
    assert [value["url"] for value in load["values"]] == [
        "/memories/?q=deploy&q=ship&tag=OPS&load=inline",
        "/memories/?q=deploy&q=ship&tag=OPS",  # the filter set: its link takes it off
    ]
    assert [value["selected"] for value in tag["values"]] == [True]
    assert tag["values"][0]["url"] == "/memories/?q=deploy&q=ship&load=index"
    assert tag["more"][0]["url"] == "/memories/?q=deploy&q=ship&load=index&tag=a+b"
    assert listing._facet_links(QueryDict("load=index"), found[:1])[0]["values"][1]["url"] == (
        "/memories/"
    )
