"""PostgreSQL's search index and the other derived parts of the store.

* `memories_search`, the search index: for each memory a tsvector (`search`) of the name
  weighted A, the description B, the body C, through the `memadmin` text search
  configuration (English's parser and the Porter stemmer SQLite's index uses, without a
  stopword list, so that a word stems and matches as it does there, "the" included), beside
  a copy of what the ranking weighs (priority, read count, the Julian day of verified_at,
  created_at). The text
  is split into runs of letters and digits first, as SQLite's tokenizer splits it, so
  `/etc/nginx/nginx.conf` holds the words etc, nginx and conf rather than one file-name
  token. A trigger writes the row in the statement that writes the memory; a GIN index
  serves it. A table of its own, narrow, its vector kept in the row (storage MAIN), as
  SQLite's FTS5 table is one of its own: a common word's search ranks every match, and
  reading each match's vector out of the memories' wide rows (17 columns, the vector the
  last) cost more than ranking it (migration 0022: a common word's ranking statement, its
  CPU before and after, in bench/results/2026-12-01-pgsearch-6).
* trigram GIN indexes (pg_trgm) on name, description and body: the plain-text sense (unspaced
  scripts, long identifiers, paths and URLs) is an index search here, not a scan.
* the reference and tag tables, kept from the refs and tags JSON by triggers, in the
  statement's transaction.
* the tallies per tier, load and priority (memories, body bytes) and per tier, load and tag
  (memories) that memories.reads.tallies reads, kept by a trigger in the statement's
  transaction (migration 0011), with the never read of each (migration 0030); for the
  list's facets, per tier, load or tag and UTC day of verification and per tier and pair of
  tags, likewise (migration 0020).
* the cross-tier name rule (a global name is never also a project's), checked by a trigger
  under a lock on the name, so that two writers cannot both pass it.

Migration 0007 created them and froze its copy of the statements below; they are derived and
disposable: `rebuild()` puts back what is missing and regenerates the contents.
"""

from django.db import connection, transaction

from memories.engine import IndexReport, sql
from memories.engine.tables import (
    BAND_TALLY,
    MEMORY_TABLE,
    TAG_PAIR_TALLY,
    TAG_TALLY,
    TAG_VERIFIED_TALLY,
    VERIFIED_TALLY,
)

# What the seam (memories.engine.PROVIDES) takes from this module, and nothing else.
__all__ = ["migrated", "missing_triggers", "check", "rebuild", "REBUILD_STEPS"]

SEARCH_TABLE = "memories_search"
SEARCH_COLUMN = "search"
# The Julian day of a row's verified_at, as the ranking's freshness reads it (date_part gives
# the epoch as float8 at once; extract() computes it as numeric first).
JULIAN_DAY = "(date_part('epoch', {row}.verified_at) / 86400 + 2440587.5)"
# What the search index copies of each memory for the ranking, beside the vector: its
# column -> the value of the memory's `row`; and the memory's columns they are read from.
RANKED = {
    "priority": "{row}.priority",
    "read_count": "{row}.read_count",
    "verified_day": JULIAN_DAY,
    "created_at": "{row}.created_at",
}
RANKED_FROM = ("priority", "read_count", "verified_at", "created_at")
CONFIG = "memadmin"
VECTOR = "memories_search_vector"  # (name, description, body) -> the search index's vector
SEARCH_STORAGE = "main"
STORAGES = {"p": "plain", "m": "main", "e": "external", "x": "extended"}  # pg_attribute's
# The storage set, and each value stored afresh under it: a value already in TOAST stays
# there until it is written again, and the concatenation makes a new (equal) value.
KEEP_IN_ROW = [
    f"ALTER TABLE {SEARCH_TABLE} ALTER COLUMN {SEARCH_COLUMN} SET STORAGE {SEARCH_STORAGE}",
    f"UPDATE {SEARCH_TABLE} SET {SEARCH_COLUMN} = {SEARCH_COLUMN} || ''::tsvector",
]

SETUP = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE TEXT SEARCH DICTIONARY memadmin_stem (TEMPLATE = snowball, LANGUAGE = porter)",
    f"CREATE TEXT SEARCH CONFIGURATION {CONFIG} (COPY = english)",
    f"""ALTER TEXT SEARCH CONFIGURATION {CONFIG} ALTER MAPPING FOR
    asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH memadmin_stem""",
]


def _weighted(column: str, weight: str) -> str:
    words = f"regexp_replace({column}, '[^[:alnum:]]+', ' ', 'g')"
    return f"setweight(to_tsvector('{CONFIG}', {words}), '{weight}')"


def _rows_of(source: str, memory: str, table: str = "") -> str:
    """(memory id, position, value, and what else of the row the table keeps) for each item
    of the JSON list `source` of the memory `memory` (of every row of `table`, when given)."""
    items = f"jsonb_array_elements_text({memory}.{source}) WITH ORDINALITY AS j(value, position)"
    read = f"{table} {memory}, {items}" if table else items
    kept = DERIVED[SOURCES[source]][2].format(memory=memory)
    return f"SELECT {memory}.id, j.position - 1, j.value{kept} FROM {read}"


def _copy_to_tags(function: str, column: str) -> str:
    """The trigger function copying the memory's `column` to each of its tag rows."""
    return f"""
CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE memories_tag SET {column} = NEW.{column} WHERE memory_id = NEW.id;
    RETURN NULL;
END $$"""


