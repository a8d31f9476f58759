"""The pages' side of live updates: the indicator each following page draws (where its stream
is, the change it was drawn at, what it follows), the page stream's refusals, and the row a
live list swaps in."""

from html.parser import HTMLParser

import pytest
from django.test import Client

from memories.reads import changes
from memories.writes import doors
from tests.live.test_events_api import _first_chunk, _ids


class _Indicator(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id") == "live":
            self.found = attrs


def _indicator(html: str) -> dict | None:
    parser = _Indicator()
    parser.feed(html)
    return parser.found


@pytest.mark.parametrize(
    ("path", "follow", "region"),
    [
        ("/memories/", "list", "#results"),
        ("/memories/note/?project=", "memory", ""),
        ("/memories/_agent/", "region", "#tier"),
        ("/history/", "region", "#results"),
        ("/memories/note/history/?project=", "region", "#revisions"),
        ("/", "region", "#overview"),
    ],
)
def test_a_following_page_draws_its_indicator(auditor, path, follow, region):
    note = doors.write("note", description="a note").memory
    found = _indicator(auditor.get(path).content.decode())
    assert found is not None, path
    assert found["data-live-follow"] == follow
    assert found["data-live-region"] == region
    assert found["data-live-url"] == f"/live/events?after={changes.latest_id()}"
    if follow == "memory":
        assert found["data-live-memory"] == str(note.id)


def test_a_page_that_follows_nothing_draws_no_indicator(auditor):
    assert _indicator(auditor.get("/budget/").content.decode()) is None


def test_the_page_stream_is_401_without_a_session_and_for_no_role(db, roleless):
    assert Client().get("/live/events").status_code == 401
    assert roleless.get("/live/events").status_code == 401


def test_the_page_stream_sends_what_came_after_and_a_poll_ends(auditor):
    doors.write("a", description="first")
    doors.write("b", description="second")
    first = changes.after(0)[0].id
    response = auditor.get(f"/live/events?after={first}")
    assert response.status_code == 200
    assert _ids(_first_chunk(response)) == [first + 1]
    polled = auditor.get(f"/live/events?after={first}&once=1")
    assert _ids(b"".join(polled.streaming_content).decode()) == [first + 1]


def test_a_live_list_gets_a_row_as_it_stands(operator, htmx):
    note = doors.write("note", description="as it stands now").memory
    answer = operator.get("/memories/note/row/?project=", **htmx)
    assert answer.status_code == 200
    html = answer.content.decode()
    assert f'id="memory-{note.id}"' in html and "as it stands now" in html
    assert "is-saved" not in html  # not an edit's answer
    assert 'id="budget"' in html
    assert operator.get("/memories/note/row/?project=").status_code == 302
    assert operator.get("/memories/absent/row/?project=", **htmx).status_code == 404
