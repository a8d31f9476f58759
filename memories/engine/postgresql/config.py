"""The store's PostgreSQL connections: the address from MEMADMIN_DATABASE_URL, and the
errors a page or /v1 answers 503 rather than 500.

Read by the settings, so it imports nothing of Django's database layer (the driver is no
part of it).
"""

import contextlib
from collections.abc import Iterator
from urllib.parse import unquote, urlsplit

import psycopg

# What the seam (memories.engine.PROVIDES) takes from this module, and nothing else.
__all__ = ["database", "is_busy", "is_lost", "without_waiting", "change_counter"]

SCHEMES = ("postgres", "postgresql")
# Lock timeout, deadlock, serialization failure.
BUSY_STATES = ("55P03", "40P01", "40001")
# Connection exceptions; the server shutting down, or this backend terminated.
LOST_CLASSES = ("08", "57")


class AddressError(ValueError):
    """MEMADMIN_DATABASE_URL does not name a PostgreSQL database."""


def database(*, url: str, busy_timeout_ms: int) -> dict:
    """The DATABASES entry of the store at `postgres://user:password@host:port/name`.

    Persistent connections as on SQLite, checked before each request reuses one, so a
    connection the server dropped is replaced by the next request instead of failing it.
    """
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise AddressError(f"it starts with {parts.scheme or 'nothing'}://, not postgres://")
    name = unquote(parts.path.lstrip("/"))
    if not name or "/" in name:
        raise AddressError("it names no database after the host (postgres://host/NAME)")
    try:
        port = parts.port
    except ValueError:
        raise AddressError("its port is not a number") from None
    return {
        "ENGINE": "memories.engine.postgresql.backend",
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(port or ""),
        "CONN_MAX_AGE": None,
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": {
            "connect_timeout": 10,
            # A store's pages are in memory or on SSD: at the default random_page_cost (4,
            # for spinning disks) the planner would rather read every tag row than look a few
            # hundred up by index (the band's left-out tags:
            # bench/results/2026-12-04-figures-from-comments),
            # and a prefix search would test every row rather than read its matches through
            # the GIN index. No JIT: a search's cost estimate passes jit_above_cost from
            # about a million memories, and compiling it took several times the statement's
            # own CPU time (bench/results/2026-12-01-pgsearch).
            "options": f"-c lock_timeout={busy_timeout_ms} -c random_page_cost=1.1 -c jit=off",
            "application_name": "memadmin",
        },
    }


def is_busy(problem) -> bool:
    """Whether an OperationalError is a writer that waited out lock_timeout for another (or
    lost a deadlock to one)."""
    cause = getattr(problem, "__cause__", None)
    return getattr(cause, "sqlstate", None) in BUSY_STATES


def is_lost(problem) -> bool:
    """Whether an OperationalError is the connection to the server lost mid-request (a
    restart, a failover, a terminated backend). Django closes a connection that failed
    when the request ends, and the next request opens a new one."""
    cause = getattr(problem, "__cause__", None)
    state = getattr(cause, "sqlstate", None)
    if state is None:
        # No SQLSTATE came back: the driver's own word that no server answers.
        return isinstance(cause, psycopg.OperationalError)
    return state[:2] in LOST_CLASSES


@contextlib.contextmanager
def without_waiting(connection) -> Iterator[None]:
    """Statements inside fail at once (is_busy: lock_timeout) when another writer holds a
    lock they need, rather than waiting out the lock timeout. Inside a transaction they run
    in a savepoint, so that their failure (which the rollback to it undoes, the SET with
    it) leaves the transaction usable."""
    savepoint = connection.savepoint() if connection.in_atomic_block else None
    with connection.cursor() as cursor:
        cursor.execute("SET lock_timeout = 1")  # milliseconds; 0 would mean never time out
        try:
            yield
        except Exception:
            if savepoint is None:
                cursor.execute("RESET lock_timeout")
            else:
                connection.savepoint_rollback(savepoint)
            raise
        cursor.execute("RESET lock_timeout")
        if savepoint is not None:
            connection.savepoint_commit(savepoint)


def change_counter(connection):
    """A value that differs whenever a change was committed to the store since it was read:
    the current snapshot (the transactions in progress and the next id) moves with every
    commit of a transaction that wrote. A write inside the reader's own open transaction
    does not move it, so inside one there is no counter (None): nothing is kept."""
    if connection.in_atomic_block:
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_snapshot()::text")
        return cursor.fetchone()[0]