def _keep(function: str, table: str) -> str:
    """The trigger function keeping `table` in step with the memories' list it is read from."""
    columns, source, _ = DERIVED[table]
    return f"""
CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM {table} WHERE memory_id = OLD.id;
    END IF;
    INSERT INTO {table}(memory_id, position, {columns}) {_rows_of(source, "NEW")};
    RETURN NULL;
END $$"""


# table -> (its columns past memory_id and position, the memories' JSON list it is read
# from, what else of the memory's row it keeps), as the triggers write them.
DERIVED = {
    "memories_reference": (
        "target, tier, priority, created_at",
        "refs",
        ", coalesce({memory}.project_id, 0), {memory}.priority, {memory}.created_at",
    ),
    "memories_tag": (
        "tag, tier, verified_at, expires_at",
        "tags",
        ", coalesce({memory}.project_id, 0), {memory}.verified_at, {memory}.expires_at",
    ),
}
SOURCES = {source: table for table, (_, source, _) in DERIVED.items()}


_SET_RANKED = ", ".join(f"{column} = {value.format(row='NEW')}" for column, value in RANKED.items())

FUNCTIONS = {
    VECTOR: f"""
CREATE OR REPLACE FUNCTION {VECTOR}(name text, description text, body text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT {_weighted("name", "A")}
    || {_weighted("description", "B")}
    || {_weighted("body", "C")}
$$""",
    "memories_search_keep": f"""
CREATE OR REPLACE FUNCTION memories_search_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.name IS NOT DISTINCT FROM OLD.name
        AND NEW.description IS NOT DISTINCT FROM OLD.description
        AND NEW.body IS NOT DISTINCT FROM OLD.body THEN
        UPDATE {SEARCH_TABLE} SET {_SET_RANKED} WHERE id = NEW.id;
    ELSE
        INSERT INTO {SEARCH_TABLE} (id, {SEARCH_COLUMN}, {", ".join(RANKED)})
        VALUES (NEW.id, {VECTOR}(NEW.name, NEW.description, NEW.body),
            {", ".join(value.format(row="NEW") for value in RANKED.values())})
        ON CONFLICT (id) DO UPDATE SET {SEARCH_COLUMN} = excluded.{SEARCH_COLUMN},
            {", ".join(f"{column} = excluded.{column}" for column in RANKED)};
    END IF;
    RETURN NULL;
END $$""",
    # A TRUNCATE of the memories (Django's flush, a DBA's) fires no row trigger; the derived
    # tables Django knows of are truncated beside it, this one is not.
    "memories_search_clear": f"""
CREATE OR REPLACE FUNCTION memories_search_clear() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE {SEARCH_TABLE};
    RETURN NULL;
END $$""",
    "memories_refs_keep": _keep("memories_refs_keep", "memories_reference"),
    "memories_tags_keep": _keep("memories_tags_keep", "memories_tag"),
    "memories_refs_move": """
CREATE OR REPLACE FUNCTION memories_refs_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE memories_reference SET tier = coalesce(NEW.project_id, 0) WHERE memory_id = NEW.id;
    UPDATE memories_tag SET tier = coalesce(NEW.project_id, 0) WHERE memory_id = NEW.id;
    RETURN NULL;
END $$""",
    "memories_refs_order": """
CREATE OR REPLACE FUNCTION memories_refs_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE memories_reference SET priority = NEW.priority, created_at = NEW.created_at
    WHERE memory_id = NEW.id;
    RETURN NULL;
END $$""",
    "memories_tags_verify": _copy_to_tags("memories_tags_verify", "verified_at"),
    "memories_tags_expire": _copy_to_tags("memories_tags_expire", "expires_at"),
    "memories_derived_forget": """
CREATE OR REPLACE FUNCTION memories_derived_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM memories_reference WHERE memory_id = OLD.id;
    DELETE FROM memories_tag WHERE memory_id = OLD.id;
    DELETE FROM memories_search WHERE id = OLD.id;
    RETURN NULL;
END $$""",
    # The doors refuse a clash first with the domain's words; this keeps a row written past
    # them from breaking the rule. The lock on the name makes a second writer of it wait
    # until the first commits, so the check sees its row.
    "memories_cross_tier": f"""
CREATE OR REPLACE FUNCTION memories_cross_tier() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('{MEMORY_TABLE}.name'), hashtext(NEW.name));
    IF EXISTS (
        SELECT 1 FROM {MEMORY_TABLE} AS other
        WHERE other.name = NEW.name AND other.id <> NEW.id
          AND (other.project_id IS NULL) <> (NEW.project_id IS NULL)
    ) THEN
        RAISE EXCEPTION 'a global name is never also a project''s name: choose another name'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$""",
}

_TIER = "coalesce({row}.project_id, 0)"


