"""Failed sign-ins, throttled per account and per address (django-axes keeps the count in
the store, so every worker sees the same), and the admins' unlock.

After AXES_FAILURE_LIMIT failures for one username, or from one address, within
AXES_COOLOFF_TIME, that account or that address is refused even the right password until the
cool-off has passed or an admin unlocks it.
"""

from dataclasses import dataclass

from axes.models import AccessAttempt
from axes.utils import reset
from django.conf import settings
from django.db.models import Max, Sum
from django.utils import timezone

from memories.rules.errors import AccountRefused

ACCOUNT, ADDRESS = "account", "address"
_FIELDS = {ACCOUNT: "username", ADDRESS: "ip_address"}


def failure_limit() -> int:
    return settings.AXES_FAILURE_LIMIT


def lock_minutes() -> int:
    return int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)


def locked_sentence() -> str:
    return (
        f"Too many failed sign-ins for this account or from this address: try again in "
        f"{lock_minutes()} minutes, or ask an admin to unlock it on the Accounts page."
    )


@dataclass(frozen=True)
class Lock:
    kind: str  # ACCOUNT or ADDRESS
    value: str  # the username or the address
    failures: int
    until: object  # when the cool-off ends


def locks() -> list[Lock]:
    """The accounts and addresses refused now, accounts first."""
    cool_off = settings.AXES_COOLOFF_TIME
    recent = AccessAttempt.objects.filter(attempt_time__gte=timezone.now() - cool_off)
    found = []
    for kind, field in _FIELDS.items():
        rows = (
            recent.exclude(**{f"{field}__isnull": True})
            .values(field)
            .annotate(failures=Sum("failures_since_start"), last=Max("attempt_time"))
            .filter(failures__gte=failure_limit())
            .order_by(field)
        )
        found += [Lock(kind, row[field], row["failures"], row["last"] + cool_off) for row in rows]
    return found


def unlock(kind: str, value: str) -> int:
    """Forget the failed sign-ins of one account or one address; how many there were."""
    if kind not in _FIELDS or not value:
        raise AccountRefused("Say which account or address to unlock.")
    if kind == ACCOUNT:
        return reset(username=value)
    return reset(ip=value)
