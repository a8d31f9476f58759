"""API tokens: made, listed, revoked and checked here, by the dashboard, the command and /v1.

A token is `mem_` and 43 URL-safe characters (256 bits from `secrets`). Only its SHA-256 is
stored, so a copy of the database lets nobody call the API; the plaintext is returned once,
at creation, and a short prefix is kept to tell tokens apart in listings.
"""

import datetime as dt
import hashlib
import secrets
import threading
from dataclasses import dataclass

from django.db import OperationalError, connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from memadmin.accounts import roles
from memadmin.models import ApiToken
from memories import engine
from memories.rules.errors import InvalidField, TokenNotFound, TokenRefused

TOKEN_PREFIX = "mem_"
DISPLAY_PREFIX_LENGTH = len(TOKEN_PREFIX) + 8
MAX_TOKEN_LENGTH = 200
LABEL_MAX_CHARS = 100
# last_used_at is a write on every call otherwise; a minute is precise enough to spot a
# token nobody uses, and reads stay reads.
LAST_USED_RESOLUTION = dt.timedelta(minutes=1)
READ, WRITE = ApiToken.Scope.READ, ApiToken.Scope.WRITE
# What an endpoint answers (401) to a request with no live token.
TOKEN_REQUIRED = "A valid API token is required: send Authorization: Bearer <token>."


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def token_scope(scope) -> str:
    if scope not in ApiToken.Scope.values:
        raise InvalidField("scope", "The scope of a token is read or write.")
    return scope


def token_label(label) -> str:
    """The label as kept: one line, its runs of spaces collapsed."""
    if not isinstance(label, str) or "\x00" in label:
        raise InvalidField("label", "The label must be text.")
    label = " ".join(label.split())
    if len(label) > LABEL_MAX_CHARS:
        raise InvalidField("label", f"A label is at most {LABEL_MAX_CHARS} characters.")
    return label


def create_token(user, scope: str, label: str = "") -> tuple[ApiToken, str]:
    """A new token for `user` and its plaintext, which is never available again."""
    scope = token_scope(scope)
    label = token_label(label)
    name = user.get_username()
    if not roles.can_read(user):
        raise TokenRefused(
            f"'{name}' has no role (auditor, operator or admin), so a token of theirs could "
            "do nothing; give them a role first.",
            user=name,
        )
    if scope == ApiToken.Scope.WRITE and not roles.can_write(user):
        raise TokenRefused(
            f"'{name}' is an {roles.role_of(user)} and cannot write, so they may only hold "
            "read tokens.",
            user=name,
            field="scope",
        )
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        label=label,
        scope=scope,
        key_hash=_hash(secret),
        prefix=secret[:DISPLAY_PREFIX_LENGTH],
        created_at=timezone.now(),
    )
    return token, secret


def user_tokens(user) -> QuerySet:
    """The user's own tokens, newest first, revoked ones included."""
    return ApiToken.objects.filter(user=user).select_related("user")


def all_tokens() -> QuerySet:
    return ApiToken.objects.select_related("user")


def revoke(token: ApiToken) -> ApiToken:
    """Revoke a token; revoking one already revoked keeps its first revocation time."""
    if token.revoked_at is None:
        ApiToken.objects.filter(id=token.id, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        token.refresh_from_db(fields=["revoked_at"])
    return token


def revocable_token(user, token_id: int) -> ApiToken:
    """One of the user's own tokens, or for an admin anyone's; else TokenNotFound."""
    tokens = all_tokens() if roles.can_administer(user) else user_tokens(user)
    try:
        return tokens.get(id=token_id)
    except (ApiToken.DoesNotExist, ValueError, TypeError):
        raise TokenNotFound(token_id) from None


def revoke_token(user, token_id: int) -> ApiToken:
    """A user revokes one of their own tokens; an admin revokes anyone's."""
    with transaction.atomic():
        return revoke(revocable_token(user, token_id))


@dataclass(frozen=True)
class Caller:
    """Who a live token speaks for: the token (its user with it) and the user's role."""

    token: ApiToken
    role: str | None


def caller(raw_header_value) -> Caller | None:
    """The live token an `Authorization: Bearer ...` value carries and its user's role, or
    None for a missing or malformed header, an unknown or revoked token, or an inactive user.

    Kept per database connection while the store's change counter stands still: any commit
    since (a revocation, a user deactivated or given another role, by any process) reads
    them again. A repeated call then costs one statement that reads no table.
    """
    if not isinstance(raw_header_value, str):
        return None
    scheme, _, secret = raw_header_value.strip().partition(" ")
    secret = secret.strip()
    if scheme.lower() != "bearer" or not secret or len(secret) > MAX_TOKEN_LENGTH:
        return None
    key_hash = _hash(secret)
    # Read before the token, so that a commit landing in between reads it again next time.
    counter = engine.of(connection).config.change_counter(connection)
    kept = {} if counter is None else _kept(counter)
    found = kept.get(key_hash)
    if found is None:
        # An unknown token is read again each time: only live ones are kept, so what is kept
        # is bounded by the tokens there are, not by what callers send.
        found = _read_caller(key_hash)
        if found is not None:
            kept[key_hash] = found
    if found is not None:
        now = timezone.now()
        token = found.token
        if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
            _stamp_last_used(token, now)
            token.last_used_at = now
    return found


def _read_caller(key_hash: str) -> Caller | None:
    try:
        token = ApiToken.objects.select_related("user").get(key_hash=key_hash)
    except ApiToken.DoesNotExist:
        return None
    if token.revoked_at is not None or not token.user.is_active:
        return None
    return Caller(token, roles.role_of(token.user))


def token_role(token_id: int) -> str | None:
    """The role a token speaks with now: its user's, while the token is live and the user
    active; None once it is revoked (or its user deactivated or deleted)."""
    token = ApiToken.objects.select_related("user").filter(id=token_id).first()
    if token is None or token.revoked_at is not None or not token.user.is_active:
        return None
    return roles.role_of(token.user)


def _kept(counter) -> dict:
    """The callers read on this thread's open database connection since the store's change
    counter was `counter` (a new connection, a new counter: its values mean nothing to
    another)."""
    raw = connection.connection
    if getattr(_callers, "raw", None) is not raw or _callers.counter != counter:
        _callers.raw, _callers.counter, _callers.found = raw, counter, {}
    return _callers.found


_callers = threading.local()


def _stamp_last_used(token: ApiToken, now) -> None:
    """Record the use unless another writer holds the store: the stamp is a hint for the
    tokens page, and a read must never wait on the write lock for it (the next call, a
    minute on, tries again)."""
    store = engine.of(connection).config
    try:
        with store.without_waiting(connection):
            ApiToken.objects.filter(id=token.id).update(last_used_at=now)
    except OperationalError as problem:
        if not store.is_busy(problem):
            raise
        return
    token.last_used_at = now


def refusal(user, role: str | None, scope: str, *, token: ApiToken | None = None) -> str | None:
    """Why `user` (holding `role`, through `token` if given) may not act at `scope` (read or
    write), in one sentence; None when they may. /v1 answers it with a 403, MCP with a 403 or
    a tool error."""
    name = user.get_username()
    if role is None:
        holder = "it" if token is None else "its tokens"
        return f"The account '{name}' has no role, so {holder} can do nothing."
    if scope == WRITE:
        if token is not None and token.scope != WRITE:
            return "This token is read-only; writing needs a write token."
        if role not in roles.WRITERS:
            return f"The account '{name}' is an {role} and cannot write."
    return None
