from django.core import checks
from django.db import connections
from django.db.migrations.executor import MigrationExecutor
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
                if not index.migrated(cursor) or _pending(connections[alias]):
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


def _pending(connection) -> bool:
    """Whether migrations remain to apply: a trigger a later migration adds is missing until
    `migrate` has run it, and migrate runs this check first."""
    executor = MigrationExecutor(connection)
    return bool(executor.migration_plan(executor.loader.graph.leaf_nodes()))
