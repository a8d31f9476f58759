"""API tokens: made, listed, revoked and checked here, by the dashboard, the command and /v1.

A token is `mem_` and 43 URL-safe characters (256 bits from `secrets`). Only its SHA-256 is
stored, so a copy of the database lets nobody call the API; the plaintext is returned once,
at creation, and a short prefix is kept to tell tokens apart in listings.
"""

import datetime as dt
import hashlib
import secrets

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from memadmin.accounts import roles
from memadmin.models import ApiToken
from memories.rules.errors import InvalidField, TokenNotFound, TokenRefused

TOKEN_PREFIX = "mem_"
DISPLAY_PREFIX_LENGTH = len(TOKEN_PREFIX) + 8
MAX_TOKEN_LENGTH = 200
LABEL_MAX_CHARS = 100
# last_used_at is a write on every call otherwise; a minute is precise enough to spot a
# token nobody uses, and reads stay reads.
LAST_USED_RESOLUTION = dt.timedelta(minutes=1)


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


def authenticate(raw_header_value) -> ApiToken | None:
    """The live token an `Authorization: Bearer ...` value carries, or None.

    None for a missing or malformed header, an unknown or revoked token, or an inactive user.
    """
    if not isinstance(raw_header_value, str):
        return None
    scheme, _, secret = raw_header_value.strip().partition(" ")
    secret = secret.strip()
    if scheme.lower() != "bearer" or not secret or len(secret) > MAX_TOKEN_LENGTH:
        return None
    try:
        token = ApiToken.objects.select_related("user").get(key_hash=_hash(secret))
    except ApiToken.DoesNotExist:
        return None
    if token.revoked_at is not None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        ApiToken.objects.filter(id=token.id).update(last_used_at=now)
        token.last_used_at = now
    return token
