"""The FTS5 index and the triggers that keep it, the reference and tag tables and the
cross-tier name rule in step with memories_memory.

The SQL is frozen here as it was when this migration was written: later changes to the
engine package do not change what this migration did. It builds SQLite's index alone; a
PostgreSQL store gets its own in 0007.
"""

from django.db import migrations

from memories.engine.operations import RunSQLOn

FORWARD_SQL = [
    """
CREATE VIRTUAL TABLE memories_fts USING fts5(
    name, description, body,
    content='memories_memory', content_rowid='id',
    tokenize='porter unicode61'
)
""",
    """
CREATE TRIGGER memories_fts_ai AFTER INSERT ON memories_memory BEGIN
    INSERT INTO memories_fts(rowid, name, description, body)
    VALUES (new.id, new.name, new.description, new.body);
END""",
    """
CREATE TRIGGER memories_fts_ad AFTER DELETE ON memories_memory BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, name, description, body)
    VALUES ('delete', old.id, old.name, old.description, old.body);
END""",
    """
CREATE TRIGGER memories_fts_au AFTER UPDATE OF name, description, body ON memories_memory BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, name, description, body)
    VALUES ('delete', old.id, old.name, old.description, old.body);
    INSERT INTO memories_fts(rowid, name, description, body)
    VALUES (new.id, new.name, new.description, new.body);
END""",
    """
CREATE TRIGGER memories_refs_ai AFTER INSERT ON memories_memory BEGIN
    INSERT INTO memories_reference(memory_id, position, target)
    SELECT new.id, key, value FROM json_each(new.refs);
    INSERT INTO memories_tag(memory_id, position, tag)
    SELECT new.id, key, value FROM json_each(new.tags);
END""",
    """
CREATE TRIGGER memories_refs_au AFTER UPDATE OF refs ON memories_memory
WHEN new.refs IS NOT old.refs BEGIN
    DELETE FROM memories_reference WHERE memory_id = old.id;
    INSERT INTO memories_reference(memory_id, position, target)
    SELECT new.id, key, value FROM json_each(new.refs);
END""",
    """
CREATE TRIGGER memories_tags_au AFTER UPDATE OF tags ON memories_memory
WHEN new.tags IS NOT old.tags BEGIN
    DELETE FROM memories_tag WHERE memory_id = old.id;
    INSERT INTO memories_tag(memory_id, position, tag)
    SELECT new.id, key, value FROM json_each(new.tags);
END""",
    """
CREATE TRIGGER memories_refs_ad AFTER DELETE ON memories_memory BEGIN
    DELETE FROM memories_reference WHERE memory_id = old.id;
    DELETE FROM memories_tag WHERE memory_id = old.id;
END""",
    """
CREATE TRIGGER memories_cross_tier_bi BEFORE INSERT ON memories_memory
WHEN EXISTS (
    SELECT 1 FROM memories_memory AS other
    WHERE other.name = new.name
      AND (other.project_id IS NULL) != (new.project_id IS NULL)
) BEGIN
    SELECT RAISE(ABORT, 'a global name is never also a project''s name: choose another name');
END""",
    """
CREATE TRIGGER memories_cross_tier_bu BEFORE UPDATE OF name, project_id ON memories_memory
WHEN EXISTS (
    SELECT 1 FROM memories_memory AS other
    WHERE other.name = new.name AND other.id != new.id
      AND (other.project_id IS NULL) != (new.project_id IS NULL)
) BEGIN
    SELECT RAISE(ABORT, 'a global name is never also a project''s name: choose another name');
END""",
    """INSERT INTO memories_fts(memories_fts) VALUES ('rebuild')""",
]
REVERSE_SQL = [
    "DROP TRIGGER IF EXISTS memories_fts_ai",
    "DROP TRIGGER IF EXISTS memories_fts_ad",
    "DROP TRIGGER IF EXISTS memories_fts_au",
    "DROP TRIGGER IF EXISTS memories_refs_ai",
    "DROP TRIGGER IF EXISTS memories_refs_au",
    "DROP TRIGGER IF EXISTS memories_tags_au",
    "DROP TRIGGER IF EXISTS memories_refs_ad",
    "DROP TRIGGER IF EXISTS memories_cross_tier_bi",
    "DROP TRIGGER IF EXISTS memories_cross_tier_bu",
    "DROP TABLE IF EXISTS memories_fts",
]


class Migration(migrations.Migration):
    dependencies = [("memories", "0001_initial")]

    operations = [RunSQLOn("sqlite", FORWARD_SQL, REVERSE_SQL)]
