"""Django's PostgreSQL backend, with the two things the store needs of it.

* The memories' tier (`Memory.tier`, the project or 0) is a virtual column on SQLite, where
  it costs no space; PostgreSQL 15 has only stored generated columns, which serve the same
  unique constraint and indexes, so a virtual one is written STORED.
* A transaction takes the store's write lock when it begins, as SQLite's BEGIN IMMEDIATE
  does: the doors read a memory, hold it against If-Match, the body the caller saw and the
  inline budget, then write, and a second writer (another worker, another app server) waits
  until the first commits and then reads what it wrote, so nothing is lost and no band goes
  past its budget. Statements outside a transaction (the pages' reads) take no lock; a
  writer waits at most lock_timeout (config) and is then answered as a busy store.
"""

from django.db.backends.postgresql import base, features, schema

WRITE_LOCK = 0x6D656D61  # "mema": the key of the advisory lock writers hold in turn


class DatabaseFeatures(features.DatabaseFeatures):
    supports_virtual_generated_columns = True  # written STORED by the schema editor below


class DatabaseSchemaEditor(schema.DatabaseSchemaEditor):
    def _column_generated_sql(self, field):
        expression_sql, params = field.generated_sql(self.connection)
        return f"GENERATED ALWAYS AS ({expression_sql}) STORED", params


class DatabaseWrapper(base.DatabaseWrapper):
    features_class = DatabaseFeatures
    SchemaEditorClass = DatabaseSchemaEditor

    def _set_autocommit(self, autocommit):
        super()._set_autocommit(autocommit)
        if not autocommit:
            # On the driver's connection: the lock is the transaction's first statement,
            # not a query of the code that opened it. Its failures are Django's errors.
            with self.wrap_database_errors:
                self.connection.execute("SELECT pg_advisory_xact_lock(%s)", [WRITE_LOCK])
