"""Tokens managed: an optional expiry, paused and resumed, rotated with a grace period for the
old secret; each refusal a 401 with a sentence saying why, on /v1 and MCP alike; the history
names the token by its label; `manage.py apitoken` does the same as the page."""

import datetime as dt
import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from memadmin.accounts import tokens
from memadmin.models import ApiToken
from memories.models import Revision
from memories.rules.errors import InvalidField, TokenNotFound, TokenRefused, TokenUnauthorized

from .conftest import Api


def _refusal(api: Api, path: str = "/v1/projects") -> str:
    answer = api.get(path)
    assert answer.status_code == 401
    assert answer["WWW-Authenticate"] == 'Bearer realm="memadmin"'
    return answer.json()["error"]


def _mcp(secret: str):
    from django.test import Client

    return Client().post(
        "/mcp",
        '{"jsonrpc": "2.0", "id": 1, "method": "ping"}',
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
        HTTP_ACCEPT="application/json, text/event-stream",
    )


def _run(*args) -> str:
    out = io.StringIO()
    call_command("apitoken", *args, stdout=out)
    return out.getvalue()


def test_a_paused_token_is_refused_saying_so_until_resumed(operator):
    token, secret = tokens.create_token(operator, "write", "nightly")
    api = Api(secret)
    assert api.get("/v1/projects").status_code == 200  # kept now: the pause must undo that
    tokens.pause_token(operator, token.id)
    assert _refusal(api) == tokens.PAUSED
    refused = _mcp(secret)
    assert refused.status_code == 401 and refused.json()["error"]["message"] == tokens.PAUSED
    tokens.pause_token(operator, token.id, paused=False)
    assert api.get("/v1/projects").status_code == 200
    assert _mcp(secret).status_code == 200


def test_pausing_twice_keeps_the_first_pause(operator):
    token, _ = tokens.create_token(operator, "read")
    first = tokens.pause_token(operator, token.id).paused_at
    assert tokens.pause_token(operator, token.id).paused_at == first


def test_an_expired_token_is_refused_saying_when(operator):
    tomorrow = (timezone.localdate() + dt.timedelta(days=1)).isoformat()
    token, secret = tokens.create_token(operator, "read", expires=tomorrow)
    assert token.expires_at > timezone.now()
    api = Api(secret)
    assert api.get("/v1/projects").status_code == 200
    # Time passes: the kept caller is held to the clock, not only to commits.
    ApiToken.objects.filter(id=token.id).update(expires_at=timezone.now() - dt.timedelta(minutes=1))
    assert api.get("/v1/projects").status_code == 401
    assert _refusal(api).startswith("This API token expired at ")


@pytest.mark.parametrize(
    ("expires", "sentence"),
    [
        ("2001-01-01", "must be in the future"),
        ("tomorrow", "is not an RFC 3339 timestamp"),
        ("2026-02-30", "is not a calendar date"),
        (7, "must be text"),
    ],
)
def test_a_bad_expiry_is_refused_with_a_sentence(operator, expires, sentence):
    with pytest.raises(InvalidField, match=sentence) as refused:
        tokens.create_token(operator, "read", expires=expires)
    assert refused.value.field == "expires"
    assert not ApiToken.objects.exists()


def test_a_rotated_tokens_old_secret_works_for_the_grace_then_says_it_was_replaced(operator):
    token, old = tokens.create_token(operator, "write", "deploy")
    rotated, new = tokens.rotate_token(operator, token.id)
    assert new != old and rotated.id == token.id and rotated.prefix == new[:12]
    assert rotated.previous_valid_until - rotated.rotated_at == dt.timedelta(minutes=60)
    assert Api(new).get("/v1/projects").status_code == 200
    assert Api(old).get("/v1/projects").status_code == 200  # within the grace
    ApiToken.objects.filter(id=token.id).update(
        previous_valid_until=timezone.now() - dt.timedelta(seconds=1)
    )
    assert _refusal(Api(old)).startswith("This API token was rotated and its old secret stopped")
    assert Api(new).get("/v1/projects").status_code == 200


