"""Django's PostgreSQL backend, writing a virtual generated column as a stored one.

The memories' tier (`Memory.tier`, the project or 0) is a virtual column on SQLite, where it
costs no space; PostgreSQL 15 has only stored generated columns, which serve the same unique
constraint and indexes.
"""

from django.db.backends.postgresql import base, features, schema


class DatabaseFeatures(features.DatabaseFeatures):
    supports_virtual_generated_columns = True  # written STORED by the schema editor below


class DatabaseSchemaEditor(schema.DatabaseSchemaEditor):
    def _column_generated_sql(self, field):
        expression_sql, params = field.generated_sql(self.connection)
        return f"GENERATED ALWAYS AS ({expression_sql}) STORED", params


class DatabaseWrapper(base.DatabaseWrapper):
    features_class = DatabaseFeatures
    SchemaEditorClass = DatabaseSchemaEditor
