"""memadmin.tokens and `manage.py apitoken`."""

import datetime as dt
import hashlib
import io
import threading

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memadmin.accounts import roles, tokens
from memadmin.accounts.roles import AUDITOR
from memadmin.models import ApiToken
from memories.rules.errors import InvalidField, TokenNotFound, TokenRefused, TokenUnauthorized
from memories.writes import doors
from tests.conftest import make_user as shared_make_user

from .conftest import Api, make_user


def test_create_keeps_only_a_hash_and_a_prefix(operator):
    token, secret = tokens.create_token(operator, "write", "deploy bot")
    assert secret.startswith("mem_") and len(secret) == 47
    stored = ApiToken.objects.get(id=token.id)
    assert stored.key_hash == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in str(ApiToken.objects.filter(id=token.id).values().get())
    assert stored.prefix == secret[:12]
    assert (stored.scope, stored.label, stored.last_used_at, stored.revoked_at) == (
        "write",
        "deploy bot",
        None,
        None,
    )
    assert tokens.caller(f"Bearer {secret}").token == token


def test_create_refuses_what_the_user_may_not_hold(auditor, db):
    with pytest.raises(InvalidField):
        tokens.create_token(auditor, "admin")
    with pytest.raises(TokenRefused, match="auditor and cannot write"):
        tokens.create_token(auditor, "write")
    assert tokens.create_token(auditor, "read")[0].scope == "read"
    nobody = make_user("nobody", None)
    with pytest.raises(TokenRefused, match="no role"):
        tokens.create_token(nobody, "read")
    with pytest.raises(InvalidField):
        tokens.create_token(auditor, "read", "x" * 101)


def test_user_tokens_are_their_own_newest_first(operator, auditor):
    first, _ = tokens.create_token(operator, "read")
    second, _ = tokens.create_token(operator, "write")
    tokens.create_token(auditor, "read")
    assert list(tokens.user_tokens(operator)) == [second, first]


def test_a_user_revokes_their_own_and_an_admin_anyones(operator, auditor, admin):
    mine, secret = tokens.create_token(operator, "write")
    theirs, _ = tokens.create_token(auditor, "read")
    with pytest.raises(TokenNotFound):
        tokens.revoke_token(operator, theirs.id)
    with pytest.raises(TokenNotFound):
        tokens.revoke_token(operator, 99999)
    revoked = tokens.revoke_token(operator, mine.id)
    assert revoked.revoked_at is not None
    with pytest.raises(TokenUnauthorized, match="revoked"):
        tokens.caller(f"Bearer {secret}")
    again = tokens.revoke_token(operator, mine.id)
    assert again.revoked_at == revoked.revoked_at
    assert tokens.revoke_token(admin, theirs.id).revoked


def test_last_used_is_kept_to_the_minute(operator):
    token, secret = tokens.create_token(operator, "read")
    api = Api(secret)
    api.get("/v1/projects")
    token.refresh_from_db()
    first = token.last_used_at
    assert first is not None
    api.get("/v1/projects")
    token.refresh_from_db()
    assert token.last_used_at == first, "no write on every call"
    ApiToken.objects.filter(id=token.id).update(last_used_at=first - dt.timedelta(minutes=2))
    api.get("/v1/projects")
    token.refresh_from_db()
    assert token.last_used_at > first - dt.timedelta(seconds=1)


def _run(*args) -> str:
    out = io.StringIO()
    call_command("apitoken", *args, stdout=out)
    return out.getvalue()


def test_command_create_prints_the_token_last(operator):
    output = _run("create", "otto", "--scope", "write", "--label", "ci")
    secret = output.strip().splitlines()[-1]
    token = tokens.caller(f"Bearer {secret}").token
    assert (token.user, token.scope, token.label) == (operator, "write", "ci")
    assert Api(secret)("PUT", "/v1/memories/x", {"description": "x"}).status_code == 201


def test_command_create_user_makes_an_operator_unless_told(db):
    secret = _run("create", "bot", "--scope", "write", "--create-user").strip().splitlines()[-1]
    bot = User.objects.get(username="bot")
    assert roles.role_of(bot) == roles.OPERATOR
    assert not bot.has_usable_password()
    assert Api(secret)("POST", "/v1/projects", {"name": "p"}).status_code == 201
    # The same account's read token, and a second call with --create-user, just work.
    read = _run("create", "bot", "--scope", "read", "--create-user").strip().splitlines()[-1]
    assert Api(read).get("/v1/projects").status_code == 200
    _run("create", "watcher", "--scope", "read", "--create-user", "--role", "auditor")
    assert roles.role_of(User.objects.get(username="watcher")) == roles.AUDITOR
    with pytest.raises(CommandError, match="cannot write"):
        _run("create", "watcher", "--scope", "write")


def test_command_create_refuses_an_unknown_user(db):
    with pytest.raises(CommandError, match="--create-user"):
        _run("create", "ghost", "--scope", "read")
    assert not User.objects.filter(username="ghost").exists()


def test_command_refused_write_token_creates_no_user(db):
    with pytest.raises(CommandError):
        _run("create", "looker", "--scope", "write", "--create-user", "--role", "auditor")
    assert not User.objects.filter(username="looker").exists()


