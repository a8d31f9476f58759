"""Sign-in with OpenID Connect: the authorization code flow (with PKCE and a nonce) of
mozilla-django-oidc, configured by the MEMADMIN_OIDC_* settings, and what a signed-in
person is here.

A person is known by the provider's issuer and subject (OidcIdentity). Someone the store has
not met yet gets an account on their first sign-in, named by their username claim, as long as
their groups map to a role; every sign-in gives the account the strongest role its groups map
to (OidcRoleMapping, edited by admins on the accounts page), so a change of groups at the
provider takes effect at the next sign-in. Groups that map to no role are refused with a
sentence, and so is a name already held by an account the provider does not own.

These sign-ins never go through django.contrib.auth.authenticate, so a refusal here sends no
`user_login_failed` and the password throttle (memadmin.accounts.sign_ins) does not count it.
"""

import functools

import requests
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured, SuspiciousOperation
from django.db import transaction
from django.utils import timezone
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import OIDCAuthenticationRequestView

from memadmin.accounts import grants, roles, users
from memadmin.models import OidcIdentity, OidcRoleMapping
from memories.rules.errors import AccountRefused, InvalidField, SignInRefused
from projects.models import Project

CALLBACK = "oidc-callback"  # the URL name of the page the provider sends people back to
TIMEOUT_SECONDS = 10
_ENDPOINTS = {  # mozilla-django-oidc's name, the discovery document's, our setting's
    "OIDC_OP_AUTHORIZATION_ENDPOINT": ("authorization_endpoint", "AUTHORIZATION_ENDPOINT"),
    "OIDC_OP_TOKEN_ENDPOINT": ("token_endpoint", "TOKEN_ENDPOINT"),
    "OIDC_OP_USER_ENDPOINT": ("userinfo_endpoint", "USERINFO_ENDPOINT"),
    "OIDC_OP_JWKS_ENDPOINT": ("jwks_uri", "JWKS_ENDPOINT"),
}
START_AGAIN = "start again from the sign-in page."


def configured() -> bool:
    return bool(settings.MEMADMIN_OIDC_CLIENT_ID)


def provider_name() -> str:
    return settings.MEMADMIN_OIDC_PROVIDER_NAME


def issuer() -> str:
    """Who vouches for an identity when an ID token names no issuer: the issuer set, or the
    authorization endpoint where the endpoints are given one by one."""
    return settings.MEMADMIN_OIDC_ISSUER or settings.MEMADMIN_OIDC_AUTHORIZATION_ENDPOINT


@functools.lru_cache(maxsize=4)
def _discovered(issuer_url: str) -> dict:
    answer = requests.get(f"{issuer_url}/.well-known/openid-configuration", timeout=TIMEOUT_SECONDS)
    answer.raise_for_status()
    return answer.json()


def endpoint(name: str) -> str:
    """One of the provider's endpoints, by mozilla-django-oidc's setting name: the one given,
    else the issuer's discovery document's (read once per process)."""
    discovered_as, ours = _ENDPOINTS[name]
    given = getattr(settings, f"MEMADMIN_OIDC_{ours}")
    if given:
        return given
    try:
        return _discovered(settings.MEMADMIN_OIDC_ISSUER)[discovered_as]
    except (requests.RequestException, ValueError, KeyError):
        raise SignInRefused(
            f"The sign-in provider's discovery document at {settings.MEMADMIN_OIDC_ISSUER} "
            f"could not be read (no {discovered_as}); try again later, or ask an admin.",
            status=503,
        ) from None


def _setting(name: str, *default):
    """mozilla-django-oidc's settings, from ours."""
    if name in _ENDPOINTS:
        return endpoint(name)
    ours = {
        "OIDC_RP_CLIENT_ID": settings.MEMADMIN_OIDC_CLIENT_ID,
        "OIDC_RP_CLIENT_SECRET": settings.MEMADMIN_OIDC_CLIENT_SECRET,
        "OIDC_RP_SCOPES": settings.MEMADMIN_OIDC_SCOPES,
        "OIDC_RP_SIGN_ALGO": "RS256",
        "OIDC_USE_PKCE": True,
        "OIDC_TIMEOUT": TIMEOUT_SECONDS,
        "OIDC_AUTHENTICATION_CALLBACK_URL": CALLBACK,
    }
    if name in ours:
        return ours[name]
    if default:
        return default[0]
    raise ImproperlyConfigured(f"memadmin.accounts.oidc has no value for {name}.")