def test_the_grace_is_a_setting(operator, settings):
    settings.MEMADMIN_TOKEN_ROTATION_GRACE_MINUTES = 0
    token, old = tokens.create_token(operator, "read")
    tokens.rotate_token(operator, token.id)
    assert _refusal(Api(old)).startswith("This API token was rotated")


def test_rotating_again_ends_the_first_secret_at_once(operator):
    token, first = tokens.create_token(operator, "read")
    _, second = tokens.rotate_token(operator, token.id)
    _, third = tokens.rotate_token(operator, token.id)
    assert _refusal(Api(first)) == tokens.TOKEN_REQUIRED
    assert Api(second).get("/v1/projects").status_code == 200
    assert Api(third).get("/v1/projects").status_code == 200


def test_a_paused_token_stays_paused_when_rotated(operator):
    token, _ = tokens.create_token(operator, "read")
    tokens.pause_token(operator, token.id)
    _, new = tokens.rotate_token(operator, token.id)
    assert _refusal(Api(new)) == tokens.PAUSED


def test_a_revoked_token_can_be_neither_paused_nor_rotated(operator):
    token, secret = tokens.create_token(operator, "read")
    tokens.revoke_token(operator, token.id)
    assert _refusal(Api(secret)) == tokens.REVOKED
    with pytest.raises(TokenRefused, match="is revoked, so it cannot be rotated"):
        tokens.rotate_token(operator, token.id)
    with pytest.raises(TokenRefused, match="is revoked, so it cannot be paused"):
        tokens.pause_token(operator, token.id)


def test_only_the_owner_or_an_admin_pauses_or_rotates(operator, auditor, admin):
    theirs, _ = tokens.create_token(auditor, "read")
    with pytest.raises(TokenNotFound):
        tokens.pause_token(operator, theirs.id)
    with pytest.raises(TokenNotFound):
        tokens.rotate_token(operator, theirs.id)
    assert tokens.pause_token(admin, theirs.id).paused
    assert tokens.rotate_token(admin, theirs.id)[0].rotated_at is not None


def test_a_turned_off_accounts_token_says_so(operator):
    _, secret = tokens.create_token(operator, "read")
    operator.is_active = False
    operator.save()
    assert _refusal(Api(secret)) == "The account 'otto' of this API token is turned off."


def test_an_unknown_token_is_still_the_plain_sentence(db):
    assert _refusal(Api("mem_" + "x" * 43)) == tokens.TOKEN_REQUIRED
    with pytest.raises(TokenUnauthorized):
        tokens.caller(None)


def test_the_history_names_the_token_by_its_label(operator):
    _, secret = tokens.create_token(operator, "write", "deploy bot")
    Api(secret)("PUT", "/v1/memories/labelled", {"description": "d", "body": "b"})
    revision = Revision.objects.get()
    assert revision.actor.startswith("otto (token “deploy bot” mem_")


def test_the_command_manages_a_token(operator):
    output = _run("create", "otto", "--scope", "read", "--label", "ci", "--expires", "2099-01-01")
    secret = output.strip().splitlines()[-1]
    token = ApiToken.objects.get()
    assert token.expires_at.year == 2099
    assert "Paused token" in _run("pause", str(token.id))
    assert " paused " in _run("list")
    assert _refusal(Api(secret)) == tokens.PAUSED
    assert "Resumed token" in _run("resume", str(token.id))
    rotated = _run("rotate", str(token.id))
    assert "its old secret is accepted until" in rotated
    new = rotated.strip().splitlines()[-1]
    assert Api(new).get("/v1/projects").status_code == 200
    listed = _run("list")
    assert "2099-01-02 00:00 UTC" in listed and " live " in listed  # the end of that day
    with pytest.raises(CommandError, match="is not a calendar date"):
        _run("create", "otto", "--scope", "read", "--expires", "2099-02-30")
    with pytest.raises(CommandError, match="There is no API token 999"):
        _run("pause", "999")