def test_command_list_and_revoke(operator, auditor):
    token, secret = tokens.create_token(operator, "write", "deploy bot")
    tokens.create_token(auditor, "read")
    assert _run("list").splitlines()[0].split() == [
        "ID",
        "USER",
        "TIERS",
        "SCOPE",
        "PREFIX",
        "CREATED",
        "LAST",
        "USED",
        "EXPIRES",
        "STATE",
        "LABEL",
    ]
    listed = _run("list", "--user", "otto")
    assert token.prefix in listed and "deploy bot" in listed and " live " in listed
    assert " (owner's) " in listed
    assert "audrey" not in listed
    assert f"Revoked token {token.id}" in _run("revoke", str(token.id))
    assert "already revoked" in _run("revoke", str(token.id))
    assert "revoked " + timezone.now().strftime("%Y-%m-%d") in _run("list", "--user", "otto")
    assert Api(secret).get("/v1/memories").status_code == 401
    with pytest.raises(CommandError, match="no API token 999"):
        _run("revoke", "999")


def test_command_list_with_no_tokens(db):
    assert _run("list").strip() == "No API tokens."


@pytest.fixture
def idle_token(transactional_db):
    """A read token last used five minutes ago (transactional_db: the writer of the next
    fixture runs on a connection of its own, which sees only what was committed)."""
    token, secret = tokens.create_token(shared_make_user("reader", AUDITOR), "read")
    idle = timezone.now() - dt.timedelta(minutes=5)
    ApiToken.objects.filter(id=token.id).update(last_used_at=idle)
    return token, secret, idle


@pytest.fixture
def writer_holding_the_lock(idle_token):
    """Another connection inside a write transaction, holding the store's write lock until
    the test lets it go."""
    holding, release = threading.Event(), threading.Event()

    def hold():
        try:
            with transaction.atomic():
                doors.write("held", description="written while a reader reads")
                holding.set()
                release.wait(timeout=120)
        finally:
            connections.close_all()

    writer = threading.Thread(target=hold)
    writer.start()
    assert holding.wait(timeout=30)
    yield
    release.set()
    writer.join()


def test_a_read_never_waits_on_the_write_lock_to_stamp_its_token(
    idle_token, writer_holding_the_lock
):
    """SQLite: the stamp is skipped while another writer holds the store (it would have
    waited out the busy timeout, then answered 503). PostgreSQL: the writer's lock is not
    one the stamp's row update takes, so it is recorded at once."""
    token, secret, idle = idle_token
    response = Api(secret).get("/v1/memories")
    assert response.status_code == 200, response.content
    assert response.json()["memories"] == []
    stamped = ApiToken.objects.get(id=token.id).last_used_at
    assert stamped == idle if connection.vendor == "sqlite" else stamped > idle


def test_the_stamp_is_recorded_when_the_store_is_free(idle_token):
    token, secret, idle = idle_token
    assert Api(secret).get("/v1/memories").status_code == 200
    assert ApiToken.objects.get(id=token.id).last_used_at > idle


@pytest.mark.django_db(transaction=True)
def test_a_kept_token_costs_one_statement_and_reads_no_table():
    Group.objects.get_or_create(name="operator")
    operator = make_user("olga", "operator")
    _, secret = tokens.create_token(operator, "read")
    first = tokens.caller(f"Bearer {secret}")
    assert first.role == "operator"
    tokens.caller(f"Bearer {secret}")  # read again once: stamping its use was a change
    # PostgreSQL's counter is the cluster's snapshot, which any commit moves, another test
    # worker's in its own database too: then the token is read again, once, and kept after.
    for _ in range(10):
        with CaptureQueriesContext(connection) as captured:
            assert tokens.caller(f"Bearer {secret}") == first
        if len(captured) == 1:
            break
    assert len(captured) == 1
    assert "memadmin_apitoken" not in captured.captured_queries[0]["sql"]


def test_a_revoked_token_is_refused_at_once(operator):
    token, secret = tokens.create_token(operator, "read")
    api = Api(secret)
    assert api.get("/v1/memories").status_code == 200
    assert api.get("/v1/memories").status_code == 200  # now kept
    tokens.revoke_token(operator, token.id)
    assert api.get("/v1/memories").status_code == 401


@pytest.mark.django_db(transaction=True)
def test_a_change_committed_past_the_doors_is_seen_at_once():
    # Committed on their own as another process's would be: the change counter alone tells.
    Group.objects.get_or_create(name="operator")
    user = make_user("olga", "operator")
    token, secret = tokens.create_token(user, "write")
    api = Api(secret)
    assert api.get("/v1/memories").status_code == 200
    ApiToken.objects.filter(id=token.id).update(revoked_at=timezone.now())
    assert api.get("/v1/memories").status_code == 401
    ApiToken.objects.filter(id=token.id).update(revoked_at=None)
    assert api.get("/v1/memories").status_code == 200
    user.groups.clear()
    assert api.get("/v1/memories").status_code == 403  # no role now
    User.objects.filter(id=user.id).update(is_active=False)
    assert api.get("/v1/memories").status_code == 401


@pytest.mark.django_db(transaction=True)
def test_a_commit_on_another_connection_moves_the_change_counter():
    from memories import engine

    def counter():
        return engine.of(connection).config.change_counter(connection)

    User.objects.create_user("olga")
    before = counter()
    assert counter() == before

    def revoke_elsewhere():
        User.objects.filter(username="olga").update(is_active=False)
        connections.close_all()

    other = threading.Thread(target=revoke_elsewhere)
    other.start()
    other.join()
    assert counter() != before
