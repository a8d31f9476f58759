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
        }


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
