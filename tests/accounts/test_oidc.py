"""Sign-in with OpenID Connect against a real provider (tests/oidc_provider, its own process):
the test client plays the browser, requests the person at the provider."""

import html
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.test import Client

from memadmin.accounts import grants, roles
from memadmin.models import OidcIdentity, OidcRoleMapping
from memories.writes import doors
from projects import writes as project_doors
from tests.conftest import PASSWORD, make_user
from tests.oidc_provider.client import answer_for

NO_ROLE = "map to no role here"
BAD_STATE = "does not match a sign-in started in this browser"
BAD_CODE = "The provider did not accept this sign-in's code"


@pytest.fixture
def mapped(db):
    OidcRoleMapping.objects.create(group="mem-operators", role=roles.OPERATOR)
    OidcRoleMapping.objects.create(group="mem-admins", role=roles.ADMIN)


def _start(client: Client, next_url: str = "") -> str:
    started = client.get("/sign-in/oidc/" + (f"?next={next_url}" if next_url else ""))
    assert started.status_code == 302
    return started["Location"]


def _answer(client: Client, username: str, **changes) -> str:
    """The callback path and query the provider answers `username`'s sign-in with."""
    answer = urlsplit(answer_for(_start(client), username))
    assert answer.netloc == "testserver"
    query = {key: values[0] for key, values in parse_qs(answer.query).items()}
    return f"{answer.path}?{urlencode({**query, **changes})}"


def _text(response) -> str:
    return html.unescape(response.content.decode())


def _role(username: str) -> str | None:
    return roles.role_of(User.objects.get(username=username))


def test_a_new_person_gets_an_account_with_the_role_their_groups_map_to(oidc, mapped):
    client = Client()
    signed_in = client.get(_answer(client, "ada"))
    assert signed_in.status_code == 302 and signed_in["Location"] == "/"
    assert client.get("/").status_code == 200
    ada = User.objects.get(username="ada")
    assert _role("ada") == roles.OPERATOR
    assert not ada.has_usable_password()
    assert ada.email == "ada@example.org"
    identity = OidcIdentity.objects.get(user=ada)
    assert identity.issuer == oidc.issuer and identity.subject


def test_the_next_sign_in_finds_the_same_account_and_follows_the_groups(oidc, mapped):
    client = Client()
    client.get(_answer(client, "ada"))
    OidcRoleMapping.objects.filter(group="mem-operators").update(role=roles.AUDITOR)
    again = Client()
    assert again.get(_answer(again, "ada")).status_code == 302
    assert User.objects.filter(username="ada").count() == 1
    assert _role("ada") == roles.AUDITOR


def test_groups_mapped_on_tiers_grant_those_tiers_alone_at_each_sign_in(oidc, db):
    project_doors.add("mobile")
    project_doors.add("vault")
    doors.write("mobile-note", project="mobile", description="on mobile")
    doors.write("vault-note", project="vault", description="in the vault")
    OidcRoleMapping.objects.create(group="mem-operators", role=roles.OPERATOR, tier="mobile")
    OidcRoleMapping.objects.create(group="engineering", role=roles.AUDITOR, tier="")
    client = Client()
    assert client.get(_answer(client, "ada")).status_code == 302
    ada = User.objects.get(username="ada")
    assert grants.holdings_of(ada) == [
        grants.Held(None, roles.AUDITOR),
        grants.Held("mobile", roles.OPERATOR),
    ]
    listed = b"".join(client.get("/memories/?format=json").streaming_content).decode()
    assert "mobile-note" in listed and "vault-note" not in listed
    # The mapping moved to the whole store: the next sign-in holds that, the tier grants gone.
    OidcRoleMapping.objects.all().delete()
    OidcRoleMapping.objects.create(group="mem-operators", role=roles.AUDITOR)
    again = Client()
    assert again.get(_answer(again, "ada")).status_code == 302
    assert grants.holdings_of(ada) == [grants.Held(grants.WHOLE_STORE, roles.AUDITOR)]


def test_the_provider_sends_the_person_back_where_they_were_going(oidc, mapped):
    client = Client()
    answer = urlsplit(answer_for(_start(client, "/projects/"), "carol"))
    signed_in = client.get(f"{answer.path}?{answer.query}")
    assert signed_in["Location"] == "/projects/"
    assert _role("carol") == roles.ADMIN


def test_groups_that_map_to_no_role_are_refused_with_a_sentence(oidc, mapped):
    client = Client()
    refused = client.get(_answer(client, "bob"))
    assert refused.status_code == 403
    assert "Your groups at the provider (marketing) map to no role here" in _text(refused)
    assert not User.objects.filter(username="bob").exists()
    assert "_auth_user_id" not in client.session


def test_a_person_whose_groups_are_unmapped_since_is_refused_next_time(oidc, mapped):
    client = Client()
    client.get(_answer(client, "ada"))
    OidcRoleMapping.objects.filter(group="mem-operators").delete()
    again = Client()
    assert again.get(_answer(again, "ada")).status_code == 403


def test_a_wrong_state_is_refused_and_signs_nobody_in(oidc, mapped):
    client = Client()
    refused = client.get(_answer(client, "ada", state="not-the-state"))
    assert refused.status_code == 400
    assert BAD_STATE in _text(refused)
    assert "_auth_user_id" not in client.session
    assert not User.objects.filter(username="ada").exists()


def test_an_answer_in_another_browser_is_refused(oidc, mapped):
    answer = _answer(Client(), "ada")
    elsewhere = Client()
    refused = elsewhere.get(answer)
    assert refused.status_code == 400 and BAD_STATE in _text(refused)