def _tally(row: str, sign: str) -> str:
    """The statements adding (`sign` "+") or taking off ("-") the memory `row` (NEW or OLD)
    to the tallies of its tier and load, and to their never-read counts when the agent never
    read it; a tally that falls to nothing is dropped, as a recount would not have it."""
    tier, unread = _TIER.format(row=row), f"({row}.{sql.NEVER_READ})::int"
    if sign == "+":
        return f"""
        INSERT INTO {BAND_TALLY} AS t (tier, load, priority, memories, body_bytes, never_read)
        VALUES ({tier}, {row}.load, {row}.priority, 1, octet_length({row}.body), {unread})
        ON CONFLICT (tier, load, priority) DO UPDATE
            SET memories = t.memories + 1, body_bytes = t.body_bytes + excluded.body_bytes,
                never_read = t.never_read + excluded.never_read;
        INSERT INTO {TAG_TALLY} AS t (tier, load, tag, memories, never_read)
        SELECT {tier}, {row}.load, value, count(*), count(*) * {unread}
        FROM jsonb_array_elements_text({row}.tags) GROUP BY value
        ON CONFLICT (tier, load, tag) DO UPDATE SET memories = t.memories + excluded.memories,
            never_read = t.never_read + excluded.never_read;"""
    return f"""
        UPDATE {BAND_TALLY}
        SET memories = memories - 1, body_bytes = body_bytes - octet_length({row}.body),
            never_read = never_read - {unread}
        WHERE tier = {tier} AND load = {row}.load AND priority = {row}.priority;
        DELETE FROM {BAND_TALLY} WHERE tier = {tier} AND load = {row}.load
            AND priority = {row}.priority AND memories <= 0;
        UPDATE {TAG_TALLY} AS t
        SET memories = t.memories - gone.n, never_read = t.never_read - gone.n * {unread}
        FROM (SELECT value, count(*) AS n FROM jsonb_array_elements_text({row}.tags)
              GROUP BY value) AS gone
        WHERE t.tier = {tier} AND t.load = {row}.load AND t.tag = gone.value;
        DELETE FROM {TAG_TALLY} WHERE tier = {tier} AND load = {row}.load AND memories <= 0;"""


FUNCTIONS["memories_tally_keep"] = f"""
CREATE OR REPLACE FUNCTION memories_tally_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN{_tally("OLD", "-")}
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN{_tally("NEW", "+")}
    END IF;
    RETURN NULL;
END $$"""

_DAY = "({row}.verified_at AT TIME ZONE 'UTC')::date"
_PAIRS = (
    "jsonb_array_elements_text({row}.tags) AS a(value),"
    " jsonb_array_elements_text({row}.tags) AS b(value) WHERE a.value <> b.value"
)


def _day_tally(row: str, sign: str) -> str:
    """The statements adding or taking off the memory `row` to the tallies of its tier,
    load and tags by the day (UTC) it was verified."""
    tier, day = _TIER.format(row=row), _DAY.format(row=row)
    if sign == "+":
        return f"""
        INSERT INTO {VERIFIED_TALLY} AS t (tier, load, day, memories)
        VALUES ({tier}, {row}.load, {day}, 1)
        ON CONFLICT (tier, load, day) DO UPDATE SET memories = t.memories + 1;
        INSERT INTO {TAG_VERIFIED_TALLY} AS t (tier, tag, day, memories)
        SELECT {tier}, value, {day}, count(*)
        FROM jsonb_array_elements_text({row}.tags) GROUP BY value
        ON CONFLICT (tag, tier, day) DO UPDATE SET memories = t.memories + excluded.memories;"""
    return f"""
        UPDATE {VERIFIED_TALLY} SET memories = memories - 1
        WHERE tier = {tier} AND load = {row}.load AND day = {day};
        DELETE FROM {VERIFIED_TALLY}
        WHERE tier = {tier} AND load = {row}.load AND day = {day} AND memories <= 0;
        UPDATE {TAG_VERIFIED_TALLY} AS t SET memories = t.memories - gone.n
        FROM (SELECT value, count(*) AS n FROM jsonb_array_elements_text({row}.tags)
              GROUP BY value) AS gone
        WHERE t.tier = {tier} AND t.day = {day} AND t.tag = gone.value;
        DELETE FROM {TAG_VERIFIED_TALLY} WHERE tier = {tier} AND day = {day} AND memories <= 0;"""


def _pair_tally(row: str, sign: str) -> str:
    """The statements adding or taking off the memory `row` to the tallies of its tier's
    pairs of tags."""
    tier, pairs = _TIER.format(row=row), _PAIRS.format(row=row)
    if sign == "+":
        return f"""
            INSERT INTO {TAG_PAIR_TALLY} AS t (tier, tag, other, memories)
            SELECT {tier}, a.value, b.value, count(*) FROM {pairs} GROUP BY a.value, b.value
            ON CONFLICT (tag, tier, other) DO UPDATE
                SET memories = t.memories + excluded.memories;"""
    return f"""
            UPDATE {TAG_PAIR_TALLY} AS t SET memories = t.memories - gone.n
            FROM (SELECT a.value AS tag, b.value AS other, count(*) AS n FROM {pairs}
                  GROUP BY a.value, b.value) AS gone
            WHERE t.tier = {tier} AND t.tag = gone.tag AND t.other = gone.other;
            DELETE FROM {TAG_PAIR_TALLY} WHERE tier = {tier} AND memories <= 0
                AND tag IN (SELECT jsonb_array_elements_text({row}.tags));"""


# The pairs move only with the tier or the tags; the days with the load and verification too.
_PAIRS_MOVED = (
    "TG_OP <> 'UPDATE' OR OLD.project_id IS DISTINCT FROM NEW.project_id"
    " OR OLD.tags IS DISTINCT FROM NEW.tags"
)
FUNCTIONS["memories_facet_tally_keep"] = f"""
CREATE OR REPLACE FUNCTION memories_facet_tally_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN{_day_tally("OLD", "-")}
        IF {_PAIRS_MOVED} THEN{_pair_tally("OLD", "-")}
        END IF;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN{_day_tally("NEW", "+")}
        IF {_PAIRS_MOVED} THEN{_pair_tally("NEW", "+")}
        END IF;
    END IF;
    RETURN NULL;
END $$"""

