"""SQLite's search index and the other derived parts of the store: the FTS5 table over
name, description and body (porter stems on unicode61 tokens), the reference and tag
tables read from the refs and tags JSON, the tallies per tier and load (memories, body
bytes, tags; migration 0010; the never read of each, 0030), and for the list's facets per
tier, load or tag and UTC day of verification, and per tier and pair of tags (migration
0020).

Each is kept in step with memories_memory by triggers, created in raw SQL by migration 0002
(which froze its copy of the statements below). They are derived and disposable: `rebuild()`
regenerates them from the table and puts back any trigger a table rebuild dropped.
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

FTS_TABLE = "memories_fts"


def _tally(row: str, sign: str) -> str:
    """The statements adding (`sign` "+") or taking off ("-") a memory's row (`new` or `old`)
    to the tallies of its tier and load, and to their never-read counts when the agent never
    read it; a tally that falls to nothing is dropped, as a recount would not have it."""
    tier, size = f"coalesce({row}.project_id, 0)", f"length(CAST({row}.body AS BLOB))"
    unread = f"({row}.{sql.NEVER_READ})"
    if sign == "+":
        return f"""
    INSERT INTO {BAND_TALLY}(tier, load, priority, memories, body_bytes, never_read)
    VALUES ({tier}, {row}.load, {row}.priority, 1, {size}, {unread})
    ON CONFLICT (tier, load, priority) DO UPDATE SET
        memories = memories + 1, body_bytes = body_bytes + excluded.body_bytes,
        never_read = never_read + excluded.never_read;
    INSERT INTO {TAG_TALLY}(tier, load, tag, memories, never_read)
    SELECT {tier}, {row}.load, value, 1, {unread} FROM json_each({row}.tags) WHERE true
    ON CONFLICT (tier, load, tag) DO UPDATE SET
        memories = memories + 1, never_read = never_read + excluded.never_read;"""
    held = f"(SELECT count(*) FROM json_each({row}.tags) AS j WHERE j.value = {TAG_TALLY}.tag)"
    return f"""
    UPDATE {BAND_TALLY} SET memories = memories - 1, body_bytes = body_bytes - {size},
        never_read = never_read - {unread}
    WHERE tier = {tier} AND load = {row}.load AND priority = {row}.priority;
    DELETE FROM {BAND_TALLY}
    WHERE tier = {tier} AND load = {row}.load AND priority = {row}.priority AND memories <= 0;
    UPDATE {TAG_TALLY} SET memories = memories - {held}, never_read = never_read - {unread} * {held}
    WHERE tier = {tier} AND load = {row}.load
      AND tag IN (SELECT value FROM json_each({row}.tags));
    DELETE FROM {TAG_TALLY} WHERE tier = {tier} AND load = {row}.load AND memories <= 0;"""


def _day_tally(row: str, sign: str) -> str:
    """The statements adding or taking off the memory `row` to the tallies of its tier,
    load and tags by the day (UTC) it was verified."""
    tier, day = f"coalesce({row}.project_id, 0)", f"date({row}.verified_at)"
    if sign == "+":
        return f"""
    INSERT INTO {VERIFIED_TALLY}(tier, load, day, memories)
    VALUES ({tier}, {row}.load, {day}, 1)
    ON CONFLICT (tier, load, day) DO UPDATE SET memories = memories + 1;
    INSERT INTO {TAG_VERIFIED_TALLY}(tier, tag, day, memories)
    SELECT {tier}, value, {day}, 1 FROM json_each({row}.tags) WHERE true
    ON CONFLICT (tag, tier, day) DO UPDATE SET memories = memories + 1;"""
    return f"""
    UPDATE {VERIFIED_TALLY} SET memories = memories - 1
    WHERE tier = {tier} AND load = {row}.load AND day = {day};
    DELETE FROM {VERIFIED_TALLY}
    WHERE tier = {tier} AND load = {row}.load AND day = {day} AND memories <= 0;
    UPDATE {TAG_VERIFIED_TALLY} SET memories = memories - (
        SELECT count(*) FROM json_each({row}.tags) AS j WHERE j.value = {TAG_VERIFIED_TALLY}.tag
    )
    WHERE tier = {tier} AND day = {day} AND tag IN (SELECT value FROM json_each({row}.tags));
    DELETE FROM {TAG_VERIFIED_TALLY}
    WHERE tier = {tier} AND day = {day} AND tag IN (SELECT value FROM json_each({row}.tags))
      AND memories <= 0;"""


def _pair_tally(row: str, sign: str) -> str:
    """The statements adding or taking off the memory `row` to the tallies of its tier's
    pairs of tags."""
    tier = f"coalesce({row}.project_id, 0)"
    pairs = f"json_each({row}.tags) AS a, json_each({row}.tags) AS b"
    if sign == "+":
        return f"""
    INSERT INTO {TAG_PAIR_TALLY}(tier, tag, other, memories)
    SELECT {tier}, a.value, b.value, 1 FROM {pairs} WHERE a.value != b.value
    ON CONFLICT (tag, tier, other) DO UPDATE SET memories = memories + 1;"""
    return f"""
    UPDATE {TAG_PAIR_TALLY} SET memories = memories - (
        SELECT count(*) FROM {pairs}
        WHERE a.value = {TAG_PAIR_TALLY}.tag AND b.value = {TAG_PAIR_TALLY}.other
    )
    WHERE tier = {tier} AND tag IN (SELECT value FROM json_each({row}.tags));
    DELETE FROM {TAG_PAIR_TALLY}
    WHERE tier = {tier} AND tag IN (SELECT value FROM json_each({row}.tags)) AND memories <= 0;"""


DANGLING_TALLY = sql.DANGLING_TALLY


def _dangling(row: str, sign: str) -> str:
    """The statements adding or taking off the references of the memory `row` to the dangling
    tally. A reference added counts when its target resolves in no memory of its band; one
    taken off is taken from its target's row, there only when the target dangles."""
    tier = f"coalesce({row}.project_id, 0)"
    if sign == "+":
        return f"""
    INSERT INTO {DANGLING_TALLY}(target, tier, refs)
    SELECT j.value, {tier}, count(*) FROM json_each({row}.refs) AS j
    WHERE NOT {sql.resolves("j.value", tier)} GROUP BY j.value
    ON CONFLICT (target, tier) DO UPDATE SET refs = refs + excluded.refs;"""
    return f"""
    UPDATE {DANGLING_TALLY} SET refs = refs - (
        SELECT count(*) FROM json_each({row}.refs) AS j WHERE j.value = {DANGLING_TALLY}.target
    )
    WHERE tier = {tier} AND target IN (SELECT value FROM json_each({row}.refs));
    DELETE FROM {DANGLING_TALLY}
    WHERE tier = {tier} AND target IN (SELECT value FROM json_each({row}.refs)) AND refs <= 0;"""


