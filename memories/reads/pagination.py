"""Keyset pagination: a page starts after (or ends before) the sort key of a row, so page 2,000
costs what page 1 costs, where OFFSET would walk every row before it.

A cursor is the sort key of its row, encoded URL-safe. A nullable key (expires_at) sorts as
if NULL were later than every value: never expiring comes last going up, first going down.
"""

import base64
import datetime as dt
import json
from dataclasses import dataclass

from django.db.models import F, Q, QuerySet

from memories.rules.errors import InvalidField

NULLABLE = {"expires_at"}
DATETIMES = {"created_at", "updated_at", "verified_at", "expires_at"}
INTEGERS = {"id", "tier", "priority", "read_count"}
STRINGS = {"name", "load"}


@dataclass(frozen=True)
class Key:
    field: str
    descending: bool

    @classmethod
    def parse(cls, spec: str) -> "Key":
        return cls(spec.lstrip("-"), spec.startswith("-"))

    def reversed(self) -> "Key":
        return Key(self.field, not self.descending)

    def order(self):
        expression = F(self.field)
        if self.field in NULLABLE:
            if self.descending:
                return expression.desc(nulls_first=True)
            return expression.asc(nulls_last=True)
        return expression.desc() if self.descending else expression.asc()


def encode(keys: list[Key], row) -> str:
    values = []
    for key in keys:
        value = getattr(row, key.field)
        values.append(value.isoformat() if isinstance(value, dt.datetime) else value)
    raw = json.dumps(values, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _plain_value_fits(field: str, value) -> bool:
    if field in INTEGERS:
        return isinstance(value, int) and not isinstance(value, bool)
    return field in STRINGS and isinstance(value, str)


def decode(keys: list[Key], cursor: str, parameter: str = "after") -> list:
    """The key values a cursor carries, each checked against its field's type; `parameter`
    names where it came from (after or before) in the refusal."""
    refusal = InvalidField(
        parameter,
        f"That page link is not valid: its {parameter}= is no cursor this list gives; start "
        "again from the first page.",
    )
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        values = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise refusal from None
    if not isinstance(values, list) or len(values) != len(keys):
        raise refusal
    decoded = []
    for key, value in zip(keys, values, strict=True):
        if value is None and key.field in NULLABLE:
            decoded.append(None)
        elif key.field in DATETIMES and isinstance(value, str):
            try:
                moment = dt.datetime.fromisoformat(value)
            except ValueError:
                raise refusal from None
            if moment.tzinfo is None:
                raise refusal
            decoded.append(moment)
        elif _plain_value_fits(key.field, value):
            decoded.append(value)
        else:
            raise refusal
    return decoded


def _beyond(key: Key, value) -> Q | None:
    """Rows strictly past `value` in the key's direction; None when no row can be."""
    field = key.field
    if key.field not in NULLABLE:
        return Q(**{f"{field}__{'lt' if key.descending else 'gt'}": value})
    if value is None:
        return None if not key.descending else Q(**{f"{field}__isnull": False})
    if key.descending:
        return Q(**{f"{field}__lt": value})
    return Q(**{f"{field}__gt": value}) | Q(**{f"{field}__isnull": True})


def _equal(key: Key, value) -> Q:
    if value is None:
        return Q(**{f"{key.field}__isnull": True})
    return Q(**{key.field: value})


def after(keys: list[Key], values: list) -> Q:
    """Rows that sort after the row whose key is `values`."""
    condition: Q | None = None
    for key, value in reversed(list(zip(keys, values, strict=True))):
        beyond = _beyond(key, value)
        tail = _equal(key, value) & condition if condition is not None else None
        parts = [part for part in (beyond, tail) if part is not None]
        if not parts:
            condition = Q(pk__in=[])
        else:
            condition = parts[0] if len(parts) == 1 else parts[0] | parts[1]
    return condition


def leading_bound(key: Key, value) -> Q | None:
    """The first key's inclusive bound, which an index range scan can use on its own."""
    if value is None or key.field in NULLABLE:
        return None
    return Q(**{f"{key.field}__{'lte' if key.descending else 'gte'}": value})


@dataclass
class KeysetPage:
    rows: list
    next_cursor: str | None
    previous_cursor: str | None


def page(
    queryset: QuerySet,
    keys: list[Key],
    *,
    limit: int,
    after_cursor: str | None = None,
    before_cursor: str | None = None,
    offset: int = 0,
    fields: tuple[str, ...] | None = None,
) -> KeysetPage:
    """One page of `queryset` in the order of `keys` (the last key must be unique).

    `offset` skips rows first (a page by offset that still gives its cursors). `fields`
    reads the rows as plain named rows of those fields (which hold the keys) rather than as
    model objects.
    """
    backwards = bool(before_cursor)
    order = [key.reversed() for key in keys] if backwards else keys
    bounded = queryset
    cursor = before_cursor or after_cursor
    if cursor:
        values = decode(keys, cursor, "before" if backwards else "after")
        bounded = bounded.filter(after(order, values))
        lead = leading_bound(order[0], values[0])
        if lead is not None:
            bounded = bounded.filter(lead)
    ordered = bounded.order_by(*(key.order() for key in order))
    if fields is not None:
        ordered = ordered.values_list(*fields, named=True)
    rows = list(ordered[offset : offset + limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    if backwards:
        rows = rows[::-1]
        return KeysetPage(
            rows=rows,
            next_cursor=encode(keys, rows[-1]) if rows else None,
            previous_cursor=encode(keys, rows[0]) if rows and more else None,
        )
    return KeysetPage(
        rows=rows,
        next_cursor=encode(keys, rows[-1]) if rows and more else None,
        previous_cursor=encode(keys, rows[0]) if rows and (after_cursor or offset) else None,
    )
