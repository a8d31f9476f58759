from django.conf import settings
from django.db import models

from memories.rules.fields import rfc3339
from memories.rules.tiers import GLOBAL_TIER

# The roles a grant gives (memadmin.accounts.roles.ROLES, which the models cannot import).
ROLE_NAMES = ("auditor", "operator", "admin")


class ApiToken(models.Model):
    """A bearer token for /v1. Only a hash of the secret is kept; the plaintext is shown once."""

    class Scope(models.TextChoices):
        READ = "read", "read"
        WRITE = "write", "write"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    label = models.CharField(max_length=100, blank=True, default="")
    scope = models.CharField(max_length=5, choices=Scope.choices)
    key_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=16)
    created_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    # The secret a rotation replaced, still accepted until previous_valid_until.
    previous_key_hash = models.CharField(max_length=64, null=True, blank=True, unique=True)
    previous_valid_until = models.DateTimeField(null=True, blank=True)
    rotated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(scope__in=["read", "write"]), name="api_token_scope"
            )
        ]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.scope}, {self.user})"

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None

    @property
    def paused(self) -> bool:
        return self.paused_at is not None

    def expired(self, now) -> bool:
        return self.expires_at is not None and self.expires_at <= now

    def state(self, now) -> str:
        """revoked, expired, paused or live: what a call with it meets first."""
        if self.revoked:
            return "revoked"
        if self.expired(now):
            return "expired"
        return "paused" if self.paused else "live"

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "user": self.user.get_username(),
            "label": self.label,
            "scope": self.scope,
            "prefix": self.prefix,
            "created_at": rfc3339(self.created_at),
            "last_used_at": rfc3339(self.last_used_at),
            "revoked_at": rfc3339(self.revoked_at),
            "expires_at": rfc3339(self.expires_at),
            "paused_at": rfc3339(self.paused_at),
            "rotated_at": rfc3339(self.rotated_at),
        }


class OidcIdentity(models.Model):
    """An account's identity at an OpenID Connect provider: its issuer and subject (`sub`),
    the one claim a provider promises never to reassign."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="oidc_identities"
    )
    issuer = models.CharField(max_length=500)
    subject = models.CharField(max_length=255)
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], name="oidc_identity_unique")
        ]


class OidcRoleMapping(models.Model):
    """A value of the provider's groups claim and the role its holders get here.

    `tier` is for the grants of tiers to come: NULL is the whole store (the only rows counted
    today), a project's name or "" (the global tier) a grant on that tier alone.
    """

    group = models.CharField(max_length=200)
    role = models.CharField(max_length=8)
    tier = models.CharField(max_length=100, null=True, blank=True)

    class Meta:
        ordering = ["group", "tier"]
        constraints = [
            models.UniqueConstraint(fields=["group", "tier"], name="oidc_mapping_unique"),
            models.UniqueConstraint(
                fields=["group"],
                condition=models.Q(tier__isnull=True),
                name="oidc_mapping_unique_store_wide",
            ),
            models.CheckConstraint(
                condition=models.Q(role__in=["auditor", "operator", "admin"]),
                name="oidc_mapping_role",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.group} → {self.role}"


class Grant(models.Model):
    """A role a person holds on one tier, or a tier an API token may reach.

    A person's row (`user`) gives `role` on the tier; a token's row (`token`, no role) adds
    the tier to those the token may reach, within its owner's grants. `project` None is the
    global tier. A role on the whole store is the person's role group
    (memadmin.accounts.roles), not a row here.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="tier_grants",
    )
    token = models.ForeignKey(
        ApiToken, null=True, blank=True, on_delete=models.CASCADE, related_name="tier_grants"
    )
    role = models.CharField(max_length=8, blank=True, default="")
    project = models.ForeignKey(
        "projects.Project", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(user__isnull=False, token__isnull=True, role__in=ROLE_NAMES)
                    | models.Q(user__isnull=True, token__isnull=False, role="")
                ),
                name="grant_holder_and_role",
            ),
            models.UniqueConstraint(
                fields=["user", "project"],
                condition=models.Q(project__isnull=False),
                name="grant_user_project",
            ),
            models.UniqueConstraint(
                fields=["user"],
                condition=models.Q(project__isnull=True, user__isnull=False),
                name="grant_user_global",
            ),
            models.UniqueConstraint(
                fields=["token", "project"],
                condition=models.Q(project__isnull=False),
                name="grant_token_project",
            ),
            models.UniqueConstraint(
                fields=["token"],
                condition=models.Q(project__isnull=True, token__isnull=False),
                name="grant_token_global",
            ),
        ]

    @property
    def tier(self) -> int:
        """The tier key (memories.rules.tiers.GLOBAL_TIER or the project's id)."""
        return self.project_id or GLOBAL_TIER


class ListColumns(models.Model):
    """The memory list's columns a person has hidden: kept with the account, so they follow
    it to any browser."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="list_columns"
    )
    hidden = models.JSONField(default=list)

    def __str__(self) -> str:
        return f"{self.user}: {', '.join(self.hidden) or 'every column'}"
