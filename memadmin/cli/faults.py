"""A store a command cannot use ends the command with one sentence, not a traceback.

Busy past the wait, a server that does not answer or refuses the password, a file that is
not a store, a store never migrated, a data dir or setting that cannot be used: each is the
command's error (stderr, a non-zero exit), as a refusal of the domain is. Every memadmin
command is a StoreCommand; manage.py runs through `main` for what fails before a command
starts (the settings).
"""

import sys
from contextlib import contextmanager

from django.core.exceptions import ImproperlyConfigured
from django.core.management import execute_from_command_line
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, DataError, IntegrityError, connection

from memories import engine


def _store() -> str:
    """The store in words: its file, or its database and server."""
    settings = connection.settings_dict
    if not settings.get("HOST"):
        return f"The store {settings['NAME']}"
    port = f":{settings['PORT']}" if settings.get("PORT") else ""
    return f"The store's database '{settings['NAME']}' on {settings['HOST']}{port}"


def _reason(error: DatabaseError) -> str:
    """The driver's own words for the fault, on one line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return " ".join(lines).rstrip(".") or type(error).__name__


def _built() -> bool:
    """Whether the store holds its tables (True when even that cannot be asked)."""
    try:
        with connection.cursor() as cursor:
            return engine.of(connection).index.migrated(cursor)
    except DatabaseError:
        return True


def sentence(error: DatabaseError) -> str:
    """What a command says when the store failed it."""
    config = engine.of(connection).config
    if config.is_busy(error):
        return (
            f"{_store()} is busy: another process held it past the wait, so nothing was "
            "changed; try again when that process is done."
        )
    if config.is_lost(error):
        return f"{_store()} could not be opened ({_reason(error)}); nothing was changed."
    if not _built():
        return f"{_store()} has no tables yet: run `manage.py migrate` first."
    return f"{_store()} could not be used ({_reason(error)}); nothing was changed."


@contextmanager
def store_faults():
    try:
        yield
    except (IntegrityError, DataError):
        raise  # a bug of ours, not a fault of the store: its traceback is wanted
    except DatabaseError as error:
        raise CommandError(sentence(error)) from None


class StoreCommand(BaseCommand):
    """A management command on the store: its faults end it in one sentence."""

    def execute(self, *args, **options):
        with store_faults():
            return super().execute(*args, **options)


def main(argv: list[str]) -> None:
    """manage.py: a setting that cannot be used (a bad MEMADMIN_* value, a data dir that
    cannot be made or read) is one sentence on stderr and exit status 1."""
    try:
        execute_from_command_line(argv)
    except ImproperlyConfigured as error:
        sys.stderr.write(f"Error: {error}\n")
        sys.exit(1)
