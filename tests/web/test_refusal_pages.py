"""DomainErrorPageMiddleware: a refusal a page view lets out answers as error_response does, a
page or, for htmx, a sentence in the flash area; /v1 and /mcp answer their own. A refusal a view
draws again itself (web.redrawn.on_refusal) is sent as drawn."""

from html.parser import HTMLParser

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import path

from memadmin import urls as site_urls
from memadmin.accounts import roles
from memadmin.web.redrawn import on_refusal
from memories.rules.errors import MemoryNotFound, NameClash, UnknownProject
from tests.conftest import make_user
from tests.pages.conftest import chrome_free, signed_in

HTMX = {"HTTP_HX_REQUEST": "true"}


def refuses_with_a_clash(request: HttpRequest):
    raise NameClash("The name 'deploy' is taken <here>.", name="deploy", project=None)


def refuses_an_unknown_project(request: HttpRequest):
    raise UnknownProject("nowhere")


def redraws_its_refusal(request: HttpRequest):
    with on_refusal(lambda error: HttpResponse(f"Again: {error.message}", status=error.status)):
        if "refuse" in request.GET:
            refuses_with_a_clash(request)
    return HttpResponse("Done.")


def cannot_draw_again(request: HttpRequest):
    """The answer's own drawing refused (the row to draw again is gone meanwhile)."""
    with on_refusal(lambda error: refuses_an_unknown_project(request)):
        refuses_with_a_clash(request)


urlpatterns = [
    path("refuses/", refuses_with_a_clash),
    path("redraws/", redraws_its_refusal),
    path("cannot-redraw/", cannot_draw_again),
    path("unknown/", refuses_an_unknown_project),
    path("v1/refuses", refuses_with_a_clash),
    path("mcp-refuses", refuses_with_a_clash),
    *site_urls.urlpatterns,  # the error page links to the overview and the sign-in page
]


class Elements(HTMLParser):
    """Each element's tag, attributes and text (its descendants' included)."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "wbr"}

    def __init__(self, html: str):
        super().__init__()
        self.found: list[tuple[str, dict, list[str]]] = []
        self.open: list[list[str]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        text: list[str] = []
        self.found.append((tag, dict(attrs), text))
        if tag not in self.VOID:
            self.open.append(text)

    def handle_endtag(self, tag):
        if self.open:
            self.open.pop()

    def handle_data(self, data):
        for text in self.open:
            text.append(data)

    def texts(self, tag: str, css_class: str | None = None) -> list[str]:
        return [
            " ".join("".join(text).split())
            for found, attrs, text in self.found
            if found == tag and (css_class is None or css_class in attrs.get("class", "").split())
        ]


pytestmark = pytest.mark.urls(__name__)


def test_a_refusal_is_a_page_at_its_status(db):
    response = Client().get("/refuses/")
    assert response.status_code == 409
    page = Elements(response.content.decode())
    assert page.texts("h1") == ["Refused (409)"]
    assert "The name 'deploy' is taken <here>." in page.texts("p")
    assert not any(tag == "here" for tag, _, _ in page.found)  # the sentence escaped


def test_the_status_and_title_come_from_the_refusal(db):
    response = Client().get("/unknown/")
    assert response.status_code == 404
    page = Elements(response.content.decode())
    assert page.texts("h1") == ["Not found (404)"]
    assert "There is no project named 'nowhere'." in page.texts("p")


def test_for_htmx_a_refusal_is_a_sentence_in_the_flash_area(db):
    response = Client().post("/refuses/", **HTMX)
    assert response.status_code == 409
    assert response["HX-Retarget"] == "#flash"
    assert response["HX-Reswap"] == "innerHTML"
    html = response.content.decode()
    assert chrome_free(html)
    flash = Elements(html)
    assert flash.texts("div", "flash-error") == ["The name 'deploy' is taken <here>."]
    assert [attrs.get("role") for tag, attrs, _ in flash.found if tag == "div"] == ["alert"]


@pytest.mark.parametrize("path", ["/v1/refuses", "/mcp-refuses"])
def test_v1_and_mcp_are_left_their_own_answer(db, path):
    with pytest.raises(NameClash):
        Client().get(path)


@pytest.mark.urls("memadmin.urls")
@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "htmx"])
@pytest.mark.parametrize(
    ("address", "refusal"),
    [
        ("/memories/_agent/?project=nowhere", UnknownProject("nowhere")),
        ("/hygiene/orphans/?project=nowhere", UnknownProject("nowhere")),
        ("/memories/ghost/history/?project=", MemoryNotFound("ghost", None)),
    ],
)
def test_page_views_let_their_refusals_out_to_the_same_answer(db, headers, address, refusal):
    """Views that catch nothing: the tier view, a hygiene list, a memory's history."""
    auditor = signed_in(make_user("alice", roles.AUDITOR))
    response = auditor.get(address, **headers)
    assert response.status_code == refusal.status
    html = response.content.decode()
    if headers:
        assert Elements(html).texts("div", "flash-error") == [refusal.message]
    else:
        assert refusal.message in Elements(html).texts("p")


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "htmx"])
def test_a_refusal_drawn_again_by_its_view_is_sent_as_drawn(db, headers):
    response = Client().get("/redraws/?refuse", **headers)
    assert response.status_code == 409
    assert response.content.decode() == "Again: The name 'deploy' is taken <here>."
    assert "HX-Retarget" not in response  # where the view drew it, not the flash area
    done = Client().get("/redraws/", **headers)
    assert (done.status_code, done.content.decode()) == (200, "Done.")


def test_a_refusal_met_while_drawing_again_answers_as_its_own_page(db):
    response = Client().get("/cannot-redraw/")
    assert response.status_code == 404
    assert "There is no project named 'nowhere'." in Elements(response.content.decode()).texts("p")