DANGLING_TALLY = sql.DANGLING_TALLY
_NAME_LOCK = f"pg_advisory_xact_lock(hashtext('{MEMORY_TABLE}.name'), hashtext(n))"


def _dangling(row: str, sign: str) -> str:
    """The statements adding or taking off the references of the memory `row` to the dangling
    tally (as SQLite's index module writes them)."""
    tier = _TIER.format(row=row)
    if sign == "+":
        return f"""
            INSERT INTO {DANGLING_TALLY} AS t (target, tier, refs)
            SELECT j.value, {tier}, count(*) FROM jsonb_array_elements_text({row}.refs) AS j(value)
            WHERE NOT {sql.resolves("j.value", tier)} GROUP BY j.value
            ON CONFLICT (target, tier) DO UPDATE SET refs = t.refs + excluded.refs;"""
    return f"""
            UPDATE {DANGLING_TALLY} AS t SET refs = t.refs - gone.n
            FROM (SELECT value, count(*) AS n FROM jsonb_array_elements_text({row}.refs)
                  GROUP BY value) AS gone
            WHERE t.tier = {tier} AND t.target = gone.value;
            DELETE FROM {DANGLING_TALLY} WHERE tier = {tier} AND refs <= 0
                AND target IN (SELECT jsonb_array_elements_text({row}.refs));"""


def _recount_name(name: str, row: str, citing: str | None) -> str:
    return sql.recount_dangling(
        DANGLING_TALLY, name, row, citing, "jsonb_array_elements_text({row}.refs) AS j(value)"
    )


# The names whose resolution the write changes are locked, in order, as the cross-tier rule
# locks a memory's name: a writer past the doors' store lock waits on a second one naming
# the same, so each recounts what the other committed.
FUNCTIONS["memories_dangling_keep"] = f"""
CREATE OR REPLACE FUNCTION memories_dangling_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM {_NAME_LOCK} FROM (
        SELECT jsonb_array_elements_text(OLD.refs) UNION SELECT jsonb_array_elements_text(NEW.refs)
        UNION SELECT OLD.name UNION SELECT NEW.name
    ) AS names(n) WHERE n IS NOT NULL ORDER BY n;
    IF TG_OP <> 'UPDATE' OR OLD.refs IS DISTINCT FROM NEW.refs
        OR OLD.project_id IS DISTINCT FROM NEW.project_id THEN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN{_dangling("OLD", "-")}
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN{_dangling("NEW", "+")}
        END IF;
    END IF;
    IF TG_OP = 'DELETE' THEN{_recount_name("OLD.name", "OLD", None)}
    ELSIF TG_OP = 'INSERT' THEN{_recount_name("NEW.name", "NEW", "NEW")}
    ELSIF OLD.name IS DISTINCT FROM NEW.name OR OLD.project_id IS DISTINCT FROM NEW.project_id
    THEN{_recount_name("OLD.name", "NEW", "NEW")}{_recount_name("NEW.name", "NEW", "NEW")}
    END IF;
    RETURN NULL;
END $$"""

_EMPTY = "jsonb_array_length({row}.refs) = 0"
_ITEMS = "jsonb_array_elements_text({row}.refs) AS j(value)"

# The orphans (memories.models.Orphan), decided again for the memories a write can change.
FUNCTIONS["memories_orphans_keep"] = f"""
CREATE OR REPLACE FUNCTION memories_orphans_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN{sql.refresh_orphans(["NEW"], "NEW", False, _EMPTY, _ITEMS)}
    ELSIF TG_OP = 'DELETE' THEN{sql.refresh_orphans(["OLD"], "OLD", True, _EMPTY, _ITEMS)}
    ELSE{sql.refresh_orphans(["OLD", "NEW"], "NEW", False, _EMPTY, _ITEMS)}
    END IF;
    RETURN NULL;
END $$"""
FUNCTIONS["memories_orphan_tally_keep"] = f"""
CREATE OR REPLACE FUNCTION memories_orphan_tally_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN{sql.carry_orphan("NEW.tier", "1")}
    ELSE{sql.carry_orphan("OLD.tier", "-1")}
    END IF;
    RETURN NULL;
END $$"""

# The dangling tally's sums per target and the store's totals: name -> (table, function).
# Each memory's wording row (memories.models.Wording) and the count of each key.
FUNCTIONS["memories_wording_keep"] = f"""
CREATE OR REPLACE FUNCTION memories_wording_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN{sql.new_wording("NEW")}
    ELSIF TG_OP = 'DELETE' THEN{sql.gone_wording("OLD")}
    ELSE{sql.reworded("NEW")}
    END IF;
    RETURN NULL;
END $$"""
FUNCTIONS["memories_wording_tally_keep"] = f"""
CREATE OR REPLACE FUNCTION memories_wording_tally_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN{sql.carry_wording("OLD.wording", "-1")}
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN{sql.carry_wording("NEW.wording", "1")}
    END IF;
    RETURN NULL;
END $$"""

_SUMS = {}
for _name, (_table, _carried) in sql.dangling_sums("NEW", "OLD").items():
    _SUMS[_name] = (_table, f"{_name}_keep")
    FUNCTIONS[f"{_name}_keep"] = f"""
CREATE OR REPLACE FUNCTION {_name}_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN{_carried["ai"]}
    ELSIF TG_OP = 'UPDATE' THEN{_carried["au"]}
    ELSE{_carried["ad"]}
    END IF;
    RETURN NULL;
END $$"""


