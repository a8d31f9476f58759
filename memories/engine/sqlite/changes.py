"""The change feed's signal on SQLite: a file has no notifications, so a server learns of a
change by reading the feed. A change committed in this process wakes its waiters at once;
one committed by another process (another worker, another app server) is found by the next
read, POLL_SECONDS later at most."""

import threading

from django.db import transaction

# What the seam (memories.engine.PROVIDES) takes from this module, and nothing else.
__all__ = ["announce", "wait"]

POLL_SECONDS = 0.1
_committed = threading.Event()


def announce(connection) -> None:
    """A change row was written in the current transaction: wake this process's readers
    once it commits (never, if it rolls back)."""
    transaction.on_commit(_committed.set, using=connection.alias)


def wait(connection, timeout: float) -> None:
    """Return when a change may have been committed since the last return, or after
    `timeout` seconds at most."""
    if _committed.wait(min(timeout, POLL_SECONDS)):
        _committed.clear()
