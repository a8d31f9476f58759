"""PostgreSQL's search column kept in the row (storage MAIN) rather than in the TOAST table,
and each value stored afresh so that the ones already moved out come back: a common word's
search read a TOAST value for each of its longer matches (memories.engine.postgresql.index).
The SQL is frozen here as memories.engine.postgresql.index wrote it."""

from django.db import migrations

from memories.engine.operations import RunSQLOn

FORWARD_SQL = [
    "ALTER TABLE memories_memory ALTER COLUMN search SET STORAGE main",
    "UPDATE memories_memory SET search = search || ''::tsvector",
]

REVERSE_SQL = ["ALTER TABLE memories_memory ALTER COLUMN search SET STORAGE extended"]


class Migration(migrations.Migration):
    dependencies = [("memories", "0018_facet_indexes")]

    operations = [RunSQLOn("postgresql", FORWARD_SQL, REVERSE_SQL)]
