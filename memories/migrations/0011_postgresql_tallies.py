"""PostgreSQL's tallies (migration 0010 made the tables, and SQLite's triggers): a PL/pgSQL
trigger keeping them in each write's statement, and a first count. The SQL is frozen here as
memories.engine.postgresql.index wrote it."""

from django.db import migrations

from memories.engine.operations import RunSQLOn

FORWARD_SQL = [
    "CREATE OR REPLACE FUNCTION memories_tally_keep() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    IF TG_OP IN ('UPDATE', 'DELETE') THEN\n        UPDATE memories_bandtally\n        SET memories = memories - 1, body_bytes = body_bytes - octet_length(OLD.body)\n        WHERE tier = coalesce(OLD.project_id, 0) AND load = OLD.load AND priority = OLD.priority;\n        DELETE FROM memories_bandtally WHERE tier = coalesce(OLD.project_id, 0) AND load = OLD.load\n            AND priority = OLD.priority AND memories <= 0;\n        UPDATE memories_tagtally AS t SET memories = t.memories - gone.n\n        FROM (SELECT value, count(*) AS n FROM jsonb_array_elements_text(OLD.tags)\n              GROUP BY value) AS gone\n        WHERE t.tier = coalesce(OLD.project_id, 0) AND t.load = OLD.load AND t.tag = gone.value;\n        DELETE FROM memories_tagtally WHERE tier = coalesce(OLD.project_id, 0) AND load = OLD.load AND memories <= 0;\n    END IF;\n    IF TG_OP IN ('INSERT', 'UPDATE') THEN\n        INSERT INTO memories_bandtally AS t (tier, load, priority, memories, body_bytes)\n        VALUES (coalesce(NEW.project_id, 0), NEW.load, NEW.priority, 1, octet_length(NEW.body))\n        ON CONFLICT (tier, load, priority) DO UPDATE\n            SET memories = t.memories + 1, body_bytes = t.body_bytes + excluded.body_bytes;\n        INSERT INTO memories_tagtally AS t (tier, load, tag, memories)\n        SELECT coalesce(NEW.project_id, 0), NEW.load, value, count(*)\n        FROM jsonb_array_elements_text(NEW.tags) GROUP BY value\n        ON CONFLICT (tier, load, tag) DO UPDATE SET memories = t.memories + excluded.memories;\n    END IF;\n    RETURN NULL;\nEND $$",
    "CREATE TRIGGER memories_tally_ai AFTER INSERT ON memories_memory\nFOR EACH ROW EXECUTE FUNCTION memories_tally_keep()",
    "CREATE TRIGGER memories_tally_ad AFTER DELETE ON memories_memory\nFOR EACH ROW EXECUTE FUNCTION memories_tally_keep()",
    "CREATE TRIGGER memories_tally_au\nAFTER UPDATE OF project_id, load, priority, body, tags ON memories_memory\nFOR EACH ROW WHEN (\n    OLD.project_id IS DISTINCT FROM NEW.project_id OR OLD.load IS DISTINCT FROM NEW.load\n    OR OLD.priority IS DISTINCT FROM NEW.priority OR OLD.body IS DISTINCT FROM NEW.body\n    OR OLD.tags IS DISTINCT FROM NEW.tags\n) EXECUTE FUNCTION memories_tally_keep()",
    "DELETE FROM memories_bandtally",
    "INSERT INTO memories_bandtally(tier, load, priority, memories, body_bytes) SELECT coalesce(project_id, 0), load, priority, count(*), coalesce(sum(octet_length(body)), 0) FROM memories_memory GROUP BY 1, 2, 3",
    "DELETE FROM memories_tagtally",
    "INSERT INTO memories_tagtally(tier, load, tag, memories) SELECT coalesce(m.project_id, 0), m.load, j.value, count(*) FROM memories_memory m, jsonb_array_elements_text(m.tags) AS j(value) GROUP BY 1, 2, 3",
]

REVERSE_SQL = [
    "DROP TRIGGER IF EXISTS memories_tally_ai ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_tally_ad ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_tally_au ON memories_memory",
    "DROP FUNCTION IF EXISTS memories_tally_keep()",
]


class Migration(migrations.Migration):
    dependencies = [("memories", "0010_band_tallies")]

    operations = [RunSQLOn("postgresql", FORWARD_SQL, REVERSE_SQL)]
