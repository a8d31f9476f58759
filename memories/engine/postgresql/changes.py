"""The change feed's signal on PostgreSQL: NOTIFY, which the server delivers to every
listening connection (every app server's) when the writing transaction commits, and never
if it rolls back. The notification only wakes a reader; what changed is read from the feed,
so one lost or merged (PostgreSQL folds a transaction's equal notifications into one)
loses nothing."""

import threading

# What the seam (memories.engine.PROVIDES) takes from this module, and nothing else.
__all__ = ["announce", "wait"]

CHANNEL = "memadmin_changes"
_listening: dict[int, threading.Event] = {}  # by the driver connection's id


def announce(connection) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, '')", [CHANNEL])


def wait(connection, timeout: float) -> None:
    """Return when a change may have been committed since the last return, or after
    `timeout` seconds at most. The connection listens from its first wait on; it must not
    be inside a transaction (a notification waits for the listener's transaction to end).
    The connection lost (a restart) is Django's DatabaseError, as from any query."""
    connection.ensure_connection()
    driver = connection.connection
    with connection.wrap_database_errors:
        heard = _listening.get(id(driver))
        if heard is None:
            heard = threading.Event()
            # Notifications that arrive while the connection runs a query are handed here.
            driver.add_notify_handler(lambda notification: heard.set())
            driver.execute(f"LISTEN {CHANNEL}")
            _listening.clear()  # a connection replaced (lost, closed) is not waited on again
            _listening[id(driver)] = heard
            heard.set()  # what committed before the LISTEN is read once
        if not heard.is_set():
            for _notification in driver.notifies(timeout=timeout, stop_after=1):
                break
    heard.clear()
