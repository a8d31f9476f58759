"""The projects page: tiers with counts and inline bytes; add, rename, remove."""

import pytest

from memadmin.accounts import grants, roles
from memories.writes import doors
from projects.models import Project
from tests.conftest import make_user
from tests.pages.conftest import chrome_free, signed_in


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
    operator.post("/projects/infra/remove/", {"confirm": "true"}, **htmx)
    assert set(Project.objects.values_list("name", flat=True)) == {"frontend"}


def test_remove_is_refused_while_memories_remain(operator, store, htmx):
    response = operator.post("/projects/webdev/remove/", {"confirm": "true"}, **htmx)
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
    response = operator.post("/projects/webdev/remove/", {"confirm": "true"}, follow=True)
    assert "cannot be removed while 1 memory remains" in response.content.decode()


@pytest.mark.parametrize("with_htmx", [True, False])
def test_removing_a_project_asks_first(operator, store, htmx, with_htmx):
    Project.objects.create(name="infra", created_at=Project.objects.get().created_at)
    asked = operator.post("/projects/infra/remove/", **(htmx if with_htmx else {}))
    html = asked.content.decode()
    assert asked.status_code == 200 and Project.objects.filter(name="infra").exists()
    assert "<strong>Remove project infra?</strong> It holds 0 memories" in html
    assert '<input type="hidden" name="confirm" value="true">' in html
    assert 'hx-post="/projects/infra/remove/"' in html and ">Cancel</a>" in html
    assert chrome_free(html) == with_htmx
    operator.post("/projects/infra/remove/", {"confirm": "true"})
    assert not Project.objects.filter(name="infra").exists()


def test_a_refusal_replaces_the_previous_success_and_keeps_the_typed_name(operator, store, htmx):
    added = operator.post("/projects/", {"name": "infra"}, **htmx).content.decode()
    assert 'hx-swap-oob="true"><div class="flash flash-success"' in added
    refused = operator.post("/projects/webdev/rename/", {"new_name": "infra"}, **htmx)
    html = refused.content.decode()
    assert refused.status_code == 409
    # The flash area is emptied: the refusal is beside its row, under nothing green.
    flash = html[html.index('<div id="flash"') :]
    assert 'hx-swap-oob="true">' in flash and "<p" not in flash
    assert 'value="infra" maxlength="64" required autocomplete="off" aria-invalid="true"' in html
    assert 'class="refusal"' in html


def test_without_javascript_a_refused_rename_keeps_the_typed_name(operator, store):
    response = operator.post("/projects/webdev/rename/", {"new_name": "bad name"})
    html = response.content.decode()
    assert response.status_code == 400 and "starts with a letter" in html
    assert 'value="bad name"' in html and "<html" in html


def test_an_auditor_may_not_change_projects(auditor, store):
    assert auditor.post("/projects/", {"name": "x"}).status_code == 403
    assert auditor.post("/projects/webdev/remove/").status_code == 403
    assert not Project.objects.filter(name="x").exists()


def test_a_fixed_number_of_queries(auditor, project, django_assert_num_queries):
    for name in ("a1", "b2", "c3"):
        Project.objects.create(name=name, created_at=project.created_at)
    with django_assert_num_queries(6):
        auditor.get("/projects/")


def test_an_operator_of_one_project_renames_it_and_is_not_offered_a_new_one(store):
    otto = make_user("otto", None)
    grants.grant(None, otto, roles.OPERATOR, "webdev")
    client = signed_in(otto)
    html = client.get("/projects/").content.decode()
    assert "New project" not in html and "Rename" in html  # adding a project spans the store
    refused = client.post("/projects/", {"name": "infra"}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 403
    assert "Only a grant on the whole store lets you add a project." in refused.content.decode()
    assert (
        "New project"
        in signed_in(make_user("wanda", roles.OPERATOR)).get("/projects/").content.decode()
    )
