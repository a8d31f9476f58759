"""The list's date ranges: drawn as date inputs from the form, each narrowing the list, a bad
value a form error, changed_by from the history, and the facets' months as links."""

import datetime as dt
from html.parser import HTMLParser

import pytest

from memories.models import Memory
from memories.reads.filters import DATES
from memories.writes import doors
from tests import conftest


class _Inputs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found: dict[str, dict] = {}
        self.links: list[dict] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input" and "id" in attrs:
            self.found[attrs["id"]] = attrs
        if tag == "a":
            self.links.append(attrs)


def parsed(response) -> _Inputs:
    parser = _Inputs()
    parser.feed(response.content.decode())
    return parser


@pytest.fixture
def dated(db):
    conftest.dated("about {name}")


def test_each_range_is_two_date_inputs(auditor, dated):
    inputs = parsed(auditor.get("/memories/", {"recorded_since": "2026-11-01"})).found
    for name, _, _ in DATES:
        for end in ("since", "until"):
            drawn = inputs[f"f-{name}-{end}"]
            assert drawn["type"] == "date" and drawn["name"] == f"{name}_{end}"
    assert inputs["f-recorded-since"]["value"] == "2026-11-01"


@pytest.mark.parametrize("name", [name for name, _, _ in DATES])
def test_each_range_narrows_the_list(auditor, dated, name):
    end = "until" if name == "expires" else "since"
    page = auditor.get("/memories/", {f"{name}_{end}": "7d"})
    assert page.status_code == 200
    rows = [a["href"] for a in parsed(page).links if a.get("href", "").startswith("/memories/f")]
    assert "/memories/fresh/?project=" in rows
    assert not any(href.startswith("/memories/old/") for href in rows if href)
    assert "/memories/old/?project=" not in page.content.decode()


def test_a_bad_value_is_a_form_error(auditor, dated):
    page = auditor.get("/memories/", {"expires_until": "tomorrow"})
    assert page.status_code == 400
    assert "expires_until: a date (2026-11-24), an RFC 3339 moment" in page.content.decode()


def test_changed_by_on_the_list(operator, auditor, dated):
    doors.write("by-bob", description="by bob")
    assert (
        operator.post(
            "/memories/_new/",
            {"name": "made-by-bob", "description": "on the page", "priority": 5, "load": "index"},
        ).status_code
        == 302
    )
    page = auditor.get("/memories/", {"changed_by": "bob"}).content.decode()
    assert "/memories/made-by-bob/?project=" in page
    assert "/memories/by-bob/?project=" not in page


def test_the_facets_months_link_a_months_range(auditor, db):
    doors.write("a", description="a")
    Memory.objects.filter(name="a").update(created_at=dt.datetime(2026, 2, 10, tzinfo=dt.UTC))
    facets = parsed(auditor.get("/memories/_facets/", HTTP_HX_REQUEST="true")).links
    assert {"href": "/memories/_months/"} in facets
    links = parsed(auditor.get("/memories/_months/")).links
    assert any(
        a["href"] == "/memories/?recorded_since=2026-02-01&recorded_until=2026-02-28" for a in links
    )
