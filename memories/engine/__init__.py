"""The engine seam: everything that depends on which database holds the store.

An engine is a package `memories.engine.<vendor>`, named by Django's `connection.vendor`
("sqlite", the embedded default; "postgresql" is next). Code outside this package asks
`engine.of(connection)` and never names a dialect; a second engine is a second package with
the same modules and names, and nothing else changes. Engines are loaded by name when first
asked for, as Django loads a database backend, so that the settings can read an engine's
connection settings (`database()`) without loading Django's database layer.

An engine provides six modules:

`config`, the store's connections (imports nothing of Django's database layer)
    database(busy_timeout_ms, **options) -> dict: the DATABASES entry (driver, file or
        address, options); a writer waits busy_timeout_ms for another before is_busy.
    is_busy(problem) -> bool: whether an OperationalError means another writer held the
        store past the busy timeout (the pages and /v1 answer 503 and ask to retry).
    is_lost(problem) -> bool: whether an OperationalError means the connection to the server
        was lost mid-request (503 likewise; the next request opens another).
    without_waiting(connection): a context in which a statement meeting another writer's
        lock fails at once (is_busy) instead of waiting, for writes a read may skip.
    change_counter(connection): a value that differs whenever a change was committed to the
        store since it was read, for caches kept per connection (the API's tokens); None
        when there is none to trust (PostgreSQL inside a transaction): keep nothing.

`index`, the search index over name, description and body and the tables derived from the
memories table (the reference and tag rows, the tallies per tier, load and priority, per
day of verification and per pair of tags that memories.reads.tallies reads), kept in each
write's own transaction; the migrations create them, frozen
    migrated(cursor) -> bool: whether the memories table exists yet.
    missing_triggers(cursor) -> list[str]: the triggers keeping them in step that are gone.
    check() -> IndexReport: the derived tables compared with the memories table.
    rebuild(progress=None) -> list[str]: regenerate them; the triggers it put back.
        REBUILD_STEPS: how often `progress(1)` is told.

`search`, the statement `memories.reads.search` runs (see `memories.engine.ranking`)
    ranking_statement(plan: Plan, connection) -> (sql, params): the matches of the plan's
        parts, scored by the formula the plan carries, counted, and the page's memories
        joined; what the engine needs of the store to write it (PostgreSQL: the words'
        statistics) read through `connection`.
    ranked_rows(connection, sql, params) -> list[tuple]: the rows of a ranking statement,
        run with whatever planner settings the engine gives that statement alone.

`statements`, the pieces of other reads and writes that each dialect spells its own way
    values(items) -> (sql, params): a subquery of one column, `value`, holding the items,
        bound as one parameter however many there are.
    ordered_values(ids) -> (sql, params): a subquery of two columns, `value` holding the
        ids and `place` their position among them (ascending), bound as one parameter.
    byte_length(sql) -> str: the UTF-8 length in bytes of a text expression.
    utc_month(sql) -> str: the month of a moment, YYYY-MM in UTC (the facets' histograms).
    likelihood(condition_sql, share) -> str: the condition, declared to the planner to
        admit that share of the rows (or left as it is).
    unindexed(sql) -> str: a column's value, which the planner will not look up through
        an index (or left as it is).
    glob(lhs_sql, rhs_sql) -> str: `lhs` matches the shell pattern `rhs` (`*`, `?`, `[...]`,
        `[^...]`), for the CHECK constraints on names.
    json_values(sql, keys) -> str: the values of those keys of a JSON object column, as the
        text of a JSON array (a revision's snapshot read in part).
    KEYS_HOLD_ID_ORDER: whether the entries of one key of an index are in the order of the
        rows' ids, so that a key's rows walked in id order read that key's range alone.

`backup`, a copy of the whole store that a DBA can restore
    backup(destination: Path) -> BackupReport: a consistent copy of the store, taken while
        writers run, to a new file readable by its owner alone; checked before it is kept.
    check(path: Path) -> BackupReport: the engine's own integrity check of a backup.
    SUFFIX: the file name ending of a backup; RESTORE: the sentence saying how to restore one.

`changes`, how one app server learns that another committed a change (memories.reads.changes)
    announce(connection): a change row was written in the current transaction; readers
        everywhere are woken when it commits, never when it rolls back.
    wait(connection, timeout): return when a change may have been committed since the last
        return, or after timeout seconds; the reader then reads the feed past its last id.

Beside the engines, this package holds what every engine shares: `ranking` (the plan a
search hands `ranking_statement`, and the formula each engine's SQL is written from),
`tables` (the models' table names raw SQL uses), `hints` and `lookups` (ORM expressions
whose SQL the connection's engine writes), and `checks` (the system check on the triggers).
"""

import functools
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from types import ModuleType

from django.core.exceptions import ImproperlyConfigured

# What the docstring lists, by module: every engine's module provides exactly these names
# (its `__all__`), each callable taking the same parameters on every engine, so that an
# engine cannot grow a name of its own that callers come to lean on
# (tests/engine/test_engine_seam.py holds them to it).
PROVIDES = {
    "config": ("database", "is_busy", "is_lost", "without_waiting", "change_counter"),
    "index": ("migrated", "missing_triggers", "check", "rebuild", "REBUILD_STEPS"),
    "search": ("ranking_statement", "ranked_rows"),
    "statements": (
        "values",
        "ordered_values",
        "byte_length",
        "likelihood",
        "unindexed",
        "glob",
        "json_values",
        "KEYS_HOLD_ID_ORDER",
    ),
    "backup": ("backup", "check", "SUFFIX", "RESTORE"),
    "changes": ("announce", "wait"),
}


@dataclass(frozen=True)
class Engine:
    vendor: str
    config: ModuleType
    index: ModuleType
    search: ModuleType
    statements: ModuleType
    backup: ModuleType
    changes: ModuleType


@dataclass
class IndexReport:
    """What `index.check()` found: the problems (none when the derived tables are sound)."""

    problems: list[str] = field(default_factory=list)
    rows: int = 0
    documents: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class BackupReport:
    """A backup: where, its size, the memories it holds, and what its check found."""

    path: Path
    bytes: int
    memories: int
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@functools.cache
def for_vendor(vendor: str) -> Engine:
    try:
        modules = {name: import_module(f"{__name__}.{vendor}.{name}") for name in PROVIDES}
    except ModuleNotFoundError as missing:
        raise ImproperlyConfigured(f"memadmin has no engine for {vendor!r} ({missing})") from None
    return Engine(vendor=vendor, **modules)


def of(connection) -> Engine:
    """The engine of a database connection."""
    return for_vendor(connection.vendor)


def database(vendor: str, **options) -> dict:
    """The DATABASES entry of a store held by the engine `vendor` (for the settings)."""
    return import_module(f"{__name__}.{vendor}.config").database(**options)