def _kept_by(name: str, table: str, function: str) -> dict[str, str]:
    """The triggers `name`_ai, _au, _ad of `table` calling `function` on each row inserted,
    changing its refs or deleted."""
    return {
        f"{name}_ai": f"""
CREATE TRIGGER {name}_ai AFTER INSERT ON {table}
FOR EACH ROW EXECUTE FUNCTION {function}()""",
        f"{name}_au": f"""
CREATE TRIGGER {name}_au AFTER UPDATE OF refs ON {table}
FOR EACH ROW WHEN (OLD.refs IS DISTINCT FROM NEW.refs) EXECUTE FUNCTION {function}()""",
        f"{name}_ad": f"""
CREATE TRIGGER {name}_ad AFTER DELETE ON {table}
FOR EACH ROW EXECUTE FUNCTION {function}()""",
    }


_WRITTEN = ("name", "description", "body", *RANKED_FROM)  # what the search index is made of

# name -> CREATE TRIGGER statement.
TRIGGERS = {
    "memories_search_ai": f"""
CREATE TRIGGER memories_search_ai AFTER INSERT ON {MEMORY_TABLE}
FOR EACH ROW EXECUTE FUNCTION memories_search_keep()""",
    "memories_search_au": f"""
CREATE TRIGGER memories_search_au
AFTER UPDATE OF {", ".join(_WRITTEN)} ON {MEMORY_TABLE}
FOR EACH ROW WHEN ({" OR ".join(f"OLD.{c} IS DISTINCT FROM NEW.{c}" for c in _WRITTEN)})
EXECUTE FUNCTION memories_search_keep()""",
    "memories_search_at": f"""
CREATE TRIGGER memories_search_at AFTER TRUNCATE ON {MEMORY_TABLE}
FOR EACH STATEMENT EXECUTE FUNCTION memories_search_clear()""",
    "memories_refs_ai": f"""
CREATE TRIGGER memories_refs_ai AFTER INSERT ON {MEMORY_TABLE}
FOR EACH ROW EXECUTE FUNCTION memories_refs_keep()""",
    "memories_refs_au": f"""
CREATE TRIGGER memories_refs_au AFTER UPDATE OF refs ON {MEMORY_TABLE}
FOR EACH ROW WHEN (NEW.refs IS DISTINCT FROM OLD.refs) EXECUTE FUNCTION memories_refs_keep()""",
    "memories_refs_tier_au": f"""
CREATE TRIGGER memories_refs_tier_au AFTER UPDATE OF project_id ON {MEMORY_TABLE}
FOR EACH ROW WHEN (NEW.project_id IS DISTINCT FROM OLD.project_id)
EXECUTE FUNCTION memories_refs_move()""",
    "memories_refs_order_au": f"""
CREATE TRIGGER memories_refs_order_au AFTER UPDATE OF priority, created_at ON {MEMORY_TABLE}
FOR EACH ROW WHEN (
    NEW.priority IS DISTINCT FROM OLD.priority OR NEW.created_at IS DISTINCT FROM OLD.created_at
) EXECUTE FUNCTION memories_refs_order()""",
    "memories_tags_ai": f"""
CREATE TRIGGER memories_tags_ai AFTER INSERT ON {MEMORY_TABLE}
FOR EACH ROW EXECUTE FUNCTION memories_tags_keep()""",
    "memories_tags_au": f"""
CREATE TRIGGER memories_tags_au AFTER UPDATE OF tags ON {MEMORY_TABLE}
FOR EACH ROW WHEN (NEW.tags IS DISTINCT FROM OLD.tags) EXECUTE FUNCTION memories_tags_keep()""",
    "memories_tags_verified_au": f"""
CREATE TRIGGER memories_tags_verified_au AFTER UPDATE OF verified_at ON {MEMORY_TABLE}
FOR EACH ROW WHEN (NEW.verified_at IS DISTINCT FROM OLD.verified_at)
EXECUTE FUNCTION memories_tags_verify()""",
    "memories_tags_expiry_au": f"""
CREATE TRIGGER memories_tags_expiry_au AFTER UPDATE OF expires_at ON {MEMORY_TABLE}
FOR EACH ROW WHEN (NEW.expires_at IS DISTINCT FROM OLD.expires_at)
EXECUTE FUNCTION memories_tags_expire()""",
    "memories_derived_ad": f"""
CREATE TRIGGER memories_derived_ad AFTER DELETE ON {MEMORY_TABLE}
FOR EACH ROW EXECUTE FUNCTION memories_derived_forget()""",
    "memories_tally_ai": f"""
CREATE TRIGGER memories_tally_ai AFTER INSERT ON {MEMORY_TABLE}
FOR EACH ROW EXECUTE FUNCTION memories_tally_keep()""",
    "memories_tally_ad": f"""
CREATE TRIGGER memories_tally_ad AFTER DELETE ON {MEMORY_TABLE}
FOR EACH ROW EXECUTE FUNCTION memories_tally_keep()""",
    "memories_tally_au": f"""
CREATE TRIGGER memories_tally_au
AFTER UPDATE OF project_id, load, priority, body, tags, read_count ON {MEMORY_TABLE}
FOR EACH ROW WHEN (
    OLD.project_id IS DISTINCT FROM NEW.project_id OR OLD.load IS DISTINCT FROM NEW.load
    OR OLD.priority IS DISTINCT FROM NEW.priority OR OLD.body IS DISTINCT FROM NEW.body
    OR OLD.tags IS DISTINCT FROM NEW.tags
    OR (OLD.{sql.NEVER_READ}) IS DISTINCT FROM (NEW.{sql.NEVER_READ})
) EXECUTE FUNCTION memories_tally_keep()""",
    "memories_facet_tally_ai": f"""
CREATE TRIGGER memories_facet_tally_ai AFTER INSERT ON {MEMORY_TABLE}
FOR EACH ROW EXECUTE FUNCTION memories_facet_tally_keep()""",
    "memories_facet_tally_ad": f"""
CREATE TRIGGER memories_facet_tally_ad AFTER DELETE ON {MEMORY_TABLE}
FOR EACH ROW EXECUTE FUNCTION memories_facet_tally_keep()""",
    "memories_facet_tally_au": f"""
CREATE TRIGGER memories_facet_tally_au
AFTER UPDATE OF project_id, load, verified_at, tags ON {MEMORY_TABLE}
FOR EACH ROW WHEN (
    OLD.project_id IS DISTINCT FROM NEW.project_id OR OLD.load IS DISTINCT FROM NEW.load
    OR OLD.verified_at IS DISTINCT FROM NEW.verified_at OR OLD.tags IS DISTINCT FROM NEW.tags
) EXECUTE FUNCTION memories_facet_tally_keep()""",
    "memories_dangling_ai": f"""
CREATE TRIGGER memories_dangling_ai AFTER INSERT ON {MEMORY_TABLE}
FOR EACH ROW EXECUTE FUNCTION memories_dangling_keep()""",
    "memories_dangling_ad": f"""
CREATE TRIGGER memories_dangling_ad AFTER DELETE ON {MEMORY_TABLE}
FOR EACH ROW EXECUTE FUNCTION memories_dangling_keep()""",
    "memories_dangling_au": f"""
CREATE TRIGGER memories_dangling_au AFTER UPDATE OF refs, project_id, name ON {MEMORY_TABLE}
FOR EACH ROW WHEN (
    OLD.refs IS DISTINCT FROM NEW.refs OR OLD.project_id IS DISTINCT FROM NEW.project_id
    OR OLD.name IS DISTINCT FROM NEW.name
) EXECUTE FUNCTION memories_dangling_keep()""",
    # The dangling tally's sums per target, and the store's totals of those.
    **{
        trigger: statement
        for name, (table, function) in _SUMS.items()
        for trigger, statement in _kept_by(name, table, function).items()
    },
    "memories_orphans_ai": f"""
CREATE TRIGGER memories_orphans_ai AFTER INSERT ON {MEMORY_TABLE}
FOR EACH ROW EXECUTE FUNCTION memories_orphans_keep()""",
    "memories_orphans_ad": f"""
CREATE TRIGGER memories_orphans_ad AFTER DELETE ON {MEMORY_TABLE}
FOR EACH ROW EXECUTE FUNCTION memories_orphans_keep()""",
    "memories_orphans_au": f"""
CREATE TRIGGER memories_orphans_au AFTER UPDATE OF refs, name, project_id ON {MEMORY_TABLE}
FOR EACH ROW WHEN (
    OLD.refs IS DISTINCT FROM NEW.refs OR OLD.project_id IS DISTINCT FROM NEW.project_id
    OR OLD.name IS DISTINCT FROM NEW.name
) EXECUTE FUNCTION memories_orphans_keep()""",
    "memories_orphan_tally_ai": f"""
CREATE TRIGGER memories_orphan_tally_ai AFTER INSERT ON {sql.ORPHAN}
FOR EACH ROW EXECUTE FUNCTION memories_orphan_tally_keep()""",
    "memories_orphan_tally_ad": f"""
CREATE TRIGGER memories_orphan_tally_ad AFTER DELETE ON {sql.ORPHAN}
FOR EACH ROW EXECUTE FUNCTION memories_orphan_tally_keep()""",
    "memories_wording_ai": f"""
CREATE TRIGGER memories_wording_ai AFTER INSERT ON {MEMORY_TABLE}
FOR EACH ROW EXECUTE FUNCTION memories_wording_keep()""",
    "memories_wording_au": f"""
CREATE TRIGGER memories_wording_au AFTER UPDATE OF description ON {MEMORY_TABLE}
FOR EACH ROW WHEN (OLD.description IS DISTINCT FROM NEW.description)
EXECUTE FUNCTION memories_wording_keep()""",
    "memories_wording_ad": f"""
CREATE TRIGGER memories_wording_ad AFTER DELETE ON {MEMORY_TABLE}
FOR EACH ROW EXECUTE FUNCTION memories_wording_keep()""",
    "memories_wording_tally_ai": f"""
CREATE TRIGGER memories_wording_tally_ai AFTER INSERT ON {sql.WORDING}
FOR EACH ROW EXECUTE FUNCTION memories_wording_tally_keep()""",
    "memories_wording_tally_au": f"""
CREATE TRIGGER memories_wording_tally_au AFTER UPDATE OF wording ON {sql.WORDING}
FOR EACH ROW WHEN (OLD.wording IS DISTINCT FROM NEW.wording)
EXECUTE FUNCTION memories_wording_tally_keep()""",
    "memories_wording_tally_ad": f"""
CREATE TRIGGER memories_wording_tally_ad AFTER DELETE ON {sql.WORDING}
FOR EACH ROW EXECUTE FUNCTION memories_wording_tally_keep()""",
    "memories_cross_tier_bi": f"""
CREATE TRIGGER memories_cross_tier_bi BEFORE INSERT ON {MEMORY_TABLE}
FOR EACH ROW EXECUTE FUNCTION memories_cross_tier()""",
    "memories_cross_tier_bu": f"""
CREATE TRIGGER memories_cross_tier_bu BEFORE UPDATE OF name, project_id ON {MEMORY_TABLE}
FOR EACH ROW EXECUTE FUNCTION memories_cross_tier()""",
}

