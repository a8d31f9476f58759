"""API tokens: made, listed, paused, resumed, rotated, revoked and checked here, by the
dashboard, the command, /v1 and MCP.

A token is `mem_` and 43 URL-safe characters (256 bits from `secrets`). Only its SHA-256 is
stored, so a copy of the database lets nobody call the API; the plaintext is returned once,
at creation or rotation, and a short prefix is kept to tell tokens apart in listings.

A token may expire (`expires_at`), be paused and resumed, and be rotated: a new secret, the
old one still accepted for MEMADMIN_TOKEN_ROTATION_GRACE_MINUTES (60 by default) so the
agents using it can be given the new one, then refused. A token that cannot be used is
answered 401 with a sentence saying why (paused, expired, revoked, replaced).
"""

import datetime as dt
import hashlib
import secrets
import threading
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import OperationalError, connection, transaction
from django.db.models import Prefetch, Q, QuerySet
from django.utils import timezone

from memadmin.accounts import grants, roles
from memadmin.models import ApiToken, Grant
from memories import engine
from memories.rules import fields
from memories.rules.errors import (
    InvalidField,
    NotPermitted,
    TokenNotFound,
    TokenRefused,
    TokenUnauthorized,
)
from memories.rules.reach import EVERYWHERE, Reach

TOKEN_PREFIX = "mem_"
DISPLAY_PREFIX_LENGTH = len(TOKEN_PREFIX) + 8
MAX_TOKEN_LENGTH = 200
LABEL_MAX_CHARS = 100
# last_used_at is a write on every call otherwise; a minute is precise enough to spot a
# token nobody uses, and reads stay reads.
LAST_USED_RESOLUTION = dt.timedelta(minutes=1)
READ, WRITE = ApiToken.Scope.READ, ApiToken.Scope.WRITE
# What an endpoint answers (401) to a request with no token it knows.
TOKEN_REQUIRED = "A valid API token is required: send Authorization: Bearer <token>."
PAUSED = "This API token is paused: its owner or an admin can resume it on the API tokens page."
REVOKED = "This API token was revoked; create a new one on the API tokens page."
EXPIRED = "This API token expired at {when}; create a new one on the API tokens page."
REPLACED = (
    "This API token was rotated and its old secret stopped working at {when}; use the new secret."
)
TURNED_OFF = "The account '{name}' of this API token is turned off."


def rotation_grace() -> dt.timedelta:
    """How long a rotated token's old secret is still accepted."""
    return dt.timedelta(minutes=settings.MEMADMIN_TOKEN_ROTATION_GRACE_MINUTES)


def _when(moment) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


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


def token_expiry(value):
    """An expiry as a memory's is given (RFC 3339, or YYYY-MM-DD: the whole of that day in
    MEMADMIN_TIME_ZONE), in the future; None (or "") for a token that does not expire."""
    try:
        moment = fields.expires(value)
    except InvalidField as error:
        raise InvalidField("expires", error.message) from None
    if moment in (None, ""):
        return None
    if moment <= timezone.now():
        raise InvalidField("expires", "A new token's expiry must be in the future.")
    return moment


def _new_secret() -> tuple[str, str, str]:
    """A secret, its hash and its shown prefix."""
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    return secret, _hash(secret), secret[:DISPLAY_PREFIX_LENGTH]


def create_token(
    user, scope: str, label: str = "", expires=None, places=None
) -> tuple[ApiToken, str]:
    """A new token for `user` and its plaintext, which is never available again.

    `places` (None: the global tier, else a project's name) limits it to those tiers, each
    one the user holds a grant on; none given, it reaches what its owner does."""
    scope = token_scope(scope)
    label = token_label(label)
    expires_at = token_expiry(expires)
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
    secret, key_hash, prefix = _new_secret()
    with transaction.atomic():
        token = ApiToken.objects.create(
            user=user,
            label=label,
            scope=scope,
            key_hash=key_hash,
            prefix=prefix,
            created_at=timezone.now(),
            expires_at=expires_at,
        )
        grants.limit_token(token, places or ())
    return token, secret


def user_tokens(user) -> QuerySet:
    """The user's own tokens, newest first, revoked ones included."""
    return all_tokens().filter(user=user)


def all_tokens() -> QuerySet:
    """Every token with its owner and the tiers it was limited to (grants.token_places)."""
    limited_to = Prefetch("tier_grants", Grant.objects.select_related("project"))
    return ApiToken.objects.select_related("user").prefetch_related(limited_to)


ROLELESS_OWNER = "refused: its owner holds no role"


@dataclass(frozen=True)
class States:
    """What calls with each of some tokens meet now: the token's own state, unless it is live
    and its owner holds no role (turned off, or every grant revoked), which refuses it too."""

    now: dt.datetime
    roleless_owners: frozenset[int]

    def of(self, token: ApiToken) -> str:
        state = token.state(self.now)
        if state == "live" and token.user_id in self.roleless_owners:
            return ROLELESS_OWNER
        return state


