"""/v1/agent-view: the section now, as it stood at a moment, and the diff of two moments."""

import datetime as dt
import time

import pytest
from django.utils import timezone

from memadmin.api.openapi import document
from memories.reads.agent_view import agent_view
from memories.rules.fields import rfc3339
from projects import writes as project_doors


def _moment() -> str:
    moment = timezone.now()
    time.sleep(0.002)  # the next write lands strictly after it
    return rfc3339(moment)


def test_now_is_the_live_section(read_api, write, project):
    write("rule", load="inline", body="Answer in kind.", priority=0)
    write("w-note", project="webdev", description="about webdev")
    response = read_api.get("/v1/agent-view", project="webdev")
    assert response.status_code == 200
    data = response.json()
    assert data["live"] is True
    assert data["text"] == agent_view(project).text()
    assert data["project"] == "webdev" and "diff" not in data


def test_a_past_moment_and_the_diff_since_name_who_changed_what(
    read_api, api, write, project, auditor
):
    write("rule", load="inline", body="Answer in kind.", priority=0)
    write("old-note", project="webdev", description="the old way")
    write("stays", project="webdev", description="stays as it is")
    then = _moment()
    then_text = agent_view(project).text()
    assert api("PUT", "/v1/memories/rule", {"body": "Answer in English."}).status_code == 200
    assert api("DELETE", "/v1/memories/old-note", project="webdev").status_code == 200
    put = api("PUT", "/v1/memories/new-note", {"description": "the new way"}, project="webdev")
    assert put.status_code == 201
    project_doors.rename("webdev", "web")

    past = read_api.get("/v1/agent-view", project="webdev", at=then).json()
    assert past["live"] is False and past["project"] == "webdev"
    assert past["text"] == then_text

    data = read_api.get("/v1/agent-view", project="web", since=then).json()
    assert data["live"] is True and data["since_text"] == then_text
    diff = data["diff"]
    assert "-Answer in kind." in diff["lines"] and "+Answer in English." in diff["lines"]
    assert [c["name"] for c in diff["entered"]] == ["new-note"]
    assert [c["name"] for c in diff["left"]] == ["old-note"]
    assert [c["name"] for c in diff["changed"]] == ["rule"]
    (left,) = diff["left"]
    assert left["was"] == "index" and left["now"] is None
    assert [(r["action"], r["user"], r["door"]) for r in left["revisions"]] == [
        ("delete", "otto", "api")
    ]
    assert diff["renamed"][0]["from"] == "webdev" and diff["renamed"][0]["to"] == "web"
    assert "stays" not in {
        c["name"] for group in ("entered", "left", "changed") for c in diff[group]
    }


def test_an_expiry_passing_is_named_as_why(read_api, write):
    write("fades", description="fades", expires=timezone.now() + dt.timedelta(seconds=1))
    then = _moment()
    time.sleep(1.1)
    data = read_api.get("/v1/agent-view", since=then).json()
    (left,) = data["diff"]["left"]
    assert left["revisions"] == [] and left["why"].startswith("its expiry passed at ")


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"at": "garbage"}, "at"),
        ({"at": "2026-02-30T10:00"}, "at"),
        ({"at": "3000-01-01T00:00:00Z"}, "at"),
        ({"since": "3000-01-01"}, "since"),
        ({"at": "2020-01-01T00:00:00Z"}, "at"),
        ({"project": "bad name!"}, "project"),
    ],
)
def test_bad_moments_are_one_sentence(read_api, write, query, field):
    write("note", description="a note")
    response = read_api.get("/v1/agent-view", **query)
    assert response.status_code == 400
    data = response.json()
    assert data["field"] == field
    assert data["error"].count(". ") == 0 and data["error"].endswith(".")


def test_since_must_come_before_at(read_api, write):
    write("note", description="a note")
    first = _moment()
    write("other", description="another")
    second = _moment()
    response = read_api.get("/v1/agent-view", at=first, since=second)
    assert response.status_code == 400 and response.json()["field"] == "since"


def test_before_the_history_kept_it_says_from_when(read_api, write):
    write("note", description="a note")
    answers_from = read_api.get("/v1/agent-view", at=_moment()).json()["answers_from"]
    response = read_api.get("/v1/agent-view", at="2000-01-01")
    assert response.status_code == 400
    assert f"The history kept begins at {answers_from}" in response.json()["error"]


def test_unknown_parameters_are_refused_and_the_route_is_documented(read_api):
    assert read_api.get("/v1/agent-view", when="now").status_code == 400
    names = {p["name"] for p in document()["paths"]["/v1/agent-view"]["get"]["parameters"]}
    assert names == {"project", "at", "since"}


def test_an_unknown_project_is_404(read_api, db):
    response = read_api.get("/v1/agent-view", project="nowhere")
    assert response.status_code == 404