TABLES = {
    SEARCH_TABLE: f"""
CREATE TABLE {SEARCH_TABLE} (
    id bigint PRIMARY KEY,
    {SEARCH_COLUMN} tsvector NOT NULL,
    priority integer NOT NULL,
    read_count integer NOT NULL,
    verified_day double precision NOT NULL,
    created_at timestamp with time zone NOT NULL
)""",
}

# name -> CREATE INDEX statement.
INDEXES = {
    "memories_search_words": (
        f"CREATE INDEX memories_search_words ON {SEARCH_TABLE} USING gin ({SEARCH_COLUMN})"
    ),
    **{
        f"memories_{column}_trgm": (
            f"CREATE INDEX memories_{column}_trgm ON {MEMORY_TABLE}"
            f" USING gin ({column} gin_trgm_ops)"
        )
        for column in ("name", "description", "body")
    },
}

_EXPECTED = f"{VECTOR}(m.name, m.description, m.body)"
# Each memory's row of the search index as the trigger writes it, and the rows it holds.
_EXPECTED_SEARCH = (
    f"SELECT m.id, {_EXPECTED} AS {SEARCH_COLUMN}, "
    + ", ".join(f"{value.format(row='m')} AS {column}" for column, value in RANKED.items())
    + f" FROM {MEMORY_TABLE} m"
)
_SEARCHED = (SEARCH_COLUMN, *RANKED)
_AGREE = " AND ".join(f"s.{column} = e.{column}" for column in _SEARCHED)
_GONE = f"NOT EXISTS (SELECT 1 FROM {MEMORY_TABLE} AS m WHERE m.id = s.id)"


