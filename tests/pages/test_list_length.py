"""The list at length: numbered pages where the count is known, columns hidden per account,
long cells ready to be clamped."""

from html.parser import HTMLParser

import pytest
from django.urls import reverse

from memadmin.models import ListColumns
from memories.writes import doors
from tests.pages.conftest import signed_in

LIST = "/memories/"
COLUMNS = reverse("memories:columns")


class _Page(HTMLParser):
    """The elements of a page as (tag, attributes, text up to the next tag)."""

    def __init__(self):
        super().__init__()
        self.elements: list[list] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append([tag, dict(attrs), ""])

    def handle_data(self, data):
        if self.elements:
            self.elements[-1][2] += data

    def find(self, tag: str, **attrs) -> list[tuple[dict, str]]:
        return [
            (found, text.strip())
            for name, found, text in self.elements
            if name == tag and all(found.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]


def parsed(response) -> _Page:
    page = _Page()
    page.feed(response.content.decode())
    return page


def page_links(page: _Page) -> dict[str, str]:
    """Each numbered page's link: its number to its address."""
    return {
        found["aria-label"].removeprefix("Page "): found["href"]
        for found, _ in page.find("a")
        if found.get("aria-label", "").startswith("Page ")
    }


def current_page(page: _Page) -> str | None:
    current = page.find("strong", aria_current="page")
    return current[0][1] if current else None


@pytest.fixture
def many(db):
    for number in range(23):
        doors.write(f"m{number:02}", description=f"note {number}", priority=number)


def test_numbered_pages_where_the_count_is_known(auditor, many):
    first = parsed(auditor.get(LIST, {"limit": 5}))
    assert current_page(first) == "1"
    assert page_links(first) == {
        "2": "/memories/?limit=5&offset=5",
        "3": "/memories/?limit=5&offset=10",
        "5": "/memories/?limit=5&offset=20",
    }
    last = parsed(auditor.get(LIST, {"limit": 5, "offset": 20}))
    assert current_page(last) == "5"
    names = [text for found, text in last.find("a") if found.get("href", "").startswith("/m")]
    assert [name for name in names if name.startswith("m")] == ["m20", "m21", "m22"]


def test_a_page_reached_by_next_knows_its_number(auditor, many):
    page = parsed(auditor.get(LIST, {"limit": 5}))
    for expected in ("2", "3"):
        (next_link,) = [found["href"] for found, _ in page.find("a", rel="next")]
        assert "after=" in next_link
        page = parsed(auditor.get(next_link))
        assert current_page(page) == expected
    (previous,) = [found["href"] for found, _ in page.find("a", rel="prev")]
    assert "before=" in previous
    assert current_page(parsed(auditor.get(previous))) == "2"


def test_a_numbered_pages_links_page_by_cursor_from_there(auditor, many):
    page = parsed(auditor.get(LIST, {"limit": 5, "offset": 10}))
    (previous,) = [found["href"] for found, _ in page.find("a", rel="prev")]
    (next_link,) = [found["href"] for found, _ in page.find("a", rel="next")]
    assert "offset" not in previous and "offset" not in next_link
    assert current_page(parsed(auditor.get(previous))) == "2"
    assert current_page(parsed(auditor.get(next_link))) == "4"
    sizes = [found["href"] for found, text in page.find("a") if text == "25"]
    assert sizes == ["/memories/?limit=25"]


def test_one_page_has_no_numbers(auditor, many):
    page = parsed(auditor.get(LIST))
    assert current_page(page) is None and page_links(page) == {}


def test_an_offset_past_the_counted_rows_is_refused(auditor, many):
    response = auditor.get(LIST, {"offset": 2001})
    assert response.status_code == 400
    assert "numbered pages reach its first 2,000 memories" in response.content.decode()


def test_hidden_columns_are_kept_with_the_account(db, auditor, many, htmx):
    answer = auditor.post(COLUMNS, {"show": ["tier", "priority", "load", "reads"]}, **htmx)
    assert answer.status_code == 204
    (table,) = parsed(auditor.get(LIST)).find("table")
    hidden = "description tags recorded verified expires refs"
    assert table[0]["data-hidden"] == hidden
    # Another browser of the same account: the same columns hidden.
    user = ListColumns.objects.get().user
    (elsewhere,) = parsed(signed_in(user).get(LIST)).find("table")
    assert elsewhere[0]["data-hidden"] == hidden
    boxes = {
        found["value"]: "checked" in found
        for found, _ in parsed(auditor.get(LIST)).find("input", name="show")
    }
    assert boxes["tier"] and not boxes["description"]


def test_each_account_hides_its_own_columns(db, auditor, operator, many):
    answer = auditor.post(COLUMNS, {"show": [], "next": "/memories/?limit=5"})
    assert answer.status_code == 302 and answer["Location"] == "/memories/?limit=5"
    (mine,) = parsed(auditor.get(LIST)).find("table")
    (theirs,) = parsed(operator.get(LIST)).find("table")
    assert len(mine[0]["data-hidden"].split()) == 10
    assert theirs[0]["data-hidden"] == ""


def test_every_hideable_cell_names_its_column(operator, many):
    page = parsed(operator.get(LIST))
    headers = {found.get("data-col") for found, _ in page.find("th", scope="col")} - {None}
    cells = {found["data-col"] for found, _ in page.find("td") if "data-col" in found}
    shown = {found["value"] for found, _ in page.find("input", name="show")}
    assert shown == cells == headers - {"name"}


@pytest.mark.parametrize("show", ["bogus", "name"])
def test_an_unknown_column_is_refused_with_a_sentence(auditor, db, show):
    response = auditor.post(COLUMNS, {"show": [show]})
    assert response.status_code == 400
    assert f"There is no column ‘{show}’ to show." in response.content.decode()
    assert not ListColumns.objects.exists()


def test_long_cells_are_drawn_clampable(auditor, db):
    doors.write("long", description="word " * 199)
    page = parsed(auditor.get(LIST))
    clamped = [found for found, _ in page.find("div") if "clamp" in found.get("class", "").split()]
    assert len(clamped) == 2  # the description and the tags


def test_columns_are_kept_only_for_someone_signed_in_with_a_role(client, roleless, auditor):
    answer = client.post(COLUMNS, {"show": ["tier"]})
    assert answer.status_code == 302 and answer["Location"].startswith("/sign-in/")
    refused = roleless.post(COLUMNS, {"show": ["tier"]})
    assert refused.status_code == 403 and "ask an admin" in refused.content.decode()
    assert auditor.get(COLUMNS).status_code == 405
    assert not ListColumns.objects.exists()
