from django.core import checks
from django.db import connections
from django.db.utils import OperationalError

from memories import engine


@checks.register(checks.Tags.database)
def store_triggers_present(app_configs, databases=None, **kwargs):
    """A later AlterField can rebuild the memories table and silently drop its triggers."""
    errors = []
    for alias in databases or []:
        index = engine.of(connections[alias]).index
        try:
            with connections[alias].cursor() as cursor:
                if not index.migrated(cursor):
                    continue
                missing = index.missing_triggers(cursor)
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
