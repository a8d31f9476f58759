"""Migration operations whose SQL belongs to one engine.

A migration that builds an engine's own parts (SQLite's FTS5 table, PostgreSQL's search
column) runs its SQL on that engine's stores and does nothing on the other's, so either
store is built by the same list of migrations and an existing store's history stays valid.
"""

from django.db import migrations


class RunSQLOn(migrations.RunSQL):
    """RunSQL on connections of `vendor` alone."""

    def __init__(self, vendor: str, sql, reverse_sql=None, **kwargs):
        super().__init__(sql, reverse_sql, **kwargs)
        self.vendor = vendor

    def deconstruct(self):
        name, args, kwargs = super().deconstruct()
        return name, [self.vendor, *args], kwargs

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == self.vendor:
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == self.vendor:
            super().database_backwards(app_label, schema_editor, from_state, to_state)

    def describe(self):
        return f"Raw SQL operation on {self.vendor}"