def _recount_name(name: str, row: str, citing: str | None) -> str:
    return sql.recount_dangling(DANGLING_TALLY, name, row, citing, "json_each({row}.refs) AS j")


_EMPTY = "json_array_length({row}.refs) = 0"
_ITEMS = "json_each({row}.refs) AS j"


def _orphans(rows: list[str], writer: str, gone: bool = False) -> str:
    return sql.refresh_orphans(rows, writer, gone, _EMPTY, _ITEMS)


# name -> CREATE TRIGGER statement. Everything a row written past the doors must not break.
TRIGGERS = {
    "memories_fts_ai": f"""
CREATE TRIGGER memories_fts_ai AFTER INSERT ON {MEMORY_TABLE} BEGIN
    INSERT INTO {FTS_TABLE}(rowid, name, description, body)
    VALUES (new.id, new.name, new.description, new.body);
END""",
    "memories_fts_ad": f"""
CREATE TRIGGER memories_fts_ad AFTER DELETE ON {MEMORY_TABLE} BEGIN
    INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, name, description, body)
    VALUES ('delete', old.id, old.name, old.description, old.body);
END""",
    "memories_fts_au": f"""
CREATE TRIGGER memories_fts_au AFTER UPDATE OF name, description, body ON {MEMORY_TABLE} BEGIN
    INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, name, description, body)
    VALUES ('delete', old.id, old.name, old.description, old.body);
    INSERT INTO {FTS_TABLE}(rowid, name, description, body)
    VALUES (new.id, new.name, new.description, new.body);
END""",
    "memories_refs_ai": f"""
CREATE TRIGGER memories_refs_ai AFTER INSERT ON {MEMORY_TABLE} BEGIN
    INSERT INTO memories_reference(memory_id, position, target, tier, priority, created_at)
    SELECT new.id, key, value, coalesce(new.project_id, 0), new.priority, new.created_at
    FROM json_each(new.refs);
    INSERT INTO memories_tag(memory_id, position, tag, tier, verified_at, expires_at)
    SELECT new.id, key, value, coalesce(new.project_id, 0), new.verified_at, new.expires_at
    FROM json_each(new.tags);
END""",
    "memories_refs_au": f"""
CREATE TRIGGER memories_refs_au AFTER UPDATE OF refs ON {MEMORY_TABLE}
WHEN new.refs IS NOT old.refs BEGIN
    DELETE FROM memories_reference WHERE memory_id = old.id;
    INSERT INTO memories_reference(memory_id, position, target, tier, priority, created_at)
    SELECT new.id, key, value, coalesce(new.project_id, 0), new.priority, new.created_at
    FROM json_each(new.refs);
END""",
    "memories_refs_tier_au": f"""
CREATE TRIGGER memories_refs_tier_au AFTER UPDATE OF project_id ON {MEMORY_TABLE}
WHEN new.project_id IS NOT old.project_id BEGIN
    UPDATE memories_reference SET tier = coalesce(new.project_id, 0) WHERE memory_id = new.id;
    UPDATE memories_tag SET tier = coalesce(new.project_id, 0) WHERE memory_id = new.id;
END""",
    "memories_refs_order_au": f"""
CREATE TRIGGER memories_refs_order_au AFTER UPDATE OF priority, created_at ON {MEMORY_TABLE}
WHEN new.priority IS NOT old.priority OR new.created_at IS NOT old.created_at BEGIN
    UPDATE memories_reference SET priority = new.priority, created_at = new.created_at
    WHERE memory_id = new.id;
END""",
    "memories_tags_verified_au": f"""
CREATE TRIGGER memories_tags_verified_au AFTER UPDATE OF verified_at ON {MEMORY_TABLE}
WHEN new.verified_at IS NOT old.verified_at BEGIN
    UPDATE memories_tag SET verified_at = new.verified_at WHERE memory_id = new.id;
END""",
    "memories_tags_expiry_au": f"""
CREATE TRIGGER memories_tags_expiry_au AFTER UPDATE OF expires_at ON {MEMORY_TABLE}
WHEN new.expires_at IS NOT old.expires_at BEGIN
    UPDATE memories_tag SET expires_at = new.expires_at WHERE memory_id = new.id;
END""",
    "memories_tags_au": f"""
CREATE TRIGGER memories_tags_au AFTER UPDATE OF tags ON {MEMORY_TABLE}
WHEN new.tags IS NOT old.tags BEGIN
    DELETE FROM memories_tag WHERE memory_id = old.id;
    INSERT INTO memories_tag(memory_id, position, tag, tier, verified_at, expires_at)
    SELECT new.id, key, value, coalesce(new.project_id, 0), new.verified_at, new.expires_at
    FROM json_each(new.tags);
END""",
    "memories_refs_ad": f"""
CREATE TRIGGER memories_refs_ad AFTER DELETE ON {MEMORY_TABLE} BEGIN
    DELETE FROM memories_reference WHERE memory_id = old.id;
    DELETE FROM memories_tag WHERE memory_id = old.id;
END""",
    # Statements of the writing statement's own transaction: a rolled-back write takes its
    # tally with it, and SQLite has one writer at a time, so no two writes race on a row.
    "memories_tally_ai": f"""
CREATE TRIGGER memories_tally_ai AFTER INSERT ON {MEMORY_TABLE} BEGIN{_tally("new", "+")}
END""",
    "memories_tally_ad": f"""
CREATE TRIGGER memories_tally_ad AFTER DELETE ON {MEMORY_TABLE} BEGIN{_tally("old", "-")}
END""",
    "memories_tally_au": f"""
CREATE TRIGGER memories_tally_au
AFTER UPDATE OF project_id, load, priority, body, tags, read_count ON {MEMORY_TABLE}
WHEN old.project_id IS NOT new.project_id OR old.load IS NOT new.load
  OR old.priority IS NOT new.priority OR old.body IS NOT new.body OR old.tags IS NOT new.tags
  OR (old.{sql.NEVER_READ}) IS NOT (new.{sql.NEVER_READ})
BEGIN{_tally("old", "-")}{_tally("new", "+")}
END""",
    "memories_facet_tally_ai": f"""
CREATE TRIGGER memories_facet_tally_ai AFTER INSERT ON {MEMORY_TABLE}
BEGIN{_day_tally("new", "+")}{_pair_tally("new", "+")}
END""",
    "memories_facet_tally_ad": f"""
CREATE TRIGGER memories_facet_tally_ad AFTER DELETE ON {MEMORY_TABLE}
BEGIN{_day_tally("old", "-")}{_pair_tally("old", "-")}
END""",
    "memories_day_tally_au": f"""
CREATE TRIGGER memories_day_tally_au
AFTER UPDATE OF project_id, load, verified_at, tags ON {MEMORY_TABLE}
WHEN old.project_id IS NOT new.project_id OR old.load IS NOT new.load
  OR old.verified_at IS NOT new.verified_at OR old.tags IS NOT new.tags
BEGIN{_day_tally("old", "-")}{_day_tally("new", "+")}
END""",
    "memories_pair_tally_au": f"""
CREATE TRIGGER memories_pair_tally_au AFTER UPDATE OF project_id, tags ON {MEMORY_TABLE}
WHEN old.project_id IS NOT new.project_id OR old.tags IS NOT new.tags
BEGIN{_pair_tally("old", "-")}{_pair_tally("new", "+")}
END""",
    # The dangling tally: after the reference triggers or before them, the same rows.
    "memories_dangling_ai": f"""
CREATE TRIGGER memories_dangling_ai AFTER INSERT ON {MEMORY_TABLE}
BEGIN{_dangling("new", "+")}{_recount_name("new.name", "new", "new")}
END""",
    "memories_dangling_ad": f"""
CREATE TRIGGER memories_dangling_ad AFTER DELETE ON {MEMORY_TABLE}
BEGIN{_dangling("old", "-")}{_recount_name("old.name", "old", None)}
END""",
    "memories_dangling_refs_au": f"""
CREATE TRIGGER memories_dangling_refs_au AFTER UPDATE OF refs, project_id ON {MEMORY_TABLE}
WHEN old.refs IS NOT new.refs OR old.project_id IS NOT new.project_id
BEGIN{_dangling("old", "-")}{_dangling("new", "+")}
END""",
    "memories_dangling_name_au": f"""
CREATE TRIGGER memories_dangling_name_au AFTER UPDATE OF name, project_id ON {MEMORY_TABLE}
WHEN old.name IS NOT new.name OR old.project_id IS NOT new.project_id
BEGIN{_recount_name("old.name", "new", "new")}{_recount_name("new.name", "new", "new")}
END""",
    # The orphans (memories.models.Orphan) and their tally per tier.
    "memories_orphans_ai": f"""
CREATE TRIGGER memories_orphans_ai AFTER INSERT ON {MEMORY_TABLE}
BEGIN{_orphans(["new"], "new")}
END""",
    "memories_orphans_ad": f"""
CREATE TRIGGER memories_orphans_ad AFTER DELETE ON {MEMORY_TABLE}
BEGIN{_orphans(["old"], "old", gone=True)}
END""",
    "memories_orphans_au": f"""
CREATE TRIGGER memories_orphans_au AFTER UPDATE OF refs, name, project_id ON {MEMORY_TABLE}
WHEN old.refs IS NOT new.refs OR old.name IS NOT new.name OR old.project_id IS NOT new.project_id
BEGIN{_orphans(["old", "new"], "new")}
END""",
    "memories_orphan_tally_ai": f"""
CREATE TRIGGER memories_orphan_tally_ai AFTER INSERT ON {sql.ORPHAN}
BEGIN{sql.carry_orphan("new.tier", "1")}
END""",
    "memories_orphan_tally_ad": f"""
CREATE TRIGGER memories_orphan_tally_ad AFTER DELETE ON {sql.ORPHAN}
BEGIN{sql.carry_orphan("old.tier", "-1")}
END""",
    # Each memory's wording row (memories.models.Wording) and the count of each key.
    "memories_wording_ai": f"""
CREATE TRIGGER memories_wording_ai AFTER INSERT ON {MEMORY_TABLE}
BEGIN{sql.new_wording("new")}
END""",
    "memories_wording_au": f"""
CREATE TRIGGER memories_wording_au AFTER UPDATE OF description ON {MEMORY_TABLE}
WHEN old.description IS NOT new.description
BEGIN{sql.reworded("new")}
END""",
    "memories_wording_ad": f"""
CREATE TRIGGER memories_wording_ad AFTER DELETE ON {MEMORY_TABLE}
BEGIN{sql.gone_wording("old")}
END""",
    "memories_wording_tally_ai": f"""
CREATE TRIGGER memories_wording_tally_ai AFTER INSERT ON {sql.WORDING}
BEGIN{sql.carry_wording("new.wording", "1")}
END""",
    "memories_wording_tally_au": f"""
CREATE TRIGGER memories_wording_tally_au AFTER UPDATE OF wording ON {sql.WORDING}
WHEN old.wording IS NOT new.wording
BEGIN{sql.carry_wording("old.wording", "-1")}{sql.carry_wording("new.wording", "1")}
END""",
    "memories_wording_tally_ad": f"""
CREATE TRIGGER memories_wording_tally_ad AFTER DELETE ON {sql.WORDING}
BEGIN{sql.carry_wording("old.wording", "-1")}
END""",
    # A global name is never also a project's. The doors refuse it first with the domain's
    # words; these keep a row written past them from breaking the rule.
    "memories_cross_tier_bi": f"""
CREATE TRIGGER memories_cross_tier_bi BEFORE INSERT ON {MEMORY_TABLE}
WHEN EXISTS (
    SELECT 1 FROM {MEMORY_TABLE} AS other
    WHERE other.name = new.name
      AND (other.project_id IS NULL) != (new.project_id IS NULL)
) BEGIN
    SELECT RAISE(ABORT, 'a global name is never also a project''s name: choose another name');
END""",
    "memories_cross_tier_bu": f"""
CREATE TRIGGER memories_cross_tier_bu BEFORE UPDATE OF name, project_id ON {MEMORY_TABLE}
WHEN EXISTS (
    SELECT 1 FROM {MEMORY_TABLE} AS other
    WHERE other.name = new.name AND other.id != new.id
      AND (other.project_id IS NULL) != (new.project_id IS NULL)
) BEGIN
    SELECT RAISE(ABORT, 'a global name is never also a project''s name: choose another name');
END""",
}


