"""Adding, renaming and removing a project is recorded as the memory doors record theirs:
the door and who, in the change's own transaction; the audit log shows it."""

import pytest
from django.core.management import call_command
from django.test import Client

from memadmin.accounts import roles, tokens
from memories.models import ProjectRevision
from memories.rules.errors import ProjectExists, ProjectNotEmpty
from memories.writes import doors, history
from projects import writes as project_doors
from tests.api.conftest import Api
from tests.conftest import make_user


def _recorded():
    return list(
        ProjectRevision.objects.order_by("id").values_list(
            "action", "name", "previous_name", "door", "actor", "username"
        )
    )


def test_each_door_records_the_change_and_who_made_it(db):
    user = make_user("olga", roles.OPERATOR)
    with history.acting(door=history.PAGE, user=user, reason="a new team"):
        project_doors.add("webdev")
        project_doors.rename("webdev", "frontend")
        project_doors.remove("frontend")
    assert _recorded() == [
        ("add", "webdev", "", "page", "olga", "olga"),
        ("rename", "frontend", "webdev", "page", "olga", "olga"),
        ("remove", "frontend", "", "page", "olga", "olga"),
    ]
    assert set(ProjectRevision.objects.values_list("reason", flat=True)) == {"a new team"}


def test_a_refused_change_records_nothing(db):
    project_doors.add("webdev")
    doors.write("note", project="webdev", description="kept here")
    with pytest.raises(ProjectExists):
        project_doors.add("webdev")
    with pytest.raises(ProjectNotEmpty):
        project_doors.remove("webdev")
    project_doors.rename("webdev", "webdev")  # no change
    assert [row[0] for row in _recorded()] == ["add"]


def test_the_api_and_the_command_are_recorded_with_their_doors(db):
    operator = make_user("otto", roles.OPERATOR)
    token, secret = tokens.create_token(operator, "write")
    api = Api(secret)
    assert api("POST", "/v1/projects", {"name": "mobile"}).status_code == 201
    assert api("PATCH", "/v1/projects/mobile", {"name": "ios"}).status_code == 200
    call_command("project", "remove", "ios")
    rows = _recorded()
    assert [(action, door) for action, _, _, door, _, _ in rows] == [
        ("add", "api"),
        ("rename", "api"),
        ("remove", "command"),
    ]
    assert rows[0][4] == f"otto (token {token.prefix}…)"
    assert rows[2][4] == "manage.py project remove"


def test_the_audit_log_shows_a_rename_made_on_the_projects_page(db):
    client = Client()
    client.force_login(make_user("olga", roles.OPERATOR))
    client.post("/projects/", {"name": "webdev"})
    client.post("/projects/webdev/rename/", {"new_name": "frontend", "reason": "rebrand"})
    auditor = Client()
    auditor.force_login(make_user("audrey", roles.AUDITOR))
    html = auditor.get("/history/").content.decode()
    assert "Project changes" in html
    assert "webdev → frontend" in html and "renamed" in html and "Reason: rebrand" in html
    assert "olga" in html
    by_tier = auditor.get("/history/", {"project": "webdev"}).content.decode()
    assert "webdev → frontend" in by_tier
    by_someone_else = auditor.get("/history/", {"user": "nobody"}).content.decode()
    assert "Project changes" not in by_someone_else
