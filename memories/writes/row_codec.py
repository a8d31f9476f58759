"""A memory's row as the raw write statements write it: one column list, one marshaller.

The doors' upsert and move, the import and the put-back of restore and undo write a memory
by raw SQL (an upsert that never assigns created_at on update, a snapshot's own stamps, a row
under its recorded id). Each builds its statement from the columns here and binds a row
through `bound()`, so a field a write carries is added in this module, once.
"""

import json

from django.db import connection

from memories.engine.tables import MEMORY_TABLE

# A memory's columns in the order every statement names them: what a write gives (`refs`
# being the field a write and a snapshot call "references"), then its stamps.
CONTENT = ("description", "body", "tags", "refs", "priority", "load", "source")
STAMPS = ("created_at", "updated_at", "verified_at", "expires_at")
_READ_STAMPS = ("last_read_at",)

_GIVEN_AS = {"refs": "references"}
_JSON = frozenset(("tags", "refs"))
_MOMENTS = frozenset((*STAMPS, *_READ_STAMPS))


def db_datetime(moment):
    """A datetime as the raw SQL of the doors binds it."""
    return None if moment is None else connection.ops.adapt_datetimefield_value(moment)


def content(given) -> dict:
    """The CONTENT columns of a write, from a mapping of its fields as a write names them (a
    door's state, a snapshot's entry, a recorded state)."""
    return {column: given[_GIVEN_AS.get(column, column)] for column in CONTENT}


def bound(row: dict, columns: tuple[str, ...]) -> list:
    """The parameters of a statement over `columns`, each value of `row` (column -> value) as
    its column is bound: the lists as JSON text, the moments as the connection binds them."""
    params = []
    for column in columns:
        value = row[column]
        if column in _JSON:
            value = json.dumps(value, ensure_ascii=False)
        elif column in _MOMENTS:
            value = db_datetime(value)
        params.append(value)
    return params


def insert(columns: tuple[str, ...], *, unread: bool = False) -> str:
    """INSERT of a memory's `columns`, bound in that order; `unread`: read_count 0, unbound."""
    names, marks = list(columns), ["%s"] * len(columns)
    if unread:
        names.append("read_count")
        marks.append("0")
    return f"INSERT INTO {MEMORY_TABLE} ({', '.join(names)}) VALUES ({', '.join(marks)})"


def update(columns: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """UPDATE of a memory's `columns` by id, and the columns `bound` takes for it (the id
    last)."""
    assigned = ", ".join(f"{column} = %s" for column in columns)
    return f"UPDATE {MEMORY_TABLE} SET {assigned} WHERE id = %s", (*columns, "id")
