from django.core import checks
from django.db import connections
from django.db.utils import OperationalError

from memories.engine import sqlite as sqlite_index


@checks.register(checks.Tags.database)
def store_triggers_present(app_configs, databases=None, **kwargs):
    """A later AlterField rebuilds the SQLite table and silently drops its triggers."""
    errors = []
    for alias in databases or []:
        try:
            with connections[alias].cursor() as cursor:
                cursor.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = %s",
                    [sqlite_index.MEMORY_TABLE],
                )
                if cursor.fetchone() is None:
                    continue  # not migrated yet
                missing = sqlite_index.missing_triggers(cursor)
        except OperationalError:
            continue
        if missing:
            errors.append(
                checks.Error(
                    "The memory store's triggers are missing: " + ", ".join(missing) + ".",
                    hint="Without them the search index and reference table drift from the "
                    "memories. Run `python manage.py memory verify --rebuild` to put them "
                    "back, and put the triggers back in any migration that alters the table.",
                    id="memories.E001",
                )
            )
    return errors
