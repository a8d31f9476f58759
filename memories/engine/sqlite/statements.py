"""SQLite's spelling of the pieces of the reads and writes that each dialect spells its own way."""

import json

# What the seam (memories.engine.PROVIDES) takes from this module, and nothing else.
__all__ = [
    "values",
    "ordered_values",
    "byte_length",
    "likelihood",
    "unindexed",
    "glob",
    "json_values",
    "KEYS_HOLD_ID_ORDER",
]

# An index's key is followed by the rowid, the table's INTEGER PRIMARY KEY.
KEYS_HOLD_ID_ORDER = True


def values(items) -> tuple[str, list]:
    """A subquery of one column, `value`, holding the items.

    One JSON parameter rather than thousands: Django prepares each value of an IN list, and
    SQLite caps the bound variables of a statement.
    """
    return "SELECT value FROM json_each(%s)", [json.dumps(list(items))]


def ordered_values(items: list[int]) -> tuple[str, list]:
    """A subquery of two columns, `value` (the ids, one JSON parameter) and `place`, each
    one's position among them, ascending."""
    return "SELECT value, key AS place FROM json_each(%s)", [json.dumps(list(items))]


def byte_length(sql: str) -> str:
    """length() of a BLOB counts bytes; of the TEXT itself, characters."""
    return f"length(CAST({sql} AS BLOB))"


def utc_month(sql: str) -> str:
    """The month (YYYY-MM, UTC) of a moment: Django keeps SQLite's as UTC text, whose first
    seven characters are its month (no function called a row, as TruncMonth's is)."""
    return f"substr({sql}, 1, 7)"


def likelihood(condition_sql: str, share: float) -> str:
    return f"likelihood({condition_sql}, {float(share)!r})"


def unindexed(sql: str) -> str:
    """Unary plus: the same value, which SQLite will not look up through an index."""
    return f"+{sql}"


def glob(lhs_sql: str, rhs_sql: str) -> str:
    """GLOB is built in: the CHECK holds on any connection to the file (the sqlite3 shell, a
    backup script), where `__regex` would call a function only Django's connections have."""
    return f"{lhs_sql} GLOB {rhs_sql}"


def json_values(sql: str, keys: tuple[str, ...]) -> str:
    """The values of these keys of a JSON object, as the text of a JSON array: one parse of
    the object (a json_extract of several paths), where a json_extract a key parsed it again
    for each."""
    paths = ", ".join(f"'$.{key}'" for key in keys)
    if len(keys) == 1:
        return f"json_array(json_extract({sql}, {paths}))"
    return f"json_extract({sql}, {paths})"
