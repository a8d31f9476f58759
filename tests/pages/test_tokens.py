"""The "my API tokens" page: create (the secret shown once), list, revoke."""

import io
import re

import pytest
from django.core.management import call_command
from django.test import Client

from memadmin.accounts import grants, roles, tokens
from memadmin.models import ApiToken
from memadmin.pages.accounts.forms import TokenForm
from memories.writes import doors
from projects import writes as project_doors
from tests.conftest import make_user
from tests.pages.conftest import chrome_free, signed_in


def create(client, scope="read", label="nightly job", **headers):
    return client.post("/tokens/", {"scope": scope, "label": label}, **headers)


def secret_in(html: str) -> str:
    return re.search(
        r'<code id="new-token" class="secret-value" tabindex="0">([^<]+)</code>', html
    )[1]


def test_create_shows_the_secret_once_and_it_opens_the_api(operator, db):
    response = create(operator, "write")
    html = response.content.decode()
    assert response.status_code == 201
    assert "no-store" in response["Cache-Control"]
    secret = secret_in(html)
    assert secret.startswith("mem_")
    token = ApiToken.objects.get()
    assert (token.scope, token.label) == ("write", "nightly job")
    assert secret not in operator.get("/tokens/").content.decode()  # never again
    api = Client().get("/v1/memories", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert api.status_code == 200


def test_the_list_and_revoke(operator, db, htmx):
    create(operator)
    token = ApiToken.objects.get()
    html = operator.get("/tokens/").content.decode()
    assert f"{token.prefix}…" in html and "nightly job" in html and "Revoke" in html
    # It asks first, in the token's row, and revokes nothing until confirmed.
    asked = operator.post(f"/tokens/{token.id}/revoke/", **htmx).content.decode()
    assert chrome_free(asked)
    assert f"<strong>Revoke {token.prefix}… “nightly job”?</strong>" in asked
    assert '<input type="hidden" name="confirm" value="true">' in asked and ">Cancel</a>" in asked
    token.refresh_from_db()
    assert not token.revoked
    response = operator.post(f"/tokens/{token.id}/revoke/", {"confirm": "true"}, **htmx)
    assert response.status_code == 200 and chrome_free(response.content.decode())
    assert "it no longer opens the API" in response.content.decode()
    token.refresh_from_db()
    assert token.revoked


def test_without_javascript_revoking_asks_first_too(operator, db):
    create(operator)
    token = ApiToken.objects.get()
    asked = operator.post(f"/tokens/{token.id}/revoke/").content.decode()
    assert "<html" in asked and "this cannot be undone" in asked
    token.refresh_from_db()
    assert not token.revoked


def test_an_auditor_may_hold_read_tokens_only(auditor, db):
    html = auditor.get("/tokens/").content.decode()
    assert 'value="read"' in html and 'value="write"' not in html
    refused = create(auditor, "write")
    assert refused.status_code == 403
    assert "cannot write, so they may only hold read tokens" in refused.content.decode()
    assert create(auditor, "read").status_code == 201


def test_nobody_revokes_another_users_token_but_an_admin(operator, auditor, admin, db):
    create(auditor)
    token = ApiToken.objects.get()
    refused = operator.post(f"/tokens/{token.id}/revoke/")  # not even asked about
    assert refused.status_code == 404
    refused = operator.post(f"/tokens/{token.id}/revoke/", {"confirm": "true"})
    assert refused.status_code == 404
    assert f"There is no API token {token.id} you may change." in refused.content.decode()
    assert "Every other user" not in operator.get("/tokens/").content.decode()
    everyone = admin.get("/tokens/").content.decode()
    assert "Every other user's tokens" in everyone and "alice" in everyone
    assert admin.post(f"/tokens/{token.id}/revoke/", {"confirm": "true"}).status_code == 302
    token.refresh_from_db()
    assert token.revoked


@pytest.mark.parametrize(
    ("data", "status", "message"),
    [
        ({"scope": "root"}, 400, "The scope of a token is read or write."),
        ({"scope": "read", "label": "x" * 101}, 400, "A label is at most 100 characters."),
    ],
)
def test_bad_input_is_refused_in_place(operator, db, data, status, message):
    response = operator.post("/tokens/", data)
    assert response.status_code == status and message in response.content.decode()
    assert not ApiToken.objects.exists()


def test_tokens_need_a_signed_in_user_with_a_role(client, roleless, db):
    assert client.get("/tokens/").status_code == 302
    assert create(client).status_code == 302
    assert roleless.get("/tokens/").status_code == 403
    assert not ApiToken.objects.exists()


def test_a_hostile_label_is_inert(operator, db):
    html = create(operator, label="<img src=x onerror=alert(1)>").content.decode()
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_a_fixed_number_of_queries(admin, operator, db, django_assert_num_queries):
    for _ in range(5):
        create(operator)
        create(admin)
    # The tiers of each list's tokens, the projects, and which owners hold no role.
    with django_assert_num_queries(9):
        admin.get("/tokens/")


def test_a_refusal_sits_under_the_input_it_is_about(operator, auditor, db):
    long_label = create(operator, label="x" * 101).content.decode()
    label_field = long_label.split('<div class="field has-error">', 1)[1].split("</div>", 1)[0]
    assert f'value="{"x" * 101}"' in label_field
    assert '<p class="field-error" role="alert">A label is at most 100 characters.' in label_field
    write = create(auditor, "write").content.decode()
    scope_field = write.split('<fieldset class="field token-scope has-error">', 1)[1]
    assert "cannot write, so they may only hold read tokens" in scope_field.split("</fieldset>")[0]


def test_the_form_keeps_a_label_as_the_door_does():
    form = TokenForm({"scope": "read", "label": "  nightly \t job  "})
    assert form.is_valid()
    assert form.cleaned_data == {
        "scope": "read",
        "label": "nightly job",
        "expires": None,
        "project": None,
    }
    assert TokenForm({"scope": "read", "label": "a\x00b"}).errors == {
        "label": ["The label must be text."]
    }


def _row(html: str, token) -> str:
    """The table row of one token, its cells' text joined by spaces."""
    from html.parser import HTMLParser

    class Rows(HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows, self.inside = {}, None

        def handle_starttag(self, tag, attrs):
            if tag == "tr" and dict(attrs).get("data-token"):
                self.inside = dict(attrs)["data-token"]
                self.rows[self.inside] = []

        def handle_endtag(self, tag):
            if tag == "tr":
                self.inside = None

        def handle_data(self, data):
            if self.inside and data.strip():
                self.rows[self.inside].append(data.strip())

    parser = Rows()
    parser.feed(html)
    return " ".join(parser.rows[str(token.id)])


def test_a_token_shows_owner_label_scope_dates_expiry_and_state(operator, db):
    created = operator.post(
        "/tokens/", {"scope": "read", "label": "nightly job", "expires": "2099-03-04"}
    )
    assert created.status_code == 201
    token = ApiToken.objects.get()
    row = _row(operator.get("/tokens/").content.decode(), token)
    owner = token.user.get_username()
    for shown in (token.prefix, owner, "nightly job", "read", "never", "2099-03-05", "live"):
        assert shown in row, shown


def test_a_past_expiry_is_refused_under_its_input(operator, db):
    refused = operator.post("/tokens/", {"scope": "read", "expires": "2001-01-01"})
    assert refused.status_code == 400
    assert "A new token&#x27;s expiry must be in the future." in refused.content.decode()
    assert not ApiToken.objects.exists()


def test_pause_resume_and_rotate_from_the_page(operator, db, htmx):
    secret = secret_in(create(operator).content.decode())
    token = ApiToken.objects.get()
    paused = operator.post(f"/tokens/{token.id}/pause/", {"paused": "true"}, **htmx)
    assert paused.status_code == 200
    assert "is paused: calls with it are refused until it is resumed" in paused.content.decode()
    assert "paused" in _row(paused.content.decode(), token)
    api = Client().get("/v1/projects", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert api.status_code == 401 and "paused" in api.json()["error"]
    resumed = operator.post(f"/tokens/{token.id}/pause/", {"paused": "false"}, **htmx)
    assert "is resumed." in resumed.content.decode()
    rotated = operator.post(f"/tokens/{token.id}/rotate/", **htmx)
    html = rotated.content.decode()
    new = secret_in(html)
    assert new != secret and "The old secret is still accepted until" in html
    assert "old secret until" in _row(html, ApiToken.objects.get())
    for key in (secret, new):
        ok = Client().get("/v1/projects", HTTP_AUTHORIZATION=f"Bearer {key}")
        assert ok.status_code == 200


def test_another_users_token_is_not_paused_or_rotated(operator, auditor, admin, db):
    create(auditor)
    token = ApiToken.objects.get()
    for action in ("pause", "rotate"):
        refused = operator.post(f"/tokens/{token.id}/{action}/", {"paused": "true"})
        assert refused.status_code == 404
        assert f"There is no API token {token.id} you may change." in refused.content.decode()
    assert not ApiToken.objects.get().paused
    assert admin.post(f"/tokens/{token.id}/pause/", {"paused": "true"}).status_code == 302
    assert ApiToken.objects.get().paused


@pytest.fixture
def tiers(db):
    """Projects webdev and vault, a memory in each tier, and otto, an operator of webdev."""
    project_doors.add("webdev")
    project_doors.add("vault")
    doors.write("g-note", description="global note")
    doors.write("w-note", project="webdev", description="web note")
    doors.write("v-note", project="vault", description="vault note")
    otto = make_user("otto", None)
    grants.grant(None, otto, roles.OPERATOR, "webdev")
    return signed_in(otto)


def _tier_choices(html: str) -> list[str]:
    """The values of the tier picker's boxes, in order."""
    return re.findall(r'<input type="checkbox" name="project" value="([^"]*)"', html)


def test_the_tier_picker_offers_what_the_persons_grants_reach(tiers, admin):
    assert _tier_choices(tiers.get("/tokens/").content.decode()) == ["", "webdev"]
    assert _tier_choices(admin.get("/tokens/").content.decode()) == ["", "vault", "webdev"]


def test_a_token_made_on_the_page_reaches_the_tiers_ticked(tiers):
    created = tiers.post("/tokens/", {"scope": "write", "label": "web bot", "project": "webdev"})
    assert created.status_code == 201
    token = ApiToken.objects.get()
    assert grants.token_places(token) == ["webdev"]
    assert "webdev" in _row(created.content.decode(), token)
    api = Client(HTTP_AUTHORIZATION=f"Bearer {secret_in(created.content.decode())}")
    names = [m["name"] for m in api.get("/v1/memories").json()["memories"]]
    assert sorted(names) == ["g-note", "w-note"]  # the project, and the global tier it reads
    refused = api.put("/v1/memories/g-new", {"description": "x"}, content_type="application/json")
    assert refused.status_code == 403  # the global tier is read, not changed


def test_a_token_of_the_global_tier_alone(tiers):
    created = tiers.post("/tokens/", {"scope": "read", "project": ""})
    assert created.status_code == 201
    token = ApiToken.objects.get()
    assert grants.token_places(token) == [None]
    assert "global" in _row(created.content.decode(), token)
    api = Client(HTTP_AUTHORIZATION=f"Bearer {secret_in(created.content.decode())}")
    assert [m["name"] for m in api.get("/v1/memories").json()["memories"]] == ["g-note"]


def test_none_ticked_reaches_what_its_owner_does(tiers):
    created = tiers.post("/tokens/", {"scope": "read"})
    token = ApiToken.objects.get()
    assert grants.token_places(token) == []
    assert "its owner's" in _row(created.content.decode(), token)


@pytest.mark.parametrize(
    ("project", "message"),
    [
        # Past the grants reads as a name no project holds: whether it exists is not told.
        ("vault", "There is no project named &#x27;vault&#x27;."),
        ("nowhere", "There is no project named &#x27;nowhere&#x27;."),
        ("bad name!", "A project starts with a letter or digit"),
        ("a\x00b", "A project starts with a letter or digit"),
        ("x" * 65, "A project is at most 64 characters."),
    ],
)
def test_a_tier_past_the_grants_or_no_tier_at_all_is_refused_under_the_picker(
    tiers, project, message
):
    refused = tiers.post("/tokens/", {"scope": "read", "project": ["webdev", project]})
    html = refused.content.decode()
    assert refused.status_code == 400
    picker = html.split('<fieldset class="field token-scope token-tiers has-error"', 1)[1]
    assert message in picker.split("</fieldset>")[0]
    assert 'value="webdev" checked' in picker  # ticked again, as sent
    assert not ApiToken.objects.exists()


def test_a_token_is_refused_a_tier_its_owner_was_granted_nothing_on(db):
    project_doors.add("vault")
    viewer = make_user("viewer", None)
    grants.grant(None, viewer, roles.AUDITOR, None)  # the global tier alone
    assert _tier_choices(signed_in(viewer).get("/tokens/").content.decode()) == [""]
    refused = signed_in(viewer).post("/tokens/", {"scope": "read", "project": "vault"})
    assert refused.status_code == 400 and not ApiToken.objects.exists()


def test_a_token_whose_owner_holds_no_role_is_shown_refused(admin, db):
    """An admin looking over everyone's tokens sees the one its owner's lost role refuses,
    not 'live'; the command lists it so too; the API refuses it."""
    contractor = make_user("contractor", roles.AUDITOR)
    token, secret = tokens.create_token(contractor, "read")
    assert " live " in _row(admin.get("/tokens/").content.decode(), token)
    contractor.groups.clear()
    row = _row(admin.get("/tokens/").content.decode(), token)
    assert tokens.ROLELESS_OWNER in row and " live" not in row
    out = io.StringIO()
    call_command("apitoken", "list", "--user", "contractor", stdout=out)
    assert tokens.ROLELESS_OWNER in out.getvalue()
    refused = Client().get("/v1/memories", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert refused.status_code == 403 and "has no role" in refused.json()["error"]
    grants.grant(None, contractor, roles.AUDITOR, None)  # the global tier alone: a role again
    assert " live " in _row(admin.get("/tokens/").content.decode(), token)
