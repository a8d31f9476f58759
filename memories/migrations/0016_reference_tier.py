"""The citing memory's tier on each reference row (memories_reference.tier), kept by the
reference triggers and by a trigger on a memory's move, with an index on (target, tier): the
dangling count reads which band cites each target off that index, where it read the citing
memory's row for its project (115 ms CPU against about 40 at 100,000 memories). The SQL is
frozen here as memories.engine.sqlite.index and memories.engine.postgresql.index wrote it.
"""

from django.db import migrations, models

from memories.engine.operations import RunSQLOn

SQLITE_FORWARD = [
    "DROP TRIGGER IF EXISTS memories_refs_ai",
    "DROP TRIGGER IF EXISTS memories_refs_au",
    """CREATE TRIGGER memories_refs_ai AFTER INSERT ON memories_memory BEGIN
    INSERT INTO memories_reference(memory_id, position, target, tier)
    SELECT new.id, key, value, coalesce(new.project_id, 0) FROM json_each(new.refs);
    INSERT INTO memories_tag(memory_id, position, tag)
    SELECT new.id, key, value FROM json_each(new.tags);
END""",
    """CREATE TRIGGER memories_refs_au AFTER UPDATE OF refs ON memories_memory
WHEN new.refs IS NOT old.refs BEGIN
    DELETE FROM memories_reference WHERE memory_id = old.id;
    INSERT INTO memories_reference(memory_id, position, target, tier)
    SELECT new.id, key, value, coalesce(new.project_id, 0) FROM json_each(new.refs);
END""",
    """CREATE TRIGGER memories_refs_tier_au AFTER UPDATE OF project_id ON memories_memory
WHEN new.project_id IS NOT old.project_id BEGIN
    UPDATE memories_reference SET tier = coalesce(new.project_id, 0) WHERE memory_id = new.id;
END""",
    "UPDATE memories_reference SET tier = (SELECT coalesce(m.project_id, 0) FROM memories_memory m WHERE m.id = memories_reference.memory_id)",
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS memories_refs_tier_au",
    "DROP TRIGGER IF EXISTS memories_refs_ai",
    "DROP TRIGGER IF EXISTS memories_refs_au",
    """CREATE TRIGGER memories_refs_ai AFTER INSERT ON memories_memory BEGIN
    INSERT INTO memories_reference(memory_id, position, target)
    SELECT new.id, key, value FROM json_each(new.refs);
    INSERT INTO memories_tag(memory_id, position, tag)
    SELECT new.id, key, value FROM json_each(new.tags);
END""",
    """CREATE TRIGGER memories_refs_au AFTER UPDATE OF refs ON memories_memory
WHEN new.refs IS NOT old.refs BEGIN
    DELETE FROM memories_reference WHERE memory_id = old.id;
    INSERT INTO memories_reference(memory_id, position, target)
    SELECT new.id, key, value FROM json_each(new.refs);
END""",
]
POSTGRESQL_FORWARD = [
    """CREATE OR REPLACE FUNCTION memories_refs_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM memories_reference WHERE memory_id = OLD.id;
    END IF;
    INSERT INTO memories_reference(memory_id, position, target, tier) SELECT NEW.id, j.position - 1, j.value, coalesce(NEW.project_id, 0) FROM jsonb_array_elements_text(NEW.refs) WITH ORDINALITY AS j(value, position);
    RETURN NULL;
END $$""",
    """CREATE OR REPLACE FUNCTION memories_refs_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE memories_reference SET tier = coalesce(NEW.project_id, 0) WHERE memory_id = NEW.id;
    RETURN NULL;
END $$""",
    """CREATE TRIGGER memories_refs_tier_au AFTER UPDATE OF project_id ON memories_memory
FOR EACH ROW WHEN (NEW.project_id IS DISTINCT FROM OLD.project_id)
EXECUTE FUNCTION memories_refs_move()""",
    "UPDATE memories_reference AS r SET tier = coalesce(m.project_id, 0) FROM memories_memory AS m WHERE m.id = r.memory_id",
]
POSTGRESQL_REVERSE = [
    "DROP TRIGGER IF EXISTS memories_refs_tier_au ON memories_memory",
    "DROP FUNCTION IF EXISTS memories_refs_move()",
    """CREATE OR REPLACE FUNCTION memories_refs_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM memories_reference WHERE memory_id = OLD.id;
    END IF;
    INSERT INTO memories_reference(memory_id, position, target) SELECT NEW.id, j.position - 1, j.value FROM jsonb_array_elements_text(NEW.refs) WITH ORDINALITY AS j(value, position);
    RETURN NULL;
END $$""",
]


class Migration(migrations.Migration):
    dependencies = [("memories", "0015_memory_tier_verified")]

    operations = [
        migrations.AddField(
            model_name="reference",
            name="tier",
            field=models.BigIntegerField(null=True),
        ),
        migrations.AddIndex(
            model_name="reference",
            index=models.Index(fields=["target", "tier"], name="reference_target_tier"),
        ),
        RunSQLOn("sqlite", SQLITE_FORWARD, SQLITE_REVERSE),
        RunSQLOn("postgresql", POSTGRESQL_FORWARD, POSTGRESQL_REVERSE),
    ]