def _sum_triggers() -> dict[str, str]:
    """The triggers keeping the dangling tally's sums per target and the store's totals."""
    triggers = {}
    for name, (table, carried) in sql.dangling_sums("new", "old").items():
        triggers[f"{name}_ai"] = f"""
CREATE TRIGGER {name}_ai AFTER INSERT ON {table}
BEGIN{carried["ai"]}
END"""
        triggers[f"{name}_au"] = f"""
CREATE TRIGGER {name}_au AFTER UPDATE OF refs ON {table}
WHEN old.refs IS NOT new.refs
BEGIN{carried["au"]}
END"""
        triggers[f"{name}_ad"] = f"""
CREATE TRIGGER {name}_ad AFTER DELETE ON {table}
BEGIN{carried["ad"]}
END"""
    return triggers


TRIGGERS.update(_sum_triggers())


def migrated(cursor) -> bool:
    """Whether the memories table exists yet (the checks run before the first migrate too)."""
    cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = %s", [MEMORY_TABLE])
    return cursor.fetchone() is not None


def missing_triggers(cursor) -> list[str]:
    cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    present = {row[0] for row in cursor.fetchall()}
    return sorted(set(TRIGGERS) - present)


def install_triggers(cursor) -> list[str]:
    """Recreate any trigger a table rebuild dropped; returns the names it put back."""
    missing = missing_triggers(cursor)
    for name in missing:
        cursor.execute(TRIGGERS[name])
    return missing


