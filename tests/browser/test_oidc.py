"""Sign-in through the OpenID Connect provider the tests start (tests/oidc_provider), in
Chromium: the whole redirect flow, memadmin → the provider's sign-in → memadmin."""

from urllib.parse import parse_qs, urlencode, urljoin, urlsplit, urlunsplit

import pytest
from django.contrib.auth.models import User

from memadmin.accounts import roles
from memadmin.models import OidcRoleMapping
from tests.browser.conftest import ARTIFACTS
from tests.oidc_provider.process import PASSWORD

pytestmark = pytest.mark.browser
CALLBACK = "**/sign-in/oidc/callback/**"


@pytest.fixture
def browse(chromium, live_server, transactional_db, oidc):
    """A new browser (no session at memadmin or at the provider) on memadmin's sign-in page;
    the groups mapped as a team would."""
    OidcRoleMapping.objects.create(group="mem-operators", role=roles.OPERATOR)
    OidcRoleMapping.objects.create(group="mem-admins", role=roles.ADMIN)
    contexts = []

    def _browse():
        context = chromium.new_context(viewport={"width": 1280, "height": 900})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        page.goto(live_server.url + "/memories/")
        return page

    yield _browse
    for context in contexts:
        context.close()


def _through_the_provider(page, username: str):
    page.get_by_role("link", name="Sign in with the test provider").click()
    page.wait_for_url("**/login/**")  # the provider's own sign-in page
    page.get_by_label("Name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in at the provider").click()


def _answer_changed(page, change) -> None:
    """Once the person signs in at the provider, hand the browser the provider's answer
    (memadmin's callback, its code and state) as `change` alters it.

    The answer comes as redirects after the provider's sign-in form, and Playwright routes
    no redirect; so the form's post is routed, and its redirects followed here with the
    context's own cookies, the last one given to the browser changed."""

    def follow(route):
        signed_in = route.fetch(max_redirects=0)
        authorize = urljoin(route.request.url, signed_in.headers["location"])
        answer = page.request.get(authorize, max_redirects=0).headers["location"]
        route.fulfill(status=302, headers={"Location": change(answer)})

    page.route(lambda url: urlsplit(url).path == "/login/", follow)


def _refusal(page) -> str:
    return page.locator(".form-errors[role=alert]").inner_text()


def test_a_person_the_store_never_met_signs_in_and_gets_an_account(browse, live_server, oidc):
    page = browse()
    assert "/sign-in/" in page.url
    _through_the_provider(page, "carol")
    page.wait_for_url(live_server.url + "/memories/")
    assert page.locator(".account-name").inner_text() == "carol"
    assert page.locator(".badge-role").text_content() == "admin"  # what her groups map to
    carol = User.objects.get(username="carol")
    assert roles.role_of(carol) == roles.ADMIN
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "oidc-signed-in.png"))
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url("**/sign-in/**")
    page.goto(live_server.url + "/memories/")
    assert "/sign-in/" in page.url  # the session is over
    assert page.errors == []


def test_groups_that_map_to_no_role_are_refused_with_a_sentence(browse):
    page = browse()
    with page.expect_response(CALLBACK) as answer:
        _through_the_provider(page, "bob")
    assert answer.value.status == 403
    assert "Your groups at the provider (marketing) map to no role here" in _refusal(page)
    page.screenshot(path=str(ARTIFACTS / "oidc-no-role.png"))
    assert not User.objects.filter(username="bob").exists()


def test_a_wrong_state_is_refused(browse):
    page = browse()

    def another_state(answer: str) -> str:
        parts = urlsplit(answer)
        query = {key: values[0] for key, values in parse_qs(parts.query).items()}
        return urlunsplit(parts._replace(query=urlencode({**query, "state": "not-the-state"})))

    _answer_changed(page, another_state)
    with page.expect_response(CALLBACK) as answer:
        _through_the_provider(page, "ada")
    assert answer.value.status == 400
    assert "does not match a sign-in started in this browser" in _refusal(page)
    assert not User.objects.filter(username="ada").exists()


def test_an_expired_code_is_refused(browse, oidc):
    page = browse()
    expired = []

    def after_its_expiry(answer: str) -> str:
        expired.append(oidc.expire_code(parse_qs(urlsplit(answer).query)["code"][0]))
        return answer

    _answer_changed(page, after_its_expiry)
    with page.expect_response(CALLBACK) as answer:
        _through_the_provider(page, "ada")
    assert expired == [1]
    assert answer.value.status == 400
    assert "The provider did not accept this sign-in's code" in _refusal(page)
    assert not User.objects.filter(username="ada").exists()