# A recount of each tally from the memories table, as the trigger keeps it.
RECOUNTS = {
    BAND_TALLY: (
        "SELECT coalesce(project_id, 0), load, priority, count(*), "
        f"coalesce(sum(octet_length(body)), 0), count(*) FILTER (WHERE {sql.NEVER_READ}) "
        f"FROM {MEMORY_TABLE} GROUP BY 1, 2, 3"
    ),
    TAG_TALLY: (
        "SELECT coalesce(m.project_id, 0), m.load, j.value, count(*), "
        f"count(*) FILTER (WHERE m.{sql.NEVER_READ}) "
        f"FROM {MEMORY_TABLE} m, jsonb_array_elements_text(m.tags) AS j(value) GROUP BY 1, 2, 3"
    ),
    VERIFIED_TALLY: (
        f"SELECT coalesce(project_id, 0), load, {_DAY.format(row=MEMORY_TABLE)}, count(*) "
        f"FROM {MEMORY_TABLE} GROUP BY 1, 2, 3"
    ),
    TAG_VERIFIED_TALLY: (
        f"SELECT coalesce(m.project_id, 0), j.value, {_DAY.format(row='m')}, count(*) "
        f"FROM {MEMORY_TABLE} m, jsonb_array_elements_text(m.tags) AS j(value) GROUP BY 1, 2, 3"
    ),
    TAG_PAIR_TALLY: (
        "SELECT coalesce(m.project_id, 0), a.value, b.value, count(*) "
        f"FROM {MEMORY_TABLE} m, {_PAIRS.format(row='m')} GROUP BY 1, 2, 3"
    ),
    **sql.DANGLING_RECOUNTS,
    **sql.orphan_recounts(_EMPTY),
    **sql.WORDING_RECOUNTS,
}
TALLY_COLUMNS = {
    BAND_TALLY: "tier, load, priority, memories, body_bytes, never_read",
    TAG_TALLY: "tier, load, tag, memories, never_read",
    VERIFIED_TALLY: "tier, load, day, memories",
    TAG_VERIFIED_TALLY: "tier, tag, day, memories",
    TAG_PAIR_TALLY: "tier, tag, other, memories",
    **sql.DANGLING_COLUMNS,
    **sql.ORPHAN_COLUMNS,
    **sql.WORDING_COLUMNS,
}


def migrated(cursor) -> bool:
    """Whether the memories table exists yet (the checks run before the first migrate too)."""
    return _exists(cursor, MEMORY_TABLE)


def missing_triggers(cursor) -> list[str]:
    cursor.execute(
        "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal"
        " AND tgrelid::regclass::text = ANY(%s)",
        [[MEMORY_TABLE, sql.ORPHAN, sql.WORDING, *(table for table, _ in _SUMS.values())]],
    )
    present = {row[0] for row in cursor.fetchall()}
    return sorted(set(TRIGGERS) - present)


def _missing_tables(cursor) -> list[str]:
    return [name for name in TABLES if not _exists(cursor, name)]


def _exists(cursor, table: str) -> bool:
    cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [table])
    return bool(cursor.fetchone()[0])


def _missing_indexes(cursor) -> list[str]:
    cursor.execute(
        "SELECT indexname FROM pg_indexes WHERE tablename = ANY(%s)", [[MEMORY_TABLE, *TABLES]]
    )
    present = {row[0] for row in cursor.fetchall()}
    return sorted(set(INDEXES) - present)


