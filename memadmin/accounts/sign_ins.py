"""Failed sign-ins, throttled (django-axes keeps the count in the store, so every worker sees
the same), and the admins' unlock.

After AXES_FAILURE_LIMIT failures for one account from one address within AXES_COOLOFF_TIME,
that account is refused from that address, even the right password, until the cool-off has
passed or an admin unlocks it. An address alone (whatever the accounts), or an account alone
(from every address), is locked only at MEMADMIN_SIGN_IN_WIDE_FAILURES, a much higher count:
one person mistyping behind a shared address, or someone guessing names, no longer locks out
everyone else there, while guessing at many accounts from one address, or at one account from
many, is still stopped. OpenID Connect sign-ins are not counted (memadmin.accounts.oidc never
goes through django.contrib.auth.authenticate).
"""

from dataclasses import dataclass

from axes.handlers.database import AxesDatabaseHandler
from axes.models import AccessAttempt
from axes.utils import reset
from django.conf import settings
from django.db.models import Max, Sum
from django.utils import timezone

from memories.rules.errors import InvalidField

PAIR, ACCOUNT, ADDRESS = "pair", "account", "address"
# In the order of AXES_LOCKOUT_PARAMETERS, whose attempts SignInHandler reads in that order.
_FIELDS = {PAIR: ("username", "ip_address"), ACCOUNT: ("username",), ADDRESS: ("ip_address",)}


def failure_limit() -> int:
    """Failures for one account from one address that lock that pair."""
    return settings.AXES_FAILURE_LIMIT


def wide_failure_limit() -> int:
    """Failures from one address (any accounts), or for one account (any addresses), that
    lock the address, or the account, alone."""
    return settings.MEMADMIN_SIGN_IN_WIDE_FAILURES


def _limit(kind: str) -> int:
    return failure_limit() if kind == PAIR else wide_failure_limit()


def lock_minutes() -> int:
    return int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)


def locked_sentence() -> str:
    return (
        f"Too many failed sign-ins for this account from this address: try again in "
        f"{lock_minutes()} minutes, or ask an admin to unlock it on the Accounts page."
    )


class SignInHandler(AxesDatabaseHandler):
    """axes' database handler, its one limit held by the pair and the wide limit by the
    address or the account alone (AXES_HANDLER)."""

    def get_failures(self, request, credentials=None) -> int:
        """The failures axes holds against AXES_FAILURE_LIMIT: the pair's, or the limit
        itself once the account or the address alone has reached the wide limit."""
        pair, *alone = (
            attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
            for attempts in self.get_user_attempts(request, credentials)
        )
        if any(count >= wide_failure_limit() for count in alone):
            return max(pair, failure_limit())
        return pair


@dataclass(frozen=True)
class Lock:
    kind: str  # PAIR, ACCOUNT or ADDRESS
    username: str  # "" for an address alone
    address: str  # "" for an account alone
    failures: int
    until: object  # when the cool-off ends


def locks() -> list[Lock]:
    """The pairs, accounts and addresses refused now, in that order."""
    cool_off = settings.AXES_COOLOFF_TIME
    recent = AccessAttempt.objects.filter(attempt_time__gte=timezone.now() - cool_off)
    found = []
    for kind, fields in _FIELDS.items():
        rows = (
            recent.exclude(**{f"{field}__isnull": True for field in fields})
            .values(*fields)
            .annotate(failures=Sum("failures_since_start"), last=Max("attempt_time"))
            .filter(failures__gte=_limit(kind))
            .order_by(*fields)
        )
        found += [
            Lock(
                kind,
                row.get("username") or "",
                row.get("ip_address") or "",
                row["failures"],
                row["last"] + cool_off,
            )
            for row in rows
        ]
    return found


def unlock(kind: str, username: str = "", address: str = "") -> int:
    """Forget the failed sign-ins of one account from one address, of one account, or of one
    address; how many there were."""
    wanted = {PAIR: username and address, ACCOUNT: username, ADDRESS: address}
    if not wanted.get(kind):
        raise InvalidField("kind", "Say which account or address to unlock.")
    if kind == PAIR:
        return reset(ip=address, username=username)
    if kind == ACCOUNT:
        return reset(username=username)
    return reset(ip=address)
