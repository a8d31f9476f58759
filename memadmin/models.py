from django.conf import settings
from django.db import models

from memories.rules.fields import rfc3339


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
