"""Ages in words, as the agent and the dashboard read them ("Recorded 47 days ago")."""

import datetime as dt

from django.utils import timezone


def days_between(earlier: dt.datetime, later: dt.datetime, zone: dt.tzinfo | None = None) -> int:
    """Whole calendar days in the server's time zone, so 'yesterday' means the day before.

    A caller dating many moments passes the zone, looked up once (the lookup costs more than
    the arithmetic).
    """
    zone = zone or timezone.get_current_timezone()
    return (later.astimezone(zone).date() - earlier.astimezone(zone).date()).days


def _span(days: int) -> str:
    """Two or more days in the unit an age is told in: days, then months, then years."""
    if days < 60:
        return f"{days} days"
    if days < 730:
        return f"{days // 30} months"
    return f"{days // 365} years"


def age(moment: dt.datetime, now: dt.datetime | None = None, zone: dt.tzinfo | None = None) -> str:
    now = now or timezone.now()
    days = days_between(moment, now, zone)
    if days <= 0:
        return "today"
    if days == 1:
        return "yesterday"
    return f"{_span(days)} ago"


def relative(
    moment: dt.datetime, now: dt.datetime | None = None, zone: dt.tzinfo | None = None
) -> str:
    """An age for a past moment, 'in 12 days' for a future one (an expiry still to come)."""
    now = now or timezone.now()
    if moment <= now:
        return age(moment, now, zone)
    days = days_between(now, moment, zone)
    if days <= 0:
        return "later today"
    if days == 1:
        return "tomorrow"
    return f"in {_span(days)}"


def short_age(
    moment: dt.datetime, now: dt.datetime | None = None, zone: dt.tzinfo | None = None
) -> str:
    """Compact form for tables and the index: 0d, 47d, 5mo, 2y."""
    days = max(days_between(moment, now or timezone.now(), zone), 0)
    if days < 60:
        return f"{days}d"
    if days < 730:
        return f"{days // 30}mo"
    return f"{days // 365}y"


def verified_since_recorded(memory) -> bool:
    """Whether someone has confirmed the memory since it was written (verified_at is stamped
    with created_at at creation and moved only by an explicit verification)."""
    return memory.verified_at > memory.created_at


def record_caption(memory, now: dt.datetime | None = None) -> str:
    """'Recorded 47 days ago, verified yesterday' (or '..., not verified since')."""
    now = now or timezone.now()
    first = f"Recorded {age(memory.created_at, now)}"
    if verified_since_recorded(memory):
        caption = f"{first}, verified {age(memory.verified_at, now)}"
    else:
        caption = f"{first}, not verified since"
    if memory.expires_at is not None and memory.expires_at <= now:
        caption += f"; expired {age(memory.expires_at, now)}, it no longer applies"
    return caption


def read_caption(memory, now: dt.datetime | None = None) -> str:
    """The agent's read: the record caption and a reminder that it is not live state."""
    return record_caption(memory, now) + ". This is what you recorded then, not live state."
