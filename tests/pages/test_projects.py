"""The projects page: tiers with counts and inline bytes; add, rename, remove."""

import pytest

from memories.writes import doors
from projects.models import Project
from tests.pages.conftest import chrome_free


@pytest.fixture
def store(db, project):
    doors.write("rule", description="r", body="abc", load="inline")
    doors.write("web", project="webdev", description="w", body="hello", load="inline")


def test_tiers_with_counts_and_inline_bytes(auditor, store):
    html = auditor.get("/projects/").content.decode()
    assert 'href="/memories/?project="' in html and 'href="/memories/?project=webdev"' in html
    assert '<td class="num" data-label="Inline bytes">5</td>' in html
    assert '<td class="num" data-label="Inline bytes">3</td>' in html
    assert 'href="/memories/_agent/?project=webdev">0.0 KiB</a>' in html
    assert "Rename" not in html and "New project" not in html  # an auditor's view


def test_add_rename_remove(operator, store, htmx):
    added = operator.post("/projects/", {"name": "infra"}, **htmx)
    assert added.status_code == 200 and chrome_free(added.content.decode())
    assert "Added project &#x27;infra&#x27;." in added.content.decode()
    renamed = operator.post("/projects/webdev/rename/", {"new_name": "frontend"}, **htmx)
    assert "its memories moved with it" in renamed.content.decode()
    assert doors.locate("web", "frontend").project.name == "frontend"
    operator.post("/projects/infra/remove/", **htmx)
    assert set(Project.objects.values_list("name", flat=True)) == {"frontend"}


def test_remove_is_refused_while_memories_remain(operator, store, htmx):
    response = operator.post("/projects/webdev/remove/", **htmx)
    html = response.content.decode()
    assert response.status_code == 409
    assert "cannot be removed while 1 memory remains in it" in html
    assert 'class="refusal"' in html
    assert Project.objects.filter(name="webdev").exists()


@pytest.mark.parametrize(
    ("path", "data", "status", "message"),
    [
        ("/projects/", {"name": "webdev"}, 409, "already exists"),
        ("/projects/", {"name": "bad name"}, 400, "starts with a letter or digit"),
        ("/projects/", {"name": ""}, 400, "is required"),
        ("/projects/webdev/rename/", {"new_name": "../x"}, 400, "starts with a letter"),
        ("/projects/nowhere/rename/", {"new_name": "x"}, 404, "There is no project"),
        ("/projects/nowhere/remove/", {}, 404, "There is no project"),
    ],
)
def test_refusals_are_shown_where_they_happened(operator, store, htmx, path, data, status, message):
    response = operator.post(path, data, **htmx)
    assert response.status_code == status
    assert message in response.content.decode()


def test_without_javascript_the_outcome_is_a_message(operator, store):
    response = operator.post("/projects/webdev/remove/", follow=True)
    assert "cannot be removed while 1 memory remains" in response.content.decode()


def test_an_auditor_may_not_change_projects(auditor, store):
    assert auditor.post("/projects/", {"name": "x"}).status_code == 403
    assert auditor.post("/projects/webdev/remove/").status_code == 403
    assert not Project.objects.filter(name="x").exists()


def test_a_fixed_number_of_queries(auditor, project, django_assert_num_queries):
    for name in ("a1", "b2", "c3"):
        Project.objects.create(name=name, created_at=project.created_at)
    with django_assert_num_queries(6):
        auditor.get("/projects/")