def check() -> IndexReport:
    """Check the FTS index and the reference/tag tables against the memories table.

    Plain 'integrity-check' and PRAGMA integrity_check both pass on an external-content
    index whose text no longer matches its table; rank 1 makes FTS5 compare the two.
    """
    report = IndexReport()
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {MEMORY_TABLE}")
        report.rows = cursor.fetchone()[0]
        cursor.execute(f"SELECT count(*) FROM {FTS_TABLE}_docsize")
        report.documents = cursor.fetchone()[0]
        if report.rows != report.documents:
            report.problems.append(
                f"the index holds {report.documents} documents for {report.rows} memories"
            )
        try:
            cursor.execute(
                f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES ('integrity-check', 1)"
            )
        except Exception as exc:  # sqlite reports drift as a corrupt-database error
            report.problems.append(f"the index does not match the memories table ({exc})")
        missing = missing_triggers(cursor)
        if missing:
            report.problems.append("triggers missing: " + ", ".join(missing))
        expected = {table: _rows_of(source, kept) for table, (_, source, kept) in DERIVED.items()}
        report.problems += sql.derived_problems(
            cursor, _differ, expected, RECOUNTS, TALLY_COLUMNS, DERIVED
        )
        report.problems += sql.wording_row_problems(cursor)
    return report


