"""SQLite's spelling of the pieces of the reads and writes that each dialect spells its own way."""

import json

from memories.engine.sqlite.index import FTS_TABLE
from memories.engine.sqlite.search import quote


def values(items) -> tuple[str, list]:
    """A subquery of one column, `value`, holding the items.

    One JSON parameter rather than thousands: Django prepares each value of an IN list, and
    SQLite caps the bound variables of a statement.
    """
    return "SELECT value FROM json_each(%s)", [json.dumps(list(items))]


def description_matches(word_sets: list[list[str]], limit: int) -> tuple[str, list]:
    """The ids of memories whose description holds every word of one of the sets."""
    conjunctions = [" AND ".join(quote(word) for word in words) for words in word_sets]
    if len(conjunctions) == 1:
        match = conjunctions[0]
    else:
        match = " OR ".join(f"({conjunction})" for conjunction in conjunctions)
    # No join: joined, SQLite may drive the query from the memories table and probe the
    # index once per row.
    return (
        f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s LIMIT {int(limit)}",
        ["description : (" + match + ")"],
    )


def byte_length(sql: str) -> str:
    """length() of a BLOB counts bytes; of the TEXT itself, characters."""
    return f"length(CAST({sql} AS BLOB))"


def likelihood(condition_sql: str, share: float) -> str:
    return f"likelihood({condition_sql}, {float(share)!r})"


def unindexed(sql: str) -> str:
    """Unary plus: the same value, which SQLite will not look up through an index."""
    return f"+{sql}"


def glob(lhs_sql: str, rhs_sql: str) -> str:
    """GLOB is built in: the CHECK holds on any connection to the file (the sqlite3 shell, a
    backup script), where `__regex` would call a function only Django's connections have."""
    return f"{lhs_sql} GLOB {rhs_sql}"
