"""The citing memory's place in the index order on each reference row (its priority and
created_at), kept by the reference triggers and by a trigger as a memory's priority changes,
with the index reference_citer_order: a dangling target's first citers are its first rows.
The SQL is frozen here as memories.engine's sqlite and postgresql index modules wrote it."""

from django.db import migrations, models

from memories.engine.operations import RunSQLOn

SQLITE_SQL = [
    "DROP TRIGGER IF EXISTS memories_refs_ai",
    "DROP TRIGGER IF EXISTS memories_refs_au",
    "CREATE TRIGGER memories_refs_ai AFTER INSERT ON memories_memory BEGIN\n    INSERT INTO memories_reference(memory_id, position, target, tier, priority, created_at)\n    SELECT new.id, key, value, coalesce(new.project_id, 0), new.priority, new.created_at\n    FROM json_each(new.refs);\n    INSERT INTO memories_tag(memory_id, position, tag, tier, verified_at, expires_at)\n    SELECT new.id, key, value, coalesce(new.project_id, 0), new.verified_at, new.expires_at\n    FROM json_each(new.tags);\nEND",
    "CREATE TRIGGER memories_refs_au AFTER UPDATE OF refs ON memories_memory\nWHEN new.refs IS NOT old.refs BEGIN\n    DELETE FROM memories_reference WHERE memory_id = old.id;\n    INSERT INTO memories_reference(memory_id, position, target, tier, priority, created_at)\n    SELECT new.id, key, value, coalesce(new.project_id, 0), new.priority, new.created_at\n    FROM json_each(new.refs);\nEND",
    "CREATE TRIGGER memories_refs_order_au AFTER UPDATE OF priority, created_at ON memories_memory\nWHEN new.priority IS NOT old.priority OR new.created_at IS NOT old.created_at BEGIN\n    UPDATE memories_reference SET priority = new.priority, created_at = new.created_at\n    WHERE memory_id = new.id;\nEND",
    "UPDATE memories_reference SET priority = m.priority, created_at = m.created_at FROM memories_memory AS m WHERE m.id = memories_reference.memory_id",
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS memories_refs_order_au",
    "DROP TRIGGER IF EXISTS memories_refs_ai",
    "DROP TRIGGER IF EXISTS memories_refs_au",
    "CREATE TRIGGER memories_refs_ai AFTER INSERT ON memories_memory BEGIN\n    INSERT INTO memories_reference(memory_id, position, target, tier)\n    SELECT new.id, key, value, coalesce(new.project_id, 0) FROM json_each(new.refs);\n    INSERT INTO memories_tag(memory_id, position, tag, tier, verified_at, expires_at)\n    SELECT new.id, key, value, coalesce(new.project_id, 0), new.verified_at, new.expires_at\n    FROM json_each(new.tags);\nEND",
    "CREATE TRIGGER memories_refs_au AFTER UPDATE OF refs ON memories_memory\nWHEN new.refs IS NOT old.refs BEGIN\n    DELETE FROM memories_reference WHERE memory_id = old.id;\n    INSERT INTO memories_reference(memory_id, position, target, tier)\n    SELECT new.id, key, value, coalesce(new.project_id, 0) FROM json_each(new.refs);\nEND",
]
POSTGRESQL_SQL = [
    "CREATE OR REPLACE FUNCTION memories_refs_keep() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    IF TG_OP = 'UPDATE' THEN\n        DELETE FROM memories_reference WHERE memory_id = OLD.id;\n    END IF;\n    INSERT INTO memories_reference(memory_id, position, target, tier, priority, created_at) SELECT NEW.id, j.position - 1, j.value, coalesce(NEW.project_id, 0), NEW.priority, NEW.created_at FROM jsonb_array_elements_text(NEW.refs) WITH ORDINALITY AS j(value, position);\n    RETURN NULL;\nEND $$",
    "CREATE OR REPLACE FUNCTION memories_refs_order() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    UPDATE memories_reference SET priority = NEW.priority, created_at = NEW.created_at\n    WHERE memory_id = NEW.id;\n    RETURN NULL;\nEND $$",
    "CREATE TRIGGER memories_refs_order_au AFTER UPDATE OF priority, created_at ON memories_memory\nFOR EACH ROW WHEN (\n    NEW.priority IS DISTINCT FROM OLD.priority OR NEW.created_at IS DISTINCT FROM OLD.created_at\n) EXECUTE FUNCTION memories_refs_order()",
    "UPDATE memories_reference AS r SET priority = m.priority, created_at = m.created_at FROM memories_memory AS m WHERE m.id = r.memory_id",
]
POSTGRESQL_REVERSE = [
    "DROP TRIGGER IF EXISTS memories_refs_order_au ON memories_memory",
    "DROP FUNCTION IF EXISTS memories_refs_order()",
    "CREATE OR REPLACE FUNCTION memories_refs_keep() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    IF TG_OP = 'UPDATE' THEN\n        DELETE FROM memories_reference WHERE memory_id = OLD.id;\n    END IF;\n    INSERT INTO memories_reference(memory_id, position, target, tier) SELECT NEW.id, j.position - 1, j.value, coalesce(NEW.project_id, 0) FROM jsonb_array_elements_text(NEW.refs) WITH ORDINALITY AS j(value, position);\n    RETURN NULL;\nEND $$",
]


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0026_orphans"),
    ]

    operations = [
        migrations.AddField(
            model_name="reference",
            name="created_at",
            field=models.DateTimeField(null=True),
        ),
        migrations.AddField(
            model_name="reference",
            name="priority",
            field=models.IntegerField(null=True),
        ),
        # Filled before the index is made, so the index is built once.
        RunSQLOn("sqlite", SQLITE_SQL, SQLITE_REVERSE),
        RunSQLOn("postgresql", POSTGRESQL_SQL, POSTGRESQL_REVERSE),
        migrations.AddIndex(
            model_name="reference",
            index=models.Index(
                fields=["target", "priority", "-created_at", "-memory", "tier"],
                name="reference_citer_order",
            ),
        ),
    ]
