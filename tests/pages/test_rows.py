"""Inline edits of one row: priority and load, through the write door, refusals in place."""

import pytest
from django.contrib.messages import get_messages

from memories.models import Memory
from memories.writes import doors
from tests.pages.conftest import chrome_free


@pytest.fixture
def note(db):
    return doors.write("note", description="a note", body="b" * 60, priority=5).memory


def test_a_priority_edit_lands_and_redraws_the_row(operator, note, htmx):
    response = operator.post(
        "/memories/note/row/?project=", {"priority": "2", "next": "/memories/"}, **htmx
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert Memory.objects.get().priority == 2
    assert chrome_free(html)
    assert html.lstrip().startswith(f'<tbody id="memory-{note.id}"')
    assert 'name="priority" value="2"' in html and "is-saved" in html
    assert 'id="budget" class="budget-strip" hx-swap-oob="true"' in html
    assert 'name="next" value="/memories/"' in html


def test_a_load_edit_lands(operator, note, htmx):
    operator.post("/memories/note/row/?project=", {"load": "search"}, **htmx)
    assert Memory.objects.get().load == "search"


def test_a_budget_refusal_is_shown_beside_its_row_and_nothing_lands(
    operator, note, htmx, small_budget
):
    doors.write("rule", description="rule", body="r" * 60, load="inline")
    response = operator.post("/memories/note/row/?project=", {"load": "inline"}, **htmx)
    html = response.content.decode()
    assert response.status_code == 409
    assert 'class="refusal"' in html and 'role="alert"' in html
    assert "inline memories would total 0.1 KiB against the 0.1 KiB inline budget" in html
    assert "shorten" in html and "set <code>load: index</code>" in html  # code shown as code
    assert 'this change adds 60 bytes). <a class="refusal-link" href="/budget/">' in html
    assert '<option value="index" selected>' in html  # the row shows what is stored
    assert Memory.objects.get(name="note").load == "index"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"priority": "500"}, "The priority must be between 0 (most important) and 100."),
        ({"priority": "-3"}, "The priority must be between 0 (most important) and 100."),
        ({"priority": "2.5"}, "The priority must be a whole number."),
        ({"priority": "soon"}, "The priority must be a whole number."),
        ({"load": "everywhere"}, "The load must be inline, index or search."),
        ({}, "Give a priority or a load to change."),
    ],
)
def test_a_bad_value_is_refused_in_place(operator, note, htmx, data, message):
    response = operator.post("/memories/note/row/?project=", data, **htmx)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Memory.objects.get().priority == 5


def test_without_javascript_the_edit_redirects_back_with_a_message(operator, note):
    response = operator.post(
        "/memories/note/row/?project=", {"priority": "1", "next": "/memories/?tag=x"}
    )
    assert response.status_code == 302 and response["Location"] == "/memories/?tag=x"
    assert [str(m) for m in get_messages(response.wsgi_request)] == ["Saved 'note'."]


def test_without_javascript_a_refusal_comes_back_as_a_message(operator, note, small_budget):
    doors.write("rule", description="rule", body="r" * 60, load="inline")
    response = operator.post("/memories/note/row/?project=", {"load": "inline"}, follow=True)
    html = response.content.decode()
    assert "'note' was not changed: inline memories would total" in html


def test_an_offsite_next_is_ignored(operator, note):
    response = operator.post(
        "/memories/note/row/?project=", {"priority": "1", "next": "https://evil.test/"}
    )
    assert response["Location"] == "/memories/"


def test_an_unknown_memory_is_a_404(operator, db, htmx):
    response = operator.post("/memories/ghost/row/?project=", {"priority": "1"}, **htmx)
    assert response.status_code == 404
    assert "There is no memory named" in response.content.decode()


def test_a_row_edit_names_the_tier(operator, project, htmx):
    doors.write("twin", project="webdev", description="web twin")
    operator.post("/memories/twin/row/?project=webdev", {"priority": "9"}, **htmx)
    assert Memory.objects.get(name="twin").priority == 9
    response = operator.post("/memories/twin/row/?project=", {"priority": "1"}, **htmx)
    assert response.status_code == 404