def _search_storage(cursor) -> str:
    cursor.execute(
        "SELECT attstorage FROM pg_attribute WHERE attrelid = to_regclass(%s) AND attname = %s",
        [SEARCH_TABLE, SEARCH_COLUMN],
    )
    return STORAGES[cursor.fetchone()[0]]


def _expected_rows(source: str) -> str:
    return _rows_of(source, "m", MEMORY_TABLE)


def check() -> IndexReport:
    """The search index recomputed and compared with every memory and kept in the row, the
    triggers and indexes present, the reference and tag tables against the memories' JSON."""
    report = IndexReport()
    with connection.cursor() as cursor:
        missing = _missing_tables(cursor)
        if missing:
            report.problems.append("tables missing: " + ", ".join(missing))
        else:
            _check_search(cursor, report)
        missing = missing_triggers(cursor)
        if missing:
            report.problems.append("triggers missing: " + ", ".join(missing))
        missing = _missing_indexes(cursor)
        if missing:
            report.problems.append("indexes missing: " + ", ".join(missing))
        expected = {table: _expected_rows(source) for table, (_, source, _) in DERIVED.items()}
        report.problems += sql.derived_problems(
            cursor, _differ, expected, RECOUNTS, TALLY_COLUMNS, DERIVED
        )
        report.problems += sql.wording_row_problems(cursor)
    return report


def _check_search(cursor, report: IndexReport) -> None:
    cursor.execute(
        f"SELECT count(*), count(s.id) FILTER (WHERE {_AGREE})"
        f" FROM ({_EXPECTED_SEARCH}) AS e LEFT JOIN {SEARCH_TABLE} AS s ON s.id = e.id"
    )
    report.rows, report.documents = cursor.fetchone()
    if report.rows != report.documents:
        report.problems.append(
            f"the search index of {report.rows - report.documents} of {report.rows} memories"
            " does not match their name, description, body, priority, read count and dates"
        )
    cursor.execute(f"SELECT count(*) FROM {SEARCH_TABLE} AS s WHERE {_GONE}")
    strays = cursor.fetchone()[0]
    if strays:
        report.problems.append(f"the search index holds {strays} rows of memories that are gone")
    storage = _search_storage(cursor)
    if storage != SEARCH_STORAGE:
        report.problems.append(
            f"the search vector's storage is {storage}, not {SEARCH_STORAGE} (in the row)"
        )


def _differ(cursor, expected: str, present: str) -> bool:
    """Whether two statements' rows differ, either way round."""
    cursor.execute(
        f"SELECT (SELECT count(*) FROM ({expected} EXCEPT ALL {present}) AS gone)"
        f" + (SELECT count(*) FROM ({present} EXCEPT ALL {expected}) AS extra)"
    )
    return bool(cursor.fetchone()[0])


REBUILD_STEPS = 5


def rebuild(progress=None) -> list[str]:
    """Put back the search index's table, the functions, triggers, indexes and the search
    vector's storage, and regenerate every derived value from the memories table; returns
    the tables, triggers and indexes put back.

    `progress(1)` is told as each of its REBUILD_STEPS steps is done.
    """

    def step() -> None:
        if progress is not None:
            progress(1)

    with transaction.atomic(), connection.cursor() as cursor:
        # An index is not built while the transaction has deferred checks pending.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        for statement in FUNCTIONS.values():
            cursor.execute(statement)
        restored = _missing_tables(cursor)
        for name in restored:
            cursor.execute(TABLES[name])
        triggers = missing_triggers(cursor)
        for name in triggers:
            cursor.execute(TRIGGERS[name])
        indexes = _missing_indexes(cursor)
        for name in indexes:
            cursor.execute(INDEXES[name])
        if _search_storage(cursor) != SEARCH_STORAGE:
            for statement in KEEP_IN_ROW:
                cursor.execute(statement)
        step()
        cursor.execute(f"DELETE FROM {SEARCH_TABLE} AS s WHERE {_GONE}")
        cursor.execute(
            f"INSERT INTO {SEARCH_TABLE} AS s (id, {', '.join(_SEARCHED)})"
            f" SELECT e.* FROM ({_EXPECTED_SEARCH}) AS e"
            f" LEFT JOIN {SEARCH_TABLE} AS s ON s.id = e.id"
            f" WHERE s.id IS NULL OR NOT ({_AGREE})"
            f" ON CONFLICT (id) DO UPDATE SET "
            + ", ".join(f"{column} = excluded.{column}" for column in _SEARCHED)
        )
        step()
        for table, (columns, source, _) in DERIVED.items():
            cursor.execute(f"DELETE FROM {table}")
            cursor.execute(
                f"INSERT INTO {table}(memory_id, position, {columns}) {_expected_rows(source)}"
            )
            step()
        sql.keep_wording_rows(cursor)
        # Each tally is counted afresh, those kept from it after it: with their triggers on,
        # each row put back would also update the tallies kept from it (the dangling
        # targets' and the store's one row of totals, read through every version this
        # transaction left of it: a time growing with the square of the store, minutes at
        # 1,000,000 memories), all of it then thrown away by their own recount.
        for table in RECOUNTS:
            cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
        for table, recount in RECOUNTS.items():
            cursor.execute(f"DELETE FROM {table}")
            cursor.execute(f"INSERT INTO {table}({TALLY_COLUMNS[table]}) {recount}")
        for table in RECOUNTS:
            cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
        step()
    return restored + triggers + indexes
