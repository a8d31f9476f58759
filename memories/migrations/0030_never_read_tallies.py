"""The never-read memories of each band and tag tally (the read filter's facet): the tally
triggers count them too, the first read of a memory moving it, then a recount of both
tallies; and memory_read_tier holds the verification too, for the never read under an
unverified filter, which the tallies cannot tell. The SQL is frozen here as memories.engine's
sqlite and postgresql index modules wrote it; the reverse puts back their triggers as 0029
left them."""

from django.db import migrations, models

from memories.engine.operations import RunSQLOn

# SQLite adds a column by remaking its table, which fails while a trigger names the table:
# the tally triggers go first and come back after.
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS memories_tally_ai",
    "DROP TRIGGER IF EXISTS memories_tally_ad",
    "DROP TRIGGER IF EXISTS memories_tally_au",
]
SQLITE_OLD = [
    "CREATE TRIGGER memories_tally_ai AFTER INSERT ON memories_memory BEGIN\n    INSERT INTO memories_bandtally(tier, load, priority, memories, body_bytes)\n    VALUES (coalesce(new.project_id, 0), new.load, new.priority, 1, length(CAST(new.body AS BLOB)))\n    ON CONFLICT (tier, load, priority) DO UPDATE SET\n        memories = memories + 1, body_bytes = body_bytes + excluded.body_bytes;\n    INSERT INTO memories_tagtally(tier, load, tag, memories)\n    SELECT coalesce(new.project_id, 0), new.load, value, 1 FROM json_each(new.tags) WHERE true\n    ON CONFLICT (tier, load, tag) DO UPDATE SET memories = memories + 1;\nEND",
    "CREATE TRIGGER memories_tally_ad AFTER DELETE ON memories_memory BEGIN\n    UPDATE memories_bandtally SET memories = memories - 1, body_bytes = body_bytes - length(CAST(old.body AS BLOB))\n    WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND priority = old.priority;\n    DELETE FROM memories_bandtally\n    WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND priority = old.priority AND memories <= 0;\n    UPDATE memories_tagtally SET memories = memories - (\n        SELECT count(*) FROM json_each(old.tags) AS j WHERE j.value = memories_tagtally.tag\n    )\n    WHERE tier = coalesce(old.project_id, 0) AND load = old.load\n      AND tag IN (SELECT value FROM json_each(old.tags));\n    DELETE FROM memories_tagtally WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND memories <= 0;\nEND",
    "CREATE TRIGGER memories_tally_au\nAFTER UPDATE OF project_id, load, priority, body, tags ON memories_memory\nWHEN old.project_id IS NOT new.project_id OR old.load IS NOT new.load\n  OR old.priority IS NOT new.priority OR old.body IS NOT new.body OR old.tags IS NOT new.tags\nBEGIN\n    UPDATE memories_bandtally SET memories = memories - 1, body_bytes = body_bytes - length(CAST(old.body AS BLOB))\n    WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND priority = old.priority;\n    DELETE FROM memories_bandtally\n    WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND priority = old.priority AND memories <= 0;\n    UPDATE memories_tagtally SET memories = memories - (\n        SELECT count(*) FROM json_each(old.tags) AS j WHERE j.value = memories_tagtally.tag\n    )\n    WHERE tier = coalesce(old.project_id, 0) AND load = old.load\n      AND tag IN (SELECT value FROM json_each(old.tags));\n    DELETE FROM memories_tagtally WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND memories <= 0;\n    INSERT INTO memories_bandtally(tier, load, priority, memories, body_bytes)\n    VALUES (coalesce(new.project_id, 0), new.load, new.priority, 1, length(CAST(new.body AS BLOB)))\n    ON CONFLICT (tier, load, priority) DO UPDATE SET\n        memories = memories + 1, body_bytes = body_bytes + excluded.body_bytes;\n    INSERT INTO memories_tagtally(tier, load, tag, memories)\n    SELECT coalesce(new.project_id, 0), new.load, value, 1 FROM json_each(new.tags) WHERE true\n    ON CONFLICT (tier, load, tag) DO UPDATE SET memories = memories + 1;\nEND",
]
SQLITE_SQL = [
    "CREATE TRIGGER memories_tally_ai AFTER INSERT ON memories_memory BEGIN\n    INSERT INTO memories_bandtally(tier, load, priority, memories, body_bytes, never_read)\n    VALUES (coalesce(new.project_id, 0), new.load, new.priority, 1, length(CAST(new.body AS BLOB)), (new.read_count = 0))\n    ON CONFLICT (tier, load, priority) DO UPDATE SET\n        memories = memories + 1, body_bytes = body_bytes + excluded.body_bytes,\n        never_read = never_read + excluded.never_read;\n    INSERT INTO memories_tagtally(tier, load, tag, memories, never_read)\n    SELECT coalesce(new.project_id, 0), new.load, value, 1, (new.read_count = 0) FROM json_each(new.tags) WHERE true\n    ON CONFLICT (tier, load, tag) DO UPDATE SET\n        memories = memories + 1, never_read = never_read + excluded.never_read;\nEND",
    "CREATE TRIGGER memories_tally_ad AFTER DELETE ON memories_memory BEGIN\n    UPDATE memories_bandtally SET memories = memories - 1, body_bytes = body_bytes - length(CAST(old.body AS BLOB)),\n        never_read = never_read - (old.read_count = 0)\n    WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND priority = old.priority;\n    DELETE FROM memories_bandtally\n    WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND priority = old.priority AND memories <= 0;\n    UPDATE memories_tagtally SET memories = memories - (SELECT count(*) FROM json_each(old.tags) AS j WHERE j.value = memories_tagtally.tag), never_read = never_read - (old.read_count = 0) * (SELECT count(*) FROM json_each(old.tags) AS j WHERE j.value = memories_tagtally.tag)\n    WHERE tier = coalesce(old.project_id, 0) AND load = old.load\n      AND tag IN (SELECT value FROM json_each(old.tags));\n    DELETE FROM memories_tagtally WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND memories <= 0;\nEND",
    "CREATE TRIGGER memories_tally_au\nAFTER UPDATE OF project_id, load, priority, body, tags, read_count ON memories_memory\nWHEN old.project_id IS NOT new.project_id OR old.load IS NOT new.load\n  OR old.priority IS NOT new.priority OR old.body IS NOT new.body OR old.tags IS NOT new.tags\n  OR (old.read_count = 0) IS NOT (new.read_count = 0)\nBEGIN\n    UPDATE memories_bandtally SET memories = memories - 1, body_bytes = body_bytes - length(CAST(old.body AS BLOB)),\n        never_read = never_read - (old.read_count = 0)\n    WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND priority = old.priority;\n    DELETE FROM memories_bandtally\n    WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND priority = old.priority AND memories <= 0;\n    UPDATE memories_tagtally SET memories = memories - (SELECT count(*) FROM json_each(old.tags) AS j WHERE j.value = memories_tagtally.tag), never_read = never_read - (old.read_count = 0) * (SELECT count(*) FROM json_each(old.tags) AS j WHERE j.value = memories_tagtally.tag)\n    WHERE tier = coalesce(old.project_id, 0) AND load = old.load\n      AND tag IN (SELECT value FROM json_each(old.tags));\n    DELETE FROM memories_tagtally WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND memories <= 0;\n    INSERT INTO memories_bandtally(tier, load, priority, memories, body_bytes, never_read)\n    VALUES (coalesce(new.project_id, 0), new.load, new.priority, 1, length(CAST(new.body AS BLOB)), (new.read_count = 0))\n    ON CONFLICT (tier, load, priority) DO UPDATE SET\n        memories = memories + 1, body_bytes = body_bytes + excluded.body_bytes,\n        never_read = never_read + excluded.never_read;\n    INSERT INTO memories_tagtally(tier, load, tag, memories, never_read)\n    SELECT coalesce(new.project_id, 0), new.load, value, 1, (new.read_count = 0) FROM json_each(new.tags) WHERE true\n    ON CONFLICT (tier, load, tag) DO UPDATE SET\n        memories = memories + 1, never_read = never_read + excluded.never_read;\nEND",
    "DELETE FROM memories_bandtally",
    "INSERT INTO memories_bandtally(tier, load, priority, memories, body_bytes, never_read) SELECT coalesce(project_id, 0), load, priority, count(*), coalesce(sum(length(CAST(body AS BLOB))), 0), sum(read_count = 0) FROM memories_memory GROUP BY 1, 2, 3",
    "DELETE FROM memories_tagtally",
    "INSERT INTO memories_tagtally(tier, load, tag, memories, never_read) SELECT coalesce(m.project_id, 0), m.load, j.value, count(*), sum(m.read_count = 0) FROM memories_memory m, json_each(m.tags) j GROUP BY 1, 2, 3",
]
POSTGRESQL_SQL = [
    "CREATE OR REPLACE FUNCTION memories_tally_keep() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    IF TG_OP IN ('UPDATE', 'DELETE') THEN\n        UPDATE memories_bandtally\n        SET memories = memories - 1, body_bytes = body_bytes - octet_length(OLD.body),\n            never_read = never_read - (OLD.read_count = 0)::int\n        WHERE tier = coalesce(OLD.project_id, 0) AND load = OLD.load AND priority = OLD.priority;\n        DELETE FROM memories_bandtally WHERE tier = coalesce(OLD.project_id, 0) AND load = OLD.load\n            AND priority = OLD.priority AND memories <= 0;\n        UPDATE memories_tagtally AS t\n        SET memories = t.memories - gone.n, never_read = t.never_read - gone.n * (OLD.read_count = 0)::int\n        FROM (SELECT value, count(*) AS n FROM jsonb_array_elements_text(OLD.tags)\n              GROUP BY value) AS gone\n        WHERE t.tier = coalesce(OLD.project_id, 0) AND t.load = OLD.load AND t.tag = gone.value;\n        DELETE FROM memories_tagtally WHERE tier = coalesce(OLD.project_id, 0) AND load = OLD.load AND memories <= 0;\n    END IF;\n    IF TG_OP IN ('INSERT', 'UPDATE') THEN\n        INSERT INTO memories_bandtally AS t (tier, load, priority, memories, body_bytes, never_read)\n        VALUES (coalesce(NEW.project_id, 0), NEW.load, NEW.priority, 1, octet_length(NEW.body), (NEW.read_count = 0)::int)\n        ON CONFLICT (tier, load, priority) DO UPDATE\n            SET memories = t.memories + 1, body_bytes = t.body_bytes + excluded.body_bytes,\n                never_read = t.never_read + excluded.never_read;\n        INSERT INTO memories_tagtally AS t (tier, load, tag, memories, never_read)\n        SELECT coalesce(NEW.project_id, 0), NEW.load, value, count(*), count(*) * (NEW.read_count = 0)::int\n        FROM jsonb_array_elements_text(NEW.tags) GROUP BY value\n        ON CONFLICT (tier, load, tag) DO UPDATE SET memories = t.memories + excluded.memories,\n            never_read = t.never_read + excluded.never_read;\n    END IF;\n    RETURN NULL;\nEND $$",
    "DROP TRIGGER IF EXISTS memories_tally_au ON memories_memory",
    "CREATE TRIGGER memories_tally_au\nAFTER UPDATE OF project_id, load, priority, body, tags, read_count ON memories_memory\nFOR EACH ROW WHEN (\n    OLD.project_id IS DISTINCT FROM NEW.project_id OR OLD.load IS DISTINCT FROM NEW.load\n    OR OLD.priority IS DISTINCT FROM NEW.priority OR OLD.body IS DISTINCT FROM NEW.body\n    OR OLD.tags IS DISTINCT FROM NEW.tags\n    OR (OLD.read_count = 0) IS DISTINCT FROM (NEW.read_count = 0)\n) EXECUTE FUNCTION memories_tally_keep()",
    "DELETE FROM memories_bandtally",
    "INSERT INTO memories_bandtally(tier, load, priority, memories, body_bytes, never_read) SELECT coalesce(project_id, 0), load, priority, count(*), coalesce(sum(octet_length(body)), 0), count(*) FILTER (WHERE read_count = 0) FROM memories_memory GROUP BY 1, 2, 3",
    "DELETE FROM memories_tagtally",
    "INSERT INTO memories_tagtally(tier, load, tag, memories, never_read) SELECT coalesce(m.project_id, 0), m.load, j.value, count(*), count(*) FILTER (WHERE m.read_count = 0) FROM memories_memory m, jsonb_array_elements_text(m.tags) AS j(value) GROUP BY 1, 2, 3",
]
POSTGRESQL_REVERSE = [
    "CREATE OR REPLACE FUNCTION memories_tally_keep() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    IF TG_OP IN ('UPDATE', 'DELETE') THEN\n        UPDATE memories_bandtally\n        SET memories = memories - 1, body_bytes = body_bytes - octet_length(OLD.body)\n        WHERE tier = coalesce(OLD.project_id, 0) AND load = OLD.load AND priority = OLD.priority;\n        DELETE FROM memories_bandtally WHERE tier = coalesce(OLD.project_id, 0) AND load = OLD.load\n            AND priority = OLD.priority AND memories <= 0;\n        UPDATE memories_tagtally AS t SET memories = t.memories - gone.n\n        FROM (SELECT value, count(*) AS n FROM jsonb_array_elements_text(OLD.tags)\n              GROUP BY value) AS gone\n        WHERE t.tier = coalesce(OLD.project_id, 0) AND t.load = OLD.load AND t.tag = gone.value;\n        DELETE FROM memories_tagtally WHERE tier = coalesce(OLD.project_id, 0) AND load = OLD.load AND memories <= 0;\n    END IF;\n    IF TG_OP IN ('INSERT', 'UPDATE') THEN\n        INSERT INTO memories_bandtally AS t (tier, load, priority, memories, body_bytes)\n        VALUES (coalesce(NEW.project_id, 0), NEW.load, NEW.priority, 1, octet_length(NEW.body))\n        ON CONFLICT (tier, load, priority) DO UPDATE\n            SET memories = t.memories + 1, body_bytes = t.body_bytes + excluded.body_bytes;\n        INSERT INTO memories_tagtally AS t (tier, load, tag, memories)\n        SELECT coalesce(NEW.project_id, 0), NEW.load, value, count(*)\n        FROM jsonb_array_elements_text(NEW.tags) GROUP BY value\n        ON CONFLICT (tier, load, tag) DO UPDATE SET memories = t.memories + excluded.memories;\n    END IF;\n    RETURN NULL;\nEND $$",
    "DROP TRIGGER IF EXISTS memories_tally_au ON memories_memory",
    "CREATE TRIGGER memories_tally_au\nAFTER UPDATE OF project_id, load, priority, body, tags ON memories_memory\nFOR EACH ROW WHEN (\n    OLD.project_id IS DISTINCT FROM NEW.project_id OR OLD.load IS DISTINCT FROM NEW.load\n    OR OLD.priority IS DISTINCT FROM NEW.priority OR OLD.body IS DISTINCT FROM NEW.body\n    OR OLD.tags IS DISTINCT FROM NEW.tags\n) EXECUTE FUNCTION memories_tally_keep()",
]


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0029_never_read_by_tier"),
        ("projects", "0001_initial"),
    ]

    operations = [
        RunSQLOn("sqlite", SQLITE_DROP, SQLITE_OLD),
        migrations.AddField(
            model_name="bandtally",
            name="never_read",
            field=models.BigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="tagtally",
            name="never_read",
            field=models.BigIntegerField(default=0),
        ),
        RunSQLOn("sqlite", SQLITE_SQL, SQLITE_DROP),
        RunSQLOn("postgresql", POSTGRESQL_SQL, POSTGRESQL_REVERSE),
        migrations.RemoveIndex(model_name="memory", name="memory_read_tier"),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(
                fields=["read_count", "tier", "expires_at", "load", "verified_at"],
                name="memory_read_tier",
            ),
        ),
    ]