class StartView(OIDCAuthenticationRequestView):
    """Sends the browser to the provider, a new state, nonce and PKCE verifier kept in the
    session."""

    get_settings = staticmethod(_setting)


class _Backend(OIDCAuthenticationBackend):
    """The code exchanged for tokens, the ID token's signature and nonce checked, the claims
    read from the userinfo endpoint; then the person found or made (`person`)."""

    get_settings = staticmethod(_setting)

    def verify_token(self, token, **kwargs):
        """The ID token's signature and nonce (mozilla-django-oidc's checks), and its
        audience and issuer, which it leaves unchecked."""
        payload = super().verify_token(token, **kwargs)
        audience = payload.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        if settings.MEMADMIN_OIDC_CLIENT_ID not in audiences:
            raise SuspiciousOperation("The ID token is not meant for this client.")
        if settings.MEMADMIN_OIDC_ISSUER and payload.get("iss") != settings.MEMADMIN_OIDC_ISSUER:
            raise SuspiciousOperation("The ID token is not the configured issuer's.")
        return payload

    def get_or_create_user(self, access_token, id_token, payload):
        claims = self.get_userinfo(access_token, id_token, payload)
        if claims.get("sub") != payload.get("sub"):
            raise SignInRefused(
                "The provider's userinfo names someone else than its ID token; " + START_AGAIN,
                status=400,
            )
        return person(claims, payload.get("iss") or issuer())


def roles_for(groups) -> tuple[str | None, dict]:
    """What the groups map to: the strongest role on the whole store (or None), and the
    strongest on each named tier (a project's name, or None for the global tier)."""
    if not isinstance(groups, list | tuple):
        return None, {}
    mapped: dict = {}
    for tier, role in OidcRoleMapping.objects.filter(
        group__in=[str(group) for group in groups]
    ).values_list("tier", "role"):
        mapped.setdefault(tier, set()).add(role)
    nobody = get_user_model()()
    store = roles.strongest(nobody, mapped.pop(None, set()))
    return store, {tier or None: roles.strongest(nobody, held) for tier, held in mapped.items()}


def person(claims: dict, issued_by: str):
    """The account of the person the claims (vouched for by the issuer `issued_by`) describe,
    made on their first sign-in, holding the role their groups map to; SignInRefused when
    they map to none."""
    subject = claims.get("sub")
    if not isinstance(subject, str) or not subject:
        raise SignInRefused("The provider's answer names nobody (no `sub` claim); " + START_AGAIN)
    groups = claims.get(settings.MEMADMIN_OIDC_GROUPS_CLAIM)
    role, tier_roles = roles_for(groups)
    if role is None and not tier_roles:
        held = ", ".join(str(group) for group in groups) if isinstance(groups, list) else ""
        raise SignInRefused(
            f"Your groups at the provider ({held or 'none'}) map to no role here: ask an admin "
            "to map one of them to a role on the Accounts page."
        )
    with transaction.atomic():
        found = (
            OidcIdentity.objects.select_related("user")
            .filter(issuer=issued_by, subject=subject)
            .first()
        )
        user = found.user if found is not None else _new_account(claims, issued_by, subject)
        if not user.is_active:
            raise SignInRefused(f"The account '{user.get_username()}' is turned off here.")
        if not user.is_superuser:
            grants.hold_exactly(user, role, tier_roles)
    return user


