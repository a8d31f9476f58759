"""PostgreSQL's search column and the triggers that keep it, the trigram indexes of the
plain-text sense, the reference and tag tables and the cross-tier name rule in step with
memories_memory (memories.engine.postgresql.index describes them). Nothing on SQLite, whose
index 0002 built.

The SQL is frozen here as it was when this migration was written.
"""

from django.db import migrations

from memories.engine.operations import RunSQLOn

FORWARD_SQL = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE TEXT SEARCH DICTIONARY memadmin_stem (TEMPLATE = snowball, LANGUAGE = porter)",
    "CREATE TEXT SEARCH CONFIGURATION memadmin (COPY = english)",
    """
ALTER TEXT SEARCH CONFIGURATION memadmin ALTER MAPPING FOR
    asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH memadmin_stem""",
    "ALTER TABLE memories_memory ADD COLUMN search tsvector NOT NULL DEFAULT ''",
    """
CREATE OR REPLACE FUNCTION memories_search_vector(name text, description text, body text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT setweight(to_tsvector('memadmin', regexp_replace(name, '[^[:alnum:]]+', ' ', 'g')), 'A')
    || setweight(to_tsvector('memadmin', regexp_replace(description, '[^[:alnum:]]+', ' ', 'g')), 'B')
    || setweight(to_tsvector('memadmin', regexp_replace(body, '[^[:alnum:]]+', ' ', 'g')), 'C')
$$""",
    """
CREATE OR REPLACE FUNCTION memories_search_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.search := memories_search_vector(NEW.name, NEW.description, NEW.body);
    RETURN NEW;
END $$""",
    """
CREATE OR REPLACE FUNCTION memories_refs_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM memories_reference WHERE memory_id = OLD.id;
    END IF;
    INSERT INTO memories_reference(memory_id, position, target)
    SELECT NEW.id, j.position - 1, j.value
    FROM jsonb_array_elements_text(NEW.refs) WITH ORDINALITY AS j(value, position);
    RETURN NULL;
END $$""",
    """
CREATE OR REPLACE FUNCTION memories_tags_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM memories_tag WHERE memory_id = OLD.id;
    END IF;
    INSERT INTO memories_tag(memory_id, position, tag)
    SELECT NEW.id, j.position - 1, j.value
    FROM jsonb_array_elements_text(NEW.tags) WITH ORDINALITY AS j(value, position);
    RETURN NULL;
END $$""",
    """
CREATE OR REPLACE FUNCTION memories_derived_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM memories_reference WHERE memory_id = OLD.id;
    DELETE FROM memories_tag WHERE memory_id = OLD.id;
    RETURN NULL;
END $$""",
    """
CREATE OR REPLACE FUNCTION memories_cross_tier() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('memories_memory.name'), hashtext(NEW.name));
    IF EXISTS (
        SELECT 1 FROM memories_memory AS other
        WHERE other.name = NEW.name AND other.id <> NEW.id
          AND (other.project_id IS NULL) <> (NEW.project_id IS NULL)
    ) THEN
        RAISE EXCEPTION 'a global name is never also a project''s name: choose another name'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$""",
    """
CREATE TRIGGER memories_search_bi BEFORE INSERT ON memories_memory
FOR EACH ROW EXECUTE FUNCTION memories_search_keep()""",
    """
CREATE TRIGGER memories_search_bu BEFORE UPDATE OF name, description, body ON memories_memory
FOR EACH ROW EXECUTE FUNCTION memories_search_keep()""",
    """
CREATE TRIGGER memories_refs_ai AFTER INSERT ON memories_memory
FOR EACH ROW EXECUTE FUNCTION memories_refs_keep()""",
    """
CREATE TRIGGER memories_refs_au AFTER UPDATE OF refs ON memories_memory
FOR EACH ROW WHEN (NEW.refs IS DISTINCT FROM OLD.refs) EXECUTE FUNCTION memories_refs_keep()""",
    """
CREATE TRIGGER memories_tags_ai AFTER INSERT ON memories_memory
FOR EACH ROW EXECUTE FUNCTION memories_tags_keep()""",
    """
CREATE TRIGGER memories_tags_au AFTER UPDATE OF tags ON memories_memory
FOR EACH ROW WHEN (NEW.tags IS DISTINCT FROM OLD.tags) EXECUTE FUNCTION memories_tags_keep()""",
    """
CREATE TRIGGER memories_derived_ad AFTER DELETE ON memories_memory
FOR EACH ROW EXECUTE FUNCTION memories_derived_forget()""",
    """
CREATE TRIGGER memories_cross_tier_bi BEFORE INSERT ON memories_memory
FOR EACH ROW EXECUTE FUNCTION memories_cross_tier()""",
    """
CREATE TRIGGER memories_cross_tier_bu BEFORE UPDATE OF name, project_id ON memories_memory
FOR EACH ROW EXECUTE FUNCTION memories_cross_tier()""",
    "UPDATE memories_memory SET search = memories_search_vector(name, description, body)",
    "CREATE INDEX memories_search ON memories_memory USING gin (search)",
    "CREATE INDEX memories_name_trgm ON memories_memory USING gin (name gin_trgm_ops)",
    "CREATE INDEX memories_description_trgm ON memories_memory USING gin (description gin_trgm_ops)",
    "CREATE INDEX memories_body_trgm ON memories_memory USING gin (body gin_trgm_ops)",
]
REVERSE_SQL = [
    "DROP INDEX IF EXISTS memories_name_trgm",
    "DROP INDEX IF EXISTS memories_description_trgm",
    "DROP INDEX IF EXISTS memories_body_trgm",
    "DROP TRIGGER IF EXISTS memories_search_bi ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_search_bu ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_refs_ai ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_refs_au ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_tags_ai ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_tags_au ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_derived_ad ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_cross_tier_bi ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_cross_tier_bu ON memories_memory",
    "DROP FUNCTION IF EXISTS memories_cross_tier",
    "DROP FUNCTION IF EXISTS memories_derived_forget",
    "DROP FUNCTION IF EXISTS memories_tags_keep",
    "DROP FUNCTION IF EXISTS memories_refs_keep",
    "DROP FUNCTION IF EXISTS memories_search_keep",
    "DROP FUNCTION IF EXISTS memories_search_vector",
    "ALTER TABLE memories_memory DROP COLUMN IF EXISTS search",
    "DROP TEXT SEARCH CONFIGURATION IF EXISTS memadmin",
    "DROP TEXT SEARCH DICTIONARY IF EXISTS memadmin_stem",
]


class Migration(migrations.Migration):
    dependencies = [("memories", "0008_merge_project_revision")]

    operations = [RunSQLOn("postgresql", FORWARD_SQL, REVERSE_SQL)]
