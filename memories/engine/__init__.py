"""The engine seam: everything that depends on which database holds the store.

The rest of the code asks `engine.current()` (or the functions here) and never names a
dialect. An engine provides:

* the search index: its schema and triggers (frozen in the migrations), `check()` against
  the memories table and `rebuild()`;
* whether an OperationalError means the store is busy with another writer (`is_busy`).

SQLite (`memories.engine.sqlite`) is the embedded default.
"""

from django.db import OperationalError, connection

from memories.engine import sqlite

_ENGINES = {"sqlite": sqlite}


def current():
    """The engine of the store's connection."""
    return _ENGINES[connection.vendor]


def is_busy(problem: OperationalError) -> bool:
    """Whether the store refused because another writer held it past the busy timeout."""
    return current().is_busy(problem)