def test_an_expired_code_is_refused_with_a_sentence(oidc, mapped):
    client = Client()
    answer = _answer(client, "ada")
    assert oidc.expire_code(parse_qs(urlsplit(answer).query)["code"][0]) == 1
    refused = client.get(answer)
    assert refused.status_code == 400
    assert BAD_CODE in _text(refused)
    assert "_auth_user_id" not in client.session


def test_an_answer_is_good_once(oidc, mapped):
    client = Client()
    answer = _answer(client, "ada")
    assert client.get(answer).status_code == 302
    client.post("/sign-out/")
    assert client.get(answer).status_code == 400


def test_the_providers_refusal_is_told(oidc, mapped):
    client = Client()
    query = parse_qs(urlsplit(_start(client)).query)
    refused = client.get(
        "/sign-in/oidc/callback/?"
        + urlencode({"state": query["state"][0], "error": "access_denied"})
    )
    assert refused.status_code == 403
    assert "The provider refused the sign-in (access_denied)" in _text(refused)


def test_a_name_held_by_a_password_account_is_not_taken_over(oidc, mapped):
    make_user("ada", roles.AUDITOR)
    client = Client()
    refused = client.get(_answer(client, "ada"))
    assert refused.status_code == 403
    assert "An account named 'ada' already exists here" in _text(refused)
    assert _role("ada") == roles.AUDITOR
    assert not OidcIdentity.objects.exists()


def test_a_turned_off_account_is_refused(oidc, mapped):
    client = Client()
    client.get(_answer(client, "ada"))
    User.objects.filter(username="ada").update(is_active=False)
    again = Client()
    refused = again.get(_answer(again, "ada"))
    assert refused.status_code == 403
    assert "The account 'ada' is turned off here." in _text(refused)


def test_provider_sign_ins_are_not_counted_by_the_throttle(oidc, mapped):
    for _ in range(3):
        client = Client()
        client.get(_answer(client, "bob"))
        client.get(_answer(client, "ada", state="wrong"))
    assert not AccessAttempt.objects.exists()


def _endpoints_one_by_one(settings, issuer: str) -> None:
    for name, path in [
        ("AUTHORIZATION", "authorize/"),
        ("TOKEN", "token/"),
        ("USERINFO", "userinfo/"),
        ("JWKS", ".well-known/jwks.json"),
    ]:
        setattr(settings, f"MEMADMIN_OIDC_{name}_ENDPOINT", f"{issuer}/{path}")


def test_endpoints_given_one_by_one_serve_as_well_as_discovery(oidc, mapped, settings):
    client = Client()
    client.get(_answer(client, "ada"))  # through discovery
    settings.MEMADMIN_OIDC_ISSUER = ""
    _endpoints_one_by_one(settings, oidc.issuer)
    again = Client()
    assert again.get(_answer(again, "ada")).status_code == 302
    assert _role("ada") == roles.OPERATOR
    # The same person: known by the ID token's issuer and subject, however the endpoints came.
    assert OidcIdentity.objects.get().issuer == oidc.issuer


def test_an_id_token_of_another_issuer_is_refused(oidc, mapped, settings):
    _endpoints_one_by_one(settings, oidc.issuer)
    settings.MEMADMIN_OIDC_ISSUER = "https://sso.example.org"
    client = Client()
    refused = client.get(_answer(client, "ada"))
    assert refused.status_code == 400
    assert "The provider's answer could not be verified" in _text(refused)
    assert not User.objects.filter(username="ada").exists()


def test_an_unreachable_provider_is_a_sentence(settings, db):
    settings.MEMADMIN_OIDC_ISSUER = "http://127.0.0.1:9"
    settings.MEMADMIN_OIDC_CLIENT_ID = "x"
    settings.MEMADMIN_OIDC_CLIENT_SECRET = "y"
    refused = Client().get("/sign-in/oidc/")
    assert refused.status_code == 503
    assert "discovery document at http://127.0.0.1:9 could not be read" in _text(refused)


def test_without_a_provider_there_is_no_provider_sign_in(db):
    assert Client().get("/sign-in/oidc/").status_code == 404
    assert Client().get("/sign-in/oidc/callback/?code=x&state=y").status_code == 404
    assert "Sign in with" not in Client().get("/sign-in/").content.decode()


def test_the_sign_in_page_offers_the_provider(oidc):
    page = _text(Client().get("/sign-in/"))
    assert "Sign in with the test provider" in page
    assert 'name="password"' in page


def test_password_sign_in_switched_off(oidc, settings, db):
    settings.MEMADMIN_PASSWORD_SIGN_IN = False
    make_user("frank", roles.ADMIN)
    page = _text(Client().get("/sign-in/"))
    assert "Sign in with the test provider" in page and 'name="password"' not in page
    refused = Client().post("/sign-in/", {"username": "frank", "password": PASSWORD})
    assert refused.status_code == 403
    assert "Password sign-in is switched off here" in _text(refused)
    assert not AccessAttempt.objects.exists()


def test_sign_out_ends_the_session(oidc, mapped):
    client = Client()
    client.get(_answer(client, "ada"))
    key = client.session.session_key
    assert Session.objects.filter(session_key=key).exists()
    client.post("/sign-out/")
    assert not Session.objects.filter(session_key=key).exists()
    stale = Client()
    stale.cookies["sessionid"] = key
    assert stale.get("/")["Location"].startswith("/sign-in/")