def _new_account(claims: dict, issued_by: str, subject: str):
    wanted = claims.get(settings.MEMADMIN_OIDC_USERNAME_CLAIM) or claims.get("email") or subject
    try:
        username = users.account_username(str(wanted))
    except InvalidField as error:
        raise SignInRefused(
            f"Your name at the provider, '{wanted}', cannot name an account here: {error.message}"
        ) from None
    if get_user_model().objects.filter(username=username).exists():
        raise SignInRefused(
            f"An account named '{username}' already exists here and does not sign in through "
            "the provider; ask an admin to rename one of them."
        )
    user = users.create_external_account(username, email=claims.get("email") or "")
    OidcIdentity.objects.create(
        user=user, issuer=issued_by, subject=subject, created_at=timezone.now()
    )
    return user


def signed_in(request):
    """The account the provider's answer on the callback page signs in (`request.GET`: its
    code and state, or its error), or SignInRefused saying why not."""
    states = request.session.get("oidc_states") or {}
    state = request.GET.get("state")
    if state not in states:
        raise SignInRefused(
            "This answer from the provider does not match a sign-in started in this browser "
            "(its state is unknown or was used already); " + START_AGAIN,
            status=400,
        )
    started = states.pop(state)
    request.session["oidc_states"] = states  # a state is good for one answer
    if request.GET.get("error"):
        said = request.GET.get("error_description") or request.GET["error"]
        raise SignInRefused(f"The provider refused the sign-in ({said[:200]}); " + START_AGAIN)
    if not request.GET.get("code"):
        raise SignInRefused("The provider's answer holds no code; " + START_AGAIN, status=400)
    try:
        user = _Backend().authenticate(
            request, nonce=started.get("nonce"), code_verifier=started.get("code_verifier")
        )
    except requests.HTTPError as error:
        if error.response is not None and 400 <= error.response.status_code < 500:
            raise SignInRefused(
                "The provider did not accept this sign-in's code (it expired, or was used "
                "already); " + START_AGAIN,
                status=400,
            ) from None
        raise _unreachable() from None
    except requests.RequestException:
        raise _unreachable() from None
    except SuspiciousOperation:
        raise SignInRefused(
            "The provider's answer could not be verified (its signature or nonce); " + START_AGAIN,
            status=400,
        ) from None
    if user is None:
        raise SignInRefused("The provider's answer signs nobody in; " + START_AGAIN)
    return user


def _unreachable() -> SignInRefused:
    return SignInRefused(
        "The sign-in provider could not be reached or failed; try again later.", status=503
    )


GROUP_MAX_CHARS = 200


def mappings() -> list[OidcRoleMapping]:
    return list(OidcRoleMapping.objects.all())


def mapping_group(value) -> str:
    """A value of the groups claim as kept: one line, trimmed."""
    if not isinstance(value, str) or "\x00" in value or "\n" in value or not value.strip():
        raise InvalidField("group", "Name the group, as the provider's groups claim holds it.")
    value = value.strip()
    if len(value) > GROUP_MAX_CHARS:
        raise InvalidField("group", f"A group is at most {GROUP_MAX_CHARS} characters.")
    return value


def map_group(group, role, tier=grants.WHOLE_STORE) -> OidcRoleMapping:
    """Holders of `group` get `role` on `tier` (the whole store, the global tier None, or a
    project's name) at their next sign-in."""
    group, role = mapping_group(group), users.account_role(role)
    stored = None if tier is grants.WHOLE_STORE else (tier or "")
    with transaction.atomic():
        if stored:
            Project.every.named(stored)  # UnknownProject: say so now, not at a sign-in
        if OidcRoleMapping.objects.filter(group=group, tier=stored).exists():
            raise AccountRefused(
                f"The group '{group}' is mapped on {grants.where(tier)} already; remove its row "
                "first.",
                field="group",
            )
        return OidcRoleMapping.objects.create(group=group, role=role, tier=stored)


def unmap(mapping_id) -> OidcRoleMapping:
    try:
        mapping = OidcRoleMapping.objects.get(id=mapping_id)
    except (OidcRoleMapping.DoesNotExist, ValueError, TypeError):
        raise SignInRefused(f"There is no group mapping {mapping_id}.", status=404) from None
    mapping.delete()
    return mapping