def _differ(cursor, expected: str, present: str) -> bool:
    """Whether two statements' rows differ, either way round."""
    cursor.execute(
        f"SELECT (SELECT count(*) FROM ({expected} EXCEPT {present})) "
        f"+ (SELECT count(*) FROM ({present} EXCEPT {expected}))"
    )
    return bool(cursor.fetchone()[0])


# table -> (its columns past memory_id and position, the memories' JSON list it is read
# from, what else of the memory's row it keeps), as the triggers write them.
DERIVED = {
    "memories_reference": (
        "target, tier, priority, created_at",
        "refs",
        ", coalesce(m.project_id, 0), m.priority, m.created_at",
    ),
    "memories_tag": (
        "tag, tier, verified_at, expires_at",
        "tags",
        ", coalesce(m.project_id, 0), m.verified_at, m.expires_at",
    ),
}


def _rows_of(source: str, kept: str) -> str:
    """What a derived table holds for every memory: (id, position, item, what else it keeps)."""
    return f"SELECT m.id, j.key, j.value{kept} FROM {MEMORY_TABLE} m, json_each(m.{source}) j"


# A recount of each tally from the memories table, as the triggers keep it.
RECOUNTS = {
    BAND_TALLY: (
        "SELECT coalesce(project_id, 0), load, priority, count(*), "
        f"coalesce(sum(length(CAST(body AS BLOB))), 0), sum({sql.NEVER_READ}) "
        f"FROM {MEMORY_TABLE} GROUP BY 1, 2, 3"
    ),
    TAG_TALLY: (
        f"SELECT coalesce(m.project_id, 0), m.load, j.value, count(*), sum(m.{sql.NEVER_READ}) "
        f"FROM {MEMORY_TABLE} m, json_each(m.tags) j GROUP BY 1, 2, 3"
    ),
    VERIFIED_TALLY: (
        "SELECT coalesce(project_id, 0), load, date(verified_at), count(*) "
        f"FROM {MEMORY_TABLE} GROUP BY 1, 2, 3"
    ),
    TAG_VERIFIED_TALLY: (
        "SELECT coalesce(m.project_id, 0), j.value, date(m.verified_at), count(*) "
        f"FROM {MEMORY_TABLE} m, json_each(m.tags) j GROUP BY 1, 2, 3"
    ),
    TAG_PAIR_TALLY: (
        "SELECT coalesce(m.project_id, 0), a.value, b.value, count(*) "
        f"FROM {MEMORY_TABLE} m, json_each(m.tags) a, json_each(m.tags) b"
        " WHERE a.value != b.value GROUP BY 1, 2, 3"
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

REBUILD_STEPS = 5


def rebuild(progress=None) -> list[str]:
    """Regenerate every derived table from the memories table; returns triggers put back.

    `progress(1)` is told as each of its REBUILD_STEPS steps is done.
    """

    def step() -> None:
        if progress is not None:
            progress(1)

    with transaction.atomic(), connection.cursor() as cursor:
        restored = install_triggers(cursor)
        step()
        cursor.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')")
        step()
        for table, (columns, source, kept) in DERIVED.items():
            cursor.execute(f"DELETE FROM {table}")
            cursor.execute(
                f"INSERT INTO {table}(memory_id, position, {columns}) {_rows_of(source, kept)}"
            )
            step()
        sql.keep_wording_rows(cursor)
        for table, recount in RECOUNTS.items():
            cursor.execute(f"DELETE FROM {table}")
            cursor.execute(f"INSERT INTO {table}({TALLY_COLUMNS[table]}) {recount}")
        step()
    return restored
