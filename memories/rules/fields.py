"""Parsing and validation of every memory field, shared by the doors, forms and filters."""

import datetime as dt
import re
import zoneinfo

from django.conf import settings
from django.utils import timezone

from memories.rules.errors import InvalidField
from memories.rules.tiers import ANY_TIER

NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
MEMORY_NAME_MAX = 128
PROJECT_NAME_MAX = 64
PRIORITY_MIN, PRIORITY_MAX = 0, 100
DEFAULT_PRIORITY = 5
LOADS = ("inline", "index", "search")
DEFAULT_LOAD = "index"
MAX_REFERENCES = 20
MAX_REFERENCE_LENGTH = 2048
MAX_TAGS = 50
MAX_TAG_LENGTH = 64
MAX_BODY_CHARS = 1_000_000
LONG_DESCRIPTION = 200  # past this a write gets a note (the seed's); past the cap, a refusal
MAX_DESCRIPTION_CHARS = 1000
MAX_QUERY_CHARS = 500  # a search's text, and each of its synonyms
MAX_QUERIES = 20  # synonyms in one search
# Words and plain-text terms of one query searched for, the first in the order written: a
# question needs no more, and each costs the search a look-up whatever the store's size.
MAX_QUERY_TERMS = 32
# How a search finds: words and meaning fused (the default), the words alone, meaning alone.
SEARCH_MODES = ("hybrid", "words", "meaning")
SEARCH_MODE_MESSAGE = "mode is hybrid, words or meaning."
BULK_LIMIT = 1000  # memories one bulk action takes (the README's number)
MAX_ID = 2**63 - 1  # the largest row id a store keeps (a signed 64-bit integer)
PERIOD_RE = re.compile(r"([1-9][0-9]{0,5})([mhdw])")
PERIOD_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
PERIOD_WORDS = {"m": "minute", "h": "hour", "d": "day", "w": "week"}


def _no_nul(field: str, text: str) -> str:
    if "\x00" in text:
        raise InvalidField(field, f"The {field} may not contain a NUL character.")
    return text


def name(value, *, field: str = "name", max_length: int = MEMORY_NAME_MAX) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidField(field, f"A {field} is required.")
    if len(value) > max_length:
        raise InvalidField(field, f"A {field} is at most {max_length} characters.")
    if not NAME_RE.fullmatch(value):
        raise InvalidField(
            field,
            f"A {field} starts with a letter or digit and holds only letters, digits, "
            "'.', '_' and '-'.",
        )
    return value


def record_ids(values, field: str = "id") -> list[int]:
    """Row ids as a form or a door receives them (text or integers), each once, ascending.

    An id past what a store keeps is refused here: handed to the database it would overflow.
    """
    ids = set()
    for value in values:
        try:
            number = int(value)
        except (TypeError, ValueError):
            number = None
        if number is None or not 1 <= number <= MAX_ID:
            raise InvalidField(
                field, f"'{value}' is not an id (a whole number from 1 to {MAX_ID:,})."
            )
        ids.add(number)
    return sorted(ids)


def project_name(value, *, field: str = "project") -> str:
    return name(value, field=field, max_length=PROJECT_NAME_MAX)


def tier(value: str | None, *, absent=ANY_TIER) -> str | None:
    """A tier as a form, a query or a command option names it: blank is the global tier
    (None), else a project's name; None, the name left out, is `absent`."""
    if value is None:
        return absent
    value = value.strip()
    return project_name(value) if value else None


def one_line(value, field: str) -> str | None:
    """Whitespace runs, line breaks included, collapsed to one space; blank is None."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidField(field, f"The {field} must be text.")
    collapsed = " ".join(_no_nul(field, value).split())
    return collapsed or None


def description(value) -> str | None:
    """At most MAX_DESCRIPTION_CHARS as given (the index shows it every turn), collapsed to
    the one line every write stores."""
    if isinstance(value, str) and len(value) > MAX_DESCRIPTION_CHARS:
        raise InvalidField(
            "description",
            f"A description is at most {MAX_DESCRIPTION_CHARS:,} characters, not "
            f"{len(value):,}: keep it to what the index should say, the detail in the body.",
        )
    return one_line(value, "description")


def body(value) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidField("body", "The body must be text.")
    if len(value) > MAX_BODY_CHARS:
        raise InvalidField("body", f"A body is at most {MAX_BODY_CHARS:,} characters.")
    return _no_nul("body", value)


def whole(value) -> int | None:
    """A JSON number that is a whole number, as JSON Schema's `integer` admits it (7 or 7.0),
    else None; true and false are not numbers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def priority(value) -> int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise InvalidField("priority", "The priority must be a whole number.") from None
    value = whole(value)
    if value is None:
        raise InvalidField("priority", "The priority must be a whole number.")
    if not PRIORITY_MIN <= value <= PRIORITY_MAX:
        raise InvalidField(
            "priority",
            f"The priority must be between {PRIORITY_MIN} (most important) and {PRIORITY_MAX}.",
        )
    return value


def load(value) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if value not in LOADS:
        raise InvalidField("load", "The load must be inline, index or search.")
    return value


def _line_list(value, field: str, *, limit: int, item_max: int) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple):
        raise InvalidField(field, f"The {field} must be a list of text lines.")
    items: list[str] = []
    for item in value:
        if not isinstance(item, str):
            raise InvalidField(field, f"Each of the {field} must be text.")
        item = _no_nul(field, item).strip()
        if not item:
            continue
        if "\n" in item or "\r" in item:
            raise InvalidField(field, f"Each of the {field} is one line.")
        if len(item) > item_max:
            raise InvalidField(field, f"Each of the {field} is at most {item_max} characters.")
        if item not in items:
            items.append(item)
    if len(items) > limit:
        raise InvalidField(field, f"A memory has at most {limit} {field}, not {len(items)}.")
    return items