def states(rows, now: dt.datetime) -> States:
    """The states of these tokens now: one query for their owners' roles."""
    return States(now, roles.without_role({token.user_id for token in rows}))


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


def _unrevoked(token: ApiToken, doing: str) -> ApiToken:
    if token.revoked:
        raise TokenRefused(f"The token {token.prefix}… is revoked, so it cannot be {doing}.")
    return token


def pause(token: ApiToken, paused: bool = True) -> ApiToken:
    """Pause a token (refused with PAUSED until resumed) or resume it; either twice is the
    same as once."""
    _unrevoked(token, "paused" if paused else "resumed")
    if token.paused != paused:
        token.paused_at = timezone.now() if paused else None
        token.save(update_fields=["paused_at"])
    return token


def pause_token(user, token_id: int, paused: bool = True) -> ApiToken:
    """A user pauses or resumes one of their own tokens; an admin anyone's."""
    with transaction.atomic():
        return pause(revocable_token(user, token_id), paused)


def rotate(token: ApiToken) -> tuple[ApiToken, str]:
    """A new secret for the token, and its plaintext; the secret it replaces is accepted for
    rotation_grace() more (a secret replaced before, still in its grace, is refused at once).
    The token keeps its id, label, scope, expiry and pause."""
    _unrevoked(token, "rotated")
    now = timezone.now()
    secret, key_hash, prefix = _new_secret()
    token.previous_key_hash, token.previous_valid_until = token.key_hash, now + rotation_grace()
    token.key_hash, token.prefix, token.rotated_at = key_hash, prefix, now
    token.save(
        update_fields=[
            "previous_key_hash",
            "previous_valid_until",
            "key_hash",
            "prefix",
            "rotated_at",
        ]
    )
    return token, secret


def rotate_token(user, token_id: int) -> tuple[ApiToken, str]:
    """A user rotates one of their own tokens; an admin anyone's."""
    with transaction.atomic():
        return rotate(revocable_token(user, token_id))


@dataclass(frozen=True)
class Caller:
    """Who a token speaks for: the token (its user with it), the user's role, what the token
    may see and change (its tiers within its owner's grants), and whether the secret sent was
    the one a rotation replaced."""

    token: ApiToken
    role: str | None
    reach: Reach = EVERYWHERE
    by_replaced_secret: bool = False


def caller(raw_header_value) -> Caller:
    """The live token an `Authorization: Bearer ...` value carries and its user's role;
    TokenUnauthorized (401) saying why not: no token, or one unknown, revoked, expired,
    paused, replaced by a rotation past its grace, or of an account turned off.

    Kept per database connection while the store's change counter stands still: any commit
    since (a pause, a revocation, a user deactivated or given another role, by any process)
    reads them again. A repeated call then costs one statement that reads no table; the
    expiries are held to the clock at every call.
    """
    if not isinstance(raw_header_value, str):
        raise TokenUnauthorized(TOKEN_REQUIRED)
    scheme, _, secret = raw_header_value.strip().partition(" ")
    secret = secret.strip()
    if scheme.lower() != "bearer" or not secret or len(secret) > MAX_TOKEN_LENGTH:
        raise TokenUnauthorized(TOKEN_REQUIRED)
    key_hash = _hash(secret)
    # Read before the token, so that a commit landing in between reads it again next time.
    counter = engine.of(connection).config.change_counter(connection)
    kept = {} if counter is None else _kept(counter)
    found = kept.get(key_hash)
    if found is None:
        # An unknown token is read again each time: only usable ones are kept, so what is
        # kept is bounded by the tokens there are, not by what callers send.
        found = _read_caller(key_hash)
        kept[key_hash] = found
    now = timezone.now()
    token = found.token
    if token.expired(now):
        raise TokenUnauthorized(EXPIRED.format(when=_when(token.expires_at)))
    if found.by_replaced_secret and token.previous_valid_until <= now:
        raise TokenUnauthorized(REPLACED.format(when=_when(token.previous_valid_until)))
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        _stamp_last_used(token, now)
        token.last_used_at = now
    return found


def _read_caller(key_hash: str) -> Caller:
    found = (
        ApiToken.objects.select_related("user")
        .filter(Q(key_hash=key_hash) | Q(previous_key_hash=key_hash))
        .first()
    )
    if found is None:
        raise TokenUnauthorized(TOKEN_REQUIRED)
    if found.revoked:
        raise TokenUnauthorized(REVOKED)
    if found.paused:
        raise TokenUnauthorized(PAUSED)
    if not found.user.is_active:
        raise TokenUnauthorized(TURNED_OFF.format(name=found.user.get_username()))
    held = roles.holdings(found.user)
    return Caller(found, held.role, grants.token_reach(found, held), found.key_hash != key_hash)


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


def account_named(username: str):
    """The account a command or a stdio session acts as: it must exist and hold some role;
    else refused in one sentence."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise InvalidField("user", f"There is no account named '{username}'.")
    refused = refusal(user, roles.role_of(user), READ)
    if refused is not None:
        raise NotPermitted(refused)
    return user
