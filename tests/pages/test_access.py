"""Who may open and change what: the role matrix over every page and every write."""

import re

import pytest
from django.test import Client

from memories.models import Memory
from memories.writes import doors
from tests.conftest import make_user
from tests.pages.conftest import signed_in


@pytest.fixture
def note(db):
    return doors.write("note", description="a note", body="text", priority=5).memory


READ_PAGES = [
    "/",
    "/memories/",
    "/memories/note/?project=",
    "/memories/note/?view=raw&project=",
    "/memories/_agent/",
    "/projects/",
    "/tokens/",
]
OPERATOR_PAGES = ["/memories/_new/", "/memories/note/delete/?project="]


def writes():
    """Every write of the pages: (path, form data), each changing 'note' if it lands."""
    return [
        ("/memories/note/row/?project=", {"priority": "9"}),
        ("/memories/_bulk/", {"action": "set_priority", "priority": "9", "id": "{id}"}),
        ("/memories/note/?project=", {"description": "changed", "priority": "9", "load": "index"}),  # noqa: E501
        ("/memories/note/delete/?project=", {}),
        (
            "/memories/_new/",
            {"name": "new-one", "description": "d", "priority": "5", "load": "index"},
        ),  # noqa: E501
    ]


def _data(data: dict, note) -> dict:
    return {key: value.replace("{id}", str(note.id)) for key, value in data.items()}


@pytest.mark.parametrize("path", READ_PAGES + OPERATOR_PAGES)
def test_anonymous_is_sent_to_sign_in(client, note, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/sign-in/?next=")


def test_anonymous_htmx_request_redirects_the_whole_page(client, note):
    response = client.get("/memories/", HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert response["HX-Redirect"].startswith("/sign-in/?next=")


@pytest.mark.parametrize(("path", "data"), writes())
def test_anonymous_writes_change_nothing(client, note, path, data):
    response = client.post(path, _data(data, note))
    assert response.status_code == 302 and "/sign-in/" in response["Location"]
    assert Memory.objects.get().priority == 5


@pytest.mark.parametrize("path", READ_PAGES)
def test_a_user_without_a_role_is_refused(roleless, note, path):
    response = roleless.get(path)
    assert response.status_code == 403
    assert "ask an admin" in response.content.decode()


@pytest.mark.parametrize("path", READ_PAGES)
@pytest.mark.parametrize("who", ["auditor", "operator", "admin"])
def test_every_role_reads(request, note, path, who):
    assert request.getfixturevalue(who).get(path).status_code == 200


@pytest.mark.parametrize("path", OPERATOR_PAGES)
def test_an_auditor_cannot_open_edit_pages(auditor, note, path):
    assert auditor.get(path).status_code == 403


@pytest.mark.parametrize(("path", "data"), writes())
def test_an_auditor_is_refused_every_write_with_403(auditor, note, path, data):
    response = auditor.post(path, _data(data, note))
    assert response.status_code == 403
    assert "Only operators and admins" in response.content.decode()
    assert Memory.objects.count() == 1 and Memory.objects.get().priority == 5


@pytest.mark.parametrize(("path", "data"), writes())
def test_an_auditor_refused_under_htmx_sees_the_reason_in_place(auditor, note, path, data, htmx):
    response = auditor.post(path, _data(data, note), **htmx)
    assert response.status_code == 403
    assert response["HX-Retarget"] == "#flash"
    assert "<html" not in response.content.decode()


@pytest.mark.parametrize(("path", "data"), writes())
@pytest.mark.parametrize("who", ["operator", "admin"])
def test_operators_and_admins_write(request, note, path, data, who):
    response = request.getfixturevalue(who).post(path, _data(data, note))
    assert response.status_code == 302, response.content.decode()[:500]
    changed = Memory.objects.filter(name="note").first()
    assert (
        changed is None or changed.priority == 9 or Memory.objects.filter(name="new-one").exists()
    )


@pytest.mark.parametrize("path", ["/memories/", "/memories/note/?project="])
def test_an_auditor_is_shown_no_edit_control(auditor, note, path):
    html = auditor.get(path).content.decode()
    # The columns a person hides are theirs to keep, whatever their role: no edit of the store.
    html = re.sub(r'<details class="columns-menu">.*?</details>', "", html, flags=re.S)
    assert 'method="post"' not in html.split("</header>", 1)[1]
    assert "hx-post" not in html
    assert 'name="priority"' not in html and "Delete" not in html and "New memory" not in html


@pytest.mark.parametrize("path", ["/memories/", "/memories/note/?project=&edit=1"])
def test_an_operator_is_shown_the_edit_controls(operator, note, path):
    html = operator.get(path).content.decode()
    assert 'name="priority"' in html


def csrf_from_page(client: Client) -> str:
    """The token htmx sends: the hx-headers of <body>."""
    html = client.get("/memories/").content.decode()
    return re.search(r"""hx-headers='\{"X-CSRFToken": "([^"]+)"\}'""", html).group(1)


@pytest.mark.parametrize(("path", "data"), writes())
def test_csrf_is_enforced_on_every_htmx_write(db, note, path, data):
    client = signed_in(make_user("erin", "operator"), enforce_csrf_checks=True)
    refused = client.post(path, _data(data, note), HTTP_HX_REQUEST="true")
    assert refused.status_code == 403
    assert "security token" in refused.content.decode()
    assert Memory.objects.get(name="note").priority == 5
    token = csrf_from_page(client)
    accepted = client.post(path, _data(data, note), HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code in (200, 302), accepted.content.decode()[:300]


def test_sign_in_and_out(db):
    make_user("frank", "auditor")
    client = Client()
    page = client.get("/sign-in/")
    assert page.status_code == 200 and 'name="password"' in page.content.decode()
    wrong = client.post("/sign-in/", {"username": "frank", "password": "nope"})
    assert wrong.status_code == 200 and "enter a correct username" in wrong.content.decode()
    right = client.post(
        "/sign-in/",
        {"username": "frank", "password": "a long enough password", "next": "/memories/"},
    )
    assert right.status_code == 302 and right["Location"] == "/memories/"
    assert client.get("/memories/").status_code == 200
    assert client.post("/sign-out/").status_code == 302
    assert client.get("/memories/").status_code == 302


def test_sign_in_refuses_an_offsite_next(db):
    make_user("gina", "auditor")
    response = Client().post(
        "/sign-in/",
        {"username": "gina", "password": "a long enough password", "next": "https://evil.test/"},
    )
    assert response["Location"] == "/"