def references(value) -> list[str] | None:
    return _line_list(value, "references", limit=MAX_REFERENCES, item_max=MAX_REFERENCE_LENGTH)


def tags(value) -> list[str] | None:
    return _line_list(value, "tags", limit=MAX_TAGS, item_max=MAX_TAG_LENGTH)


def local_zone() -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(settings.TIME_ZONE)


def expires(value) -> dt.datetime | None | str:
    """RFC 3339, or YYYY-MM-DD meaning the whole of that day in MEMADMIN_TIME_ZONE.

    Returns None when omitted, "" when cleared, else the aware instant it stops applying.
    """
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        if timezone.is_naive(value):
            raise InvalidField("expires", "An expiry needs a time zone offset.")
        return value
    if not isinstance(value, str):
        raise InvalidField("expires", "The expiry must be text: RFC 3339 or YYYY-MM-DD.")
    text = value.strip()
    if text == "":
        return ""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        try:
            day = dt.date.fromisoformat(text)
        except ValueError:
            raise InvalidField("expires", f"'{text}' is not a calendar date.") from None
        # The note stops applying when the next day begins, in the server's time zone.
        try:
            next_day = day + dt.timedelta(days=1)
        except OverflowError:
            raise InvalidField("expires", f"'{text}' is past the last date we can store.") from None
        return _storable(dt.datetime.combine(next_day, dt.time(), tzinfo=local_zone()), text)
    if not re.fullmatch(
        r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})", text
    ):
        raise InvalidField(
            "expires",
            f"'{text}' is not an RFC 3339 timestamp (2026-10-25T18:00:00Z) or a date (2026-10-25).",
        )
    try:
        moment = dt.datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        raise InvalidField("expires", f"'{text}' is not a valid date and time.") from None
    return _storable(moment, text)


def _storable(moment: dt.datetime, text: str) -> dt.datetime:
    """The store keeps UTC: an instant with no UTC year between 1 and 9999 is refused."""
    try:
        moment.astimezone(dt.UTC)
    except OverflowError:
        raise InvalidField("expires", f"'{text}' is outside the years 1 to 9999 in UTC.") from None
    return moment


def period(value, field: str = "unverified") -> dt.timedelta | None:
    """'90d', '12h', '2w', '30m' into a timedelta, written exactly so (the OpenAPI
    document's pattern is PERIOD_RE); empty is None."""
    if value is None or value == "":
        return None
    match = PERIOD_RE.fullmatch(str(value))
    if not match:
        raise InvalidField(
            field, f"'{value}' is not a period: a number and m, h, d or w, such as 90d."
        )
    return dt.timedelta(**{PERIOD_UNITS[match.group(2)]: int(match.group(1))})


DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
_EDGE_OF_TIME = {
    False: dt.datetime.min.replace(tzinfo=dt.UTC),
    True: dt.datetime.max.replace(tzinfo=dt.UTC),
}


def moment_bound(value: str, now: dt.datetime, *, field: str, until: bool, ahead: bool = False):
    """A date filter's bound as (moment, lookup): `value` is a period from now (`7d`: back
    from now, or forward when `ahead`), a date (YYYY-MM-DD: the whole day in the server's
    time zone, so `until` a date is before the next day starts) or an RFC 3339 moment (one
    without an offset read in the server's time zone)."""
    text = str(value).strip()
    if PERIOD_RE.fullmatch(text):
        span = period(text, field)
        try:
            moment = now + span if ahead else now - span
        except OverflowError:  # a period reaching past year 1 or 9999: the edge of time
            moment = _EDGE_OF_TIME[ahead]
        return moment, ("lte" if until else "gte")
    if DATE_RE.fullmatch(text):
        try:
            day = dt.date.fromisoformat(text)
        except ValueError:
            raise InvalidField(field, f"'{text}' is not a calendar date.") from None
        if until and day == dt.date.max:
            return _EDGE_OF_TIME[True], "lte"
        if until:
            day += dt.timedelta(days=1)
        start = timezone.make_aware(dt.datetime.combine(day, dt.time()), local_zone())
        return start, ("lt" if until else "gte")
    try:
        # A URL's unencoded "+" of an offset arrives as a space.
        moment = dt.datetime.fromisoformat(re.sub(r"T(.*) (\d{2}:\d{2})$", r"T\1+\2", text.upper()))
    except ValueError:
        raise InvalidField(
            field,
            "a date (2026-11-24), an RFC 3339 moment (2026-11-24T15:00:00Z) or a period from "
            f"now (7d) is expected, not '{text[:40]}'.",
        ) from None
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment, local_zone())
    return moment, ("lte" if until else "gte")


def period_words(value: str) -> str:
    match = PERIOD_RE.fullmatch(value)
    count, unit = int(match.group(1)), PERIOD_WORDS[match.group(2)]
    return f"{count} {unit}{'' if count == 1 else 's'}"


def rfc3339(moment: dt.datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def same_instant(value, moment: dt.datetime) -> bool:
    """Whether `value`, an RFC 3339 timestamp as the API writes one, is `moment`."""
    if not isinstance(value, str):
        return False
    try:
        given = dt.datetime.fromisoformat(value.strip().replace("z", "Z"))
    except ValueError:
        return False
    return given.tzinfo is not None and given == moment
