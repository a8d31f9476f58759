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


class ListColumns(models.Model):
    """The memory list's columns a person has hidden: kept with the account, so they follow
    it to any browser."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="list_columns"
    )
    hidden = models.JSONField(default=list)

    def __str__(self) -> str:
        return f"{self.user}: {', '.join(self.hidden) or 'every column'}"
