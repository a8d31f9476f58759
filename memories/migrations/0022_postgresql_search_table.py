"""PostgreSQL's search index in a table of its own, memories_search: each memory's vector
(kept in the row) beside what the ranking weighs of it (priority, read count, the Julian day
of verified_at, created_at), written by a trigger after the memory's own row in the same
statement, with the GIN index on it; the vector column of memories_memory, its triggers and
its index go. A common word's search ranks every match, and read from the memories' wide
rows (the vector the last of 17 columns) each match cost more to reach than to rank
(memories.engine.postgresql.index). The SQL is frozen here as that module wrote it."""

from django.db import migrations

from memories.engine.operations import RunSQLOn

FORWARD_SQL = [
    "DROP TRIGGER IF EXISTS memories_search_bi ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_search_bu ON memories_memory",
    "DROP INDEX IF EXISTS memories_search",
    "CREATE TABLE memories_search (\n    id bigint PRIMARY KEY,\n    search tsvector NOT NULL,\n    priority integer NOT NULL,\n    read_count integer NOT NULL,\n    verified_day double precision NOT NULL,\n    created_at timestamp with time zone NOT NULL\n)",
    "ALTER TABLE memories_search ALTER COLUMN search SET STORAGE main",
    "INSERT INTO memories_search (id, search, priority, read_count, verified_day, created_at) SELECT id, search, memories_memory.priority, memories_memory.read_count, (date_part('epoch', memories_memory.verified_at) / 86400 + 2440587.5), memories_memory.created_at FROM memories_memory",
    "ANALYZE memories_search",
    "ALTER TABLE memories_memory DROP COLUMN search",
    "CREATE OR REPLACE FUNCTION memories_search_keep() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    IF TG_OP = 'UPDATE' AND NEW.name IS NOT DISTINCT FROM OLD.name\n        AND NEW.description IS NOT DISTINCT FROM OLD.description\n        AND NEW.body IS NOT DISTINCT FROM OLD.body THEN\n        UPDATE memories_search SET priority = NEW.priority, read_count = NEW.read_count, verified_day = (date_part('epoch', NEW.verified_at) / 86400 + 2440587.5), created_at = NEW.created_at WHERE id = NEW.id;\n    ELSE\n        INSERT INTO memories_search (id, search, priority, read_count, verified_day, created_at)\n        VALUES (NEW.id, memories_search_vector(NEW.name, NEW.description, NEW.body),\n            NEW.priority, NEW.read_count, (date_part('epoch', NEW.verified_at) / 86400 + 2440587.5), NEW.created_at)\n        ON CONFLICT (id) DO UPDATE SET search = excluded.search,\n            priority = excluded.priority, read_count = excluded.read_count, verified_day = excluded.verified_day, created_at = excluded.created_at;\n    END IF;\n    RETURN NULL;\nEND $$",
    "CREATE OR REPLACE FUNCTION memories_derived_forget() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    DELETE FROM memories_reference WHERE memory_id = OLD.id;\n    DELETE FROM memories_tag WHERE memory_id = OLD.id;\n    DELETE FROM memories_search WHERE id = OLD.id;\n    RETURN NULL;\nEND $$",
    "CREATE TRIGGER memories_search_ai AFTER INSERT ON memories_memory\nFOR EACH ROW EXECUTE FUNCTION memories_search_keep()",
    "CREATE TRIGGER memories_search_au\nAFTER UPDATE OF name, description, body, priority, read_count, verified_at, created_at ON memories_memory\nFOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.description IS DISTINCT FROM NEW.description OR OLD.body IS DISTINCT FROM NEW.body OR OLD.priority IS DISTINCT FROM NEW.priority OR OLD.read_count IS DISTINCT FROM NEW.read_count OR OLD.verified_at IS DISTINCT FROM NEW.verified_at OR OLD.created_at IS DISTINCT FROM NEW.created_at)\nEXECUTE FUNCTION memories_search_keep()",
    "CREATE INDEX memories_search_words ON memories_search USING gin (search)",
    "CREATE OR REPLACE FUNCTION memories_search_clear() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    TRUNCATE memories_search;\n    RETURN NULL;\nEND $$",
    "CREATE TRIGGER memories_search_at AFTER TRUNCATE ON memories_memory\nFOR EACH STATEMENT EXECUTE FUNCTION memories_search_clear()",
]

REVERSE_SQL = [
    "DROP TRIGGER IF EXISTS memories_search_at ON memories_memory",
    "DROP FUNCTION IF EXISTS memories_search_clear()",
    "DROP TRIGGER IF EXISTS memories_search_ai ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_search_au ON memories_memory",
    "ALTER TABLE memories_memory ADD COLUMN search tsvector NOT NULL DEFAULT ''",
    "ALTER TABLE memories_memory ALTER COLUMN search SET STORAGE main",
    "UPDATE memories_memory AS m SET search = s.search FROM memories_search AS s WHERE s.id = m.id",
    "DROP TABLE memories_search",
    "CREATE OR REPLACE FUNCTION memories_search_keep() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    NEW.search := memories_search_vector(NEW.name, NEW.description, NEW.body);\n    RETURN NEW;\nEND $$",
    "CREATE OR REPLACE FUNCTION memories_derived_forget() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    DELETE FROM memories_reference WHERE memory_id = OLD.id;\n    DELETE FROM memories_tag WHERE memory_id = OLD.id;\n    RETURN NULL;\nEND $$",
    "CREATE TRIGGER memories_search_bi BEFORE INSERT ON memories_memory\nFOR EACH ROW EXECUTE FUNCTION memories_search_keep()",
    "CREATE TRIGGER memories_search_bu BEFORE UPDATE OF name, description, body ON memories_memory\nFOR EACH ROW EXECUTE FUNCTION memories_search_keep()",
    "CREATE INDEX memories_search ON memories_memory USING gin (search)",
]


class Migration(migrations.Migration):
    dependencies = [("memories", "0021_tag_expiry")]

    operations = [RunSQLOn("postgresql", FORWARD_SQL, REVERSE_SQL)]
