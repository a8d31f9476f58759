"""Security over every route the URLconf has, not a list kept by hand: a page added later is
covered the day it lands.

* Every page route refuses a POST without the CSRF token (htmx's and a plain form's alike)
  and changes nothing; only /v1, which reads no cookie, is exempt.
* Every page renders hostile memory text inert (tests/pages/test_escaping.py holds the
  payloads and the check; it visits the list and detail pages, this visits them all).
"""

import json
import re

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import URLResolver, get_resolver

from memadmin.accounts import oidc, roles, tokens
from memadmin.pages.insights.views import HYGIENE_SECTIONS
from memories.models import Revision, TrashedMemory
from memories.writes import doors, history
from tests.pages.test_escaping import BODY, PAYLOADS, assert_inert
from tests.reliability.test_hostile_input import checksum


def routes() -> list[tuple[str, object]]:
    """Every route of the URLconf as (pattern, view)."""

    def walk(patterns, prefix=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            else:
                yield prefix + str(pattern.pattern), pattern.callback

    return list(walk(get_resolver().url_patterns))


def token_only(route: str) -> bool:
    """/v1 and /mcp: bearer tokens alone, never a session cookie."""
    return route.startswith("v1") or route == "mcp"


PAGE_ROUTES = [route for route, _ in routes() if not token_only(route)]
# Served only when an OpenID Connect provider is set (tests/accounts/test_oidc.py): 404 here.
WITH_A_PROVIDER = {"sign-in/oidc/", "sign-in/oidc/callback/"}


@pytest.fixture
def admin(db):
    user = User.objects.create_user("sec-admin", password="a long enough password")
    user.groups.add(Group.objects.get(name=roles.ADMIN))
    return user


@pytest.fixture
def hostile(admin, project):
    victim = doors.write(
        "victim",
        description=" ".join(PAYLOADS),
        body=BODY,
        tags=PAYLOADS[:5],
        references=[*PAYLOADS, "citer"],
        source=PAYLOADS[1],
        load="inline",
    ).memory
    doors.write("citer", description=PAYLOADS[2], references=["victim"], project="webdev")
    token = tokens.create_token(admin, "read", label=PAYLOADS[0])[0]
    mapping = oidc.map_group(PAYLOADS[1], roles.AUDITOR)
    with history.change_set(PAYLOADS[3], door="bulk") as changes:
        doors.write("victim", priority=3)
    doors.write("trashed", description=PAYLOADS[4], body=BODY)
    doors.delete("trashed")
    return {
        "name": victim.name,
        "id": victim.id,
        "token_id": token.id,
        "mapping_id": mapping.id,
        "user_id": admin.id,
        "revision_id": Revision.objects.filter(memory_id=victim.id).latest("id").id,
        "change_set_id": changes.id,
        "trashed_id": TrashedMemory.objects.get().id,
    }


def url_for(route: str, values: dict) -> str:
    """The route with its parameters filled in: a memory's name, or a project's on the
    projects pages, a hygiene list's, the ids of the token, group mapping, account,
    revision, change set and trashed memory, and the audit log's CSV export."""
    name = "webdev" if route.startswith("projects/") else values["name"]
    if route.startswith("hygiene/"):
        name = next(iter(HYGIENE_SECTIONS))
    path = route.replace(r"^log\.(?P<fmt>csv|json)$", "log.csv")
    path = re.sub(r"<str:\w+>", name, path)
    for key in ("token_id", "mapping_id", "user_id", "revision_id", "change_set_id", "trashed_id"):
        path = path.replace(f"<int:{key}>", str(values[key]))
    return "/" + path


def test_only_the_api_and_mcp_are_exempt_from_csrf():
    exempt = [route for route, view in routes() if getattr(view, "csrf_exempt", False)]
    assert exempt and all(token_only(route) for route in exempt), exempt
    assert "mcp" in exempt


def test_mcp_reads_no_session_cookie(admin):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin)
    answer = client.post("/mcp", "{}", content_type="application/json")
    assert answer.status_code == 401


@pytest.mark.parametrize("route", PAGE_ROUTES)
@pytest.mark.parametrize("htmx", [True, False])
def test_every_page_refuses_a_post_without_the_csrf_token(route, htmx, admin, hostile):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin)
    client.get("/memories/")  # a page first, as a browser would: the CSRF cookie is set
    before = checksum()
    data = {
        "name": "csrf-new",
        "new_name": "csrf-renamed",
        "description": "changed",
        "priority": "1",
        "load": "index",
        "action": "delete",
        "confirm": "1",
        "id": "1",
        "scope": "selected",
        "role": roles.AUDITOR,
        "label": "x",
        "scope_token": "write",
    }
    headers = {"HX-Request": "true"} if htmx else {}
    response = client.post(url_for(route, hostile) + "?project=", data, headers=headers)
    assert response.status_code == 403, (route, response.status_code)
    assert "security token" in response.content.decode()
    assert checksum() == before


@pytest.mark.parametrize("route", PAGE_ROUTES)
def test_every_page_shows_hostile_memory_text_inert(route, admin, hostile):
    client = Client()
    client.force_login(admin)
    query = "?project=webdev" if "_agent" in route else "?project="
    if route == "hygiene/compare/":
        query = f"?id={hostile['id']}"
    response = client.get(url_for(route, hostile) + query)
    if route in WITH_A_PROVIDER:
        assert response.status_code == 404, route
        return
    # 302: sign-in sends a signed-in user on; 405: a route that only takes a POST.
    assert response.status_code in (200, 302, 405), (route, response.status_code)
    if response.status_code == 405:
        assert "GET" not in response["Allow"]
    if response["Content-Type"].startswith("application/json"):
        # The graph's data for the page's script: JSON, never sniffed as HTML (nosniff).
        assert response["X-Content-Type-Options"] == "nosniff"
        json.loads(response.content)
        return
    if response["Content-Type"].startswith("text/event-stream"):
        # The change feed for the pages' script (JSON in events): never sniffed as HTML.
        assert response["X-Content-Type-Options"] == "nosniff"
        response.live_stream.close()
        assert b"".join(response.streaming_content).startswith(b"retry:")
        return
    if not response["Content-Type"].startswith("text/html"):
        # A download (the snapshot's zip) is no page a browser renders.
        assert response["Content-Disposition"].startswith("attachment")
        return
    html = response.content.decode()
    assert not any(payload in html for payload in PAYLOADS if "<" in payload), route
    if "&lt;" in html:
        assert_inert(html)
