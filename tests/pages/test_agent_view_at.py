"""The agent view page at a moment (`at`) and diffed with another (`since`)."""

import time
from html.parser import HTMLParser

import pytest
from django.utils import timezone

from memories.reads.agent_view import agent_view
from memories.writes import doors, history
from projects import writes as project_doors


class Texts(HTMLParser):
    """The text inside each element with an id, and inside each element of a class."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.by_id: dict[str, str] = {}
        self.by_class: dict[str, list[str]] = {}
        self.open: list[tuple[str, str | None, list[str]]] = []
        self.inputs: dict[str, dict] = {}
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input" and attrs.get("name"):
            self.inputs[attrs["name"]] = attrs
        if tag in ("input", "br", "meta", "link", "img"):
            return
        self.open.append((tag, attrs.get("id"), (attrs.get("class") or "").split()))
        if attrs.get("id"):
            self.by_id[attrs["id"]] = ""
        for name in (attrs.get("class") or "").split():
            self.by_class.setdefault(name, []).append("")

    def handle_endtag(self, tag):
        while self.open:
            if self.open.pop()[0] == tag:
                break

    def handle_data(self, data):
        for _, element_id, classes in self.open:
            if element_id:
                self.by_id[element_id] += data
            for name in classes:
                self.by_class[name][-1] += data


def _moment():
    moment = timezone.now()
    time.sleep(0.002)
    return moment


@pytest.fixture
def last_week(db, project):
    """A store changed after a moment: the moment, and the text the agent had then."""
    doors.write("rule", description="answer in kind", body="Answer in kind.", load="inline")
    doors.write("old-note", project="webdev", description="the old way")
    doors.write("stays", project="webdev", description="stays")
    then = _moment()
    text = agent_view(project).text()
    with history.acting(label="bob"):
        doors.write("rule", body="Answer in English.")
        doors.delete("old-note", project="webdev")
        doors.write("new-note", project="webdev", description="the new way")
    return then, text


def test_the_view_at_a_moment_is_the_text_then(auditor, last_week):
    then, text = last_week
    response = auditor.get("/memories/_agent/", {"project": "webdev", "at": then.isoformat()})
    assert response.status_code == 200
    page = Texts(response.content.decode())
    assert page.by_id["agent-text"] == "\n" + text  # the template opens the pre on a line
    assert page.by_class["as-of-banner"][0].startswith("As it stood at ")
    local = timezone.localtime(then).strftime("%Y-%m-%dT%H:%M:%S")
    assert page.inputs["at"]["value"] == local
    assert "the old way" in page.by_id["agent-text"]


def test_the_diff_names_what_entered_left_and_changed_and_who(auditor, last_week):
    then, _ = last_week
    response = auditor.get("/memories/_agent/", {"project": "webdev", "since": then.isoformat()})
    page = Texts(response.content.decode())
    diff = page.by_id["view-diff"]
    assert "Entered (1)" in diff and "Left (1)" in diff and "Changed (1)" in diff
    changes = [" ".join(item.split()) for item in page.by_class["view-changes"]]
    entered, left, changed = changes
    assert entered.startswith("new-note now listed in the index created by bob")
    assert left.startswith("old-note was listed in the index deleted by bob")
    assert changed.startswith("rule (global) still given whole in the inline band updated by bob")
    lines = page.by_class["line-diff"][0]
    assert "-Answer in kind." in lines and "+Answer in English." in lines


def test_the_alias_and_the_tabs_keep_the_moment(auditor, last_week):
    then, _ = last_week
    response = auditor.get("/agent/", {"project": "webdev", "at": then.isoformat()})
    assert response.status_code == 302
    assert response["Location"].startswith("/memories/_agent/?project=webdev&at=")
    html = auditor.get(response["Location"]).content.decode()
    local = timezone.localtime(then).strftime("%Y-%m-%dT%H:%M:%S")
    assert f'href="/memories/_agent/?at={local}"'.replace(":", "%3A") in html


@pytest.mark.parametrize(
    ("query", "field", "words"),
    [
        ({"at": "garbage"}, "at", "is not a moment"),
        ({"at": "2999-01-01T00:00"}, "at", "is in the future"),
        ({"at": "2000-01-01"}, "at", "The history kept begins at"),
        ({"since": "2999-01-01"}, "since", "must be an earlier moment"),
    ],
)
def test_bad_moments_are_form_errors_beside_the_view_now(auditor, last_week, query, field, words):
    response = auditor.get("/memories/_agent/", {"project": "webdev", **query})
    assert response.status_code == 400
    page = Texts(response.content.decode())
    assert words in page.by_id[f"as-of-{field}-error"]
    assert page.inputs[field]["aria-invalid"] == "true"
    assert "as-of-banner" not in page.by_class  # the view shown is the one as it stands
    assert "the new way" in page.by_id["agent-text"]


def test_a_project_added_after_the_moment_is_a_form_error(auditor, last_week):
    then, _ = last_week
    project_doors.add("later")
    response = auditor.get("/memories/_agent/", {"project": "later", "at": then.isoformat()})
    assert response.status_code == 400
    assert "was added after" in Texts(response.content.decode()).by_id["as-of-at-error"]
