"""What the engines' statements are built with alike: text and its bound parameters written
together, a substring as a LIKE pattern, and the bounded scan of the plain-text sense."""

from collections.abc import Callable

from memories.engine.tables import (
    DANGLING_TALLY,
    DANGLING_TARGET,
    DANGLING_TOTAL,
    MEMORY_TABLE,
    ORPHAN,
    ORPHAN_TALLY,
    REFERENCE_TABLE,
    WORDING,
    WORDING_TALLY,
)

LIKE_ESCAPE = "\\"
# The read filter's `never` (reads.filters.ReadFilter) as the statements write it: the
# tallies' triggers on each engine and the facets' counts (reads.tallies).
NEVER_READ = "read_count = 0"


class Sql:
    """Text and positional parameters built together, in the order they appear."""

    def __init__(self):
        self.parts: list[str] = []
        self.params: list = []

    def add(self, text: str, *params) -> "Sql":
        self.parts.append(text)
        self.params.extend(params)
        return self

    def text(self) -> str:
        return "".join(self.parts)


def like_pattern(text: str) -> str:
    """`text` anywhere, its `%`, `_` and the escape character (LIKE_ESCAPE) escaped."""
    escaped = (
        text.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2)
        .replace("%", LIKE_ESCAPE + "%")
        .replace("_", LIKE_ESCAPE + "_")
    )
    return f"%{escaped}%"


def scan_cte(
    sql: Sql,
    table: str,
    parts: list,
    where: str,
    params: list,
    limit: int,
    text_condition: Callable[[Sql, str], None],
) -> int:
    """One bounded pass over the memories `table` for every scanned part (its `term`), newest
    first, within the filters' `where`: the CTE `scan` of (id, found<part's number>...).

    Materialized, so each term's matches are read from it and the bound can be checked.
    `text_condition` writes the engine's test of a LIKE pattern against the text columns.
    Returns the bound (0: nothing to scan).
    """
    scanned = [(number, part) for number, part in enumerate(parts) if part.scan]
    if not scanned:
        return 0
    sql.add(f"scan AS MATERIALIZED (SELECT {table}.id AS id")
    for number, part in scanned:
        sql.add(", ")
        text_condition(sql, like_pattern(part.term))
        sql.add(f" AS found{number}")
    sql.add(f" FROM {table} WHERE (")
    for index, (_, part) in enumerate(scanned):
        sql.add(" OR " if index else "")
        text_condition(sql, like_pattern(part.term))
    bound = limit * len(scanned)
    sql.add(f") AND {where} ORDER BY {table}.id DESC LIMIT {bound}), ", *params)
    return bound


def derived_problems(
    cursor,
    differ,
    expected: dict[str, str],
    recounts: dict[str, str],
    tally_columns: dict[str, str],
    derived: dict,
) -> list[str]:
    """What `check` finds wrong in the derived tables (each compared with `expected[table]`,
    the rows the memories' JSON lists give) and in the tallies (with their recount), by the
    engine's own `differ(cursor, expected, present)`."""
    problems = []
    for table, (columns, source, _) in derived.items():
        present = f"SELECT memory_id, position, {columns} FROM {table}"
        if differ(cursor, expected[table], present):
            problems.append(f"{table} does not match the memories' {source}")
    for table, recount in recounts.items():
        if differ(cursor, recount, f"SELECT {tally_columns[table]} FROM {table}"):
            problems.append(f"{table} does not match a recount of the memories")
    return problems


def resolves(target: str, tier: str, memories: str = MEMORY_TABLE) -> str:
    """Whether a reference of `tier` to `target` names a memory of its band: one of the
    global tier or its own, or for a global reference the one memory holding the name
    (reads.backlinks.resolve_in_band). The same SQL on either engine, for the dangling tally
    its triggers keep."""
    return f"""(EXISTS (
        SELECT 1 FROM {memories} AS h
        WHERE h.name = {target} AND (h.project_id IS NULL OR h.project_id = {tier})
    ) OR ({tier} = 0 AND (
        SELECT count(*) FROM (SELECT 1 FROM {memories} AS h WHERE h.name = {target} LIMIT 2) AS two
    ) = 1))"""


def recount_dangling(tally: str, name: str, row: str, citing: str | None, items: str) -> str:
    """The statements of a trigger recounting the dangling references to `name` in `tally`
    (a memory of that name came, went or moved, which changes what they resolve to): every
    other memory's from the reference table, the memory `row`'s own from `citing` (the new
    row; None: it is gone), whichever of its reference rows the reference triggers have
    written by then. `items` is the engine's rows `j(value)` of `{row}.refs`."""
    own = ""
    if citing:
        own = f"""
        UNION ALL SELECT coalesce({citing}.project_id, 0)
        FROM {items.format(row=citing)} WHERE j.value = {name}"""
    return f"""
    DELETE FROM {tally} WHERE target = {name};
    INSERT INTO {tally} (target, tier, refs)
    SELECT {name}, c.tier, count(*) FROM (
        SELECT r.tier AS tier FROM {REFERENCE_TABLE} AS r
        WHERE r.target = {name} AND r.memory_id <> {row}.id{own}
    ) AS c
    GROUP BY c.tier HAVING NOT {resolves(name, "c.tier")};"""


def carry_to_target(target: str, delta: str) -> str:
    """The statements of a trigger on the dangling tally moving `target`'s sum over every
    tier by `delta`, its row gone once the sum is 0."""
    return f"""
    INSERT INTO {DANGLING_TARGET} (target, refs) VALUES ({target}, {delta})
    ON CONFLICT (target) DO UPDATE SET refs = {DANGLING_TARGET}.refs + excluded.refs;
    DELETE FROM {DANGLING_TARGET} WHERE target = {target} AND refs <= 0;"""


def carry_to_total(targets: str, refs: str) -> str:
    """The statements of a trigger on the dangling targets moving the store's totals, the
    row of id 1, there only while a target dangles (as a recount of an empty store finds)."""
    return f"""
    INSERT INTO {DANGLING_TOTAL} (id, targets, refs) VALUES (1, {targets}, {refs})
    ON CONFLICT (id) DO UPDATE SET targets = {DANGLING_TOTAL}.targets + excluded.targets,
        refs = {DANGLING_TOTAL}.refs + excluded.refs;
    DELETE FROM {DANGLING_TOTAL} WHERE targets <= 0;"""


def dangling_sums(new: str, old: str) -> dict[str, tuple[str, dict[str, str]]]:
    """The triggers keeping the dangling tally's sums, by name: the table each is on and its
    statements as a row is inserted (ai), changes its refs (au) or is deleted (ad), the rows
    called `new` and `old` as the engine's triggers call them."""
    return {
        "memories_dangling_target": (
            DANGLING_TALLY,
            {
                "ai": carry_to_target(f"{new}.target", f"{new}.refs"),
                "au": carry_to_target(f"{new}.target", f"{new}.refs - {old}.refs"),
                "ad": carry_to_target(f"{old}.target", f"0 - {old}.refs"),
            },
        ),
        "memories_dangling_total": (
            DANGLING_TARGET,
            {
                "ai": carry_to_total("1", f"{new}.refs"),
                "au": carry_to_total("0", f"{new}.refs - {old}.refs"),
                "ad": carry_to_total("-1", f"0 - {old}.refs"),
            },
        ),
    }


_DANGLING_RECOUNT = (
    f"SELECT r.target AS target, r.tier AS tier, count(*) AS refs FROM {REFERENCE_TABLE} AS r "
    f"WHERE NOT {resolves('r.target', 'r.tier')} GROUP BY r.target, r.tier"
)
_TARGET_RECOUNT = (
    "SELECT d.target AS target, CAST(sum(d.refs) AS BIGINT) AS refs"
    f" FROM ({_DANGLING_RECOUNT}) AS d GROUP BY d.target"
)
# A recount of each dangling table from the references, as the triggers keep it, in the
# order a rebuild refills them (each table's triggers move the next), and their columns.
DANGLING_RECOUNTS = {
    DANGLING_TALLY: _DANGLING_RECOUNT,
    DANGLING_TARGET: _TARGET_RECOUNT,
    DANGLING_TOTAL: (
        "SELECT 1, count(*), CAST(sum(t.refs) AS BIGINT)"
        f" FROM ({_TARGET_RECOUNT}) AS t HAVING count(*) > 0"
    ),
}
DANGLING_COLUMNS = {
    DANGLING_TALLY: "target, tier, refs",
    DANGLING_TARGET: "target, refs",
    DANGLING_TOTAL: "id, targets, refs",
}


def cited(memory: str, writer: str | None = None, items: str | None = None) -> str:
    """Whether a reference resolves to the memory `memory` (a row alias), by the graph's rule
    (reads.graph's links): any naming a global memory, and a project memory's name when the
    reference is of that project, or global while the memory is the name's one holder.

    In a trigger of the memory `writer`, whose reference rows the reference triggers may
    not have written yet: every other memory's from the reference table, the writer's own
    from its row's `items` (None: it is gone), the engine's rows `j(value)` of its refs."""
    sole = f"""NOT EXISTS (
            SELECT 1 FROM {MEMORY_TABLE} AS o WHERE o.name = {memory}.name AND o.id <> {memory}.id
        )"""

    def naming(tier: str) -> str:
        return (
            f"({memory}.project_id IS NULL OR {tier} = {memory}.project_id"
            f" OR ({tier} = 0 AND {sole}))"
        )

    others = f" AND r.memory_id <> {writer}.id" if writer else ""
    test = f"""EXISTS (
        SELECT 1 FROM {REFERENCE_TABLE} AS r
        WHERE r.target = {memory}.name{others} AND {naming("r.tier")}
    )"""
    if writer and items:
        tier = f"coalesce({writer}.project_id, 0)"
        test += f""" OR EXISTS (
        SELECT 1 FROM {items.format(row=writer)} WHERE j.value = {memory}.name AND {naming(tier)}
    )"""
    return f"({test})"


def orphan(memory: str, empty: str, writer: str | None = None, items: str | None = None) -> str:
    """Whether the memory `memory` references nothing (`empty`, the engine's test of an empty
    refs list, with {row}) and nothing resolves to it (`cited`)."""
    return f"({empty.format(row=memory)} AND NOT {cited(memory, writer, items)})"


def refresh_orphans(rows: list[str], writer: str, gone: bool, empty: str, items: str) -> str:
    """The statements of a trigger of the memory `writer` (its new row; `gone`: it was
    deleted) deciding again which memories are orphans among those its write can change: the
    memories holding the name or a name cited by any of `rows` (the old row and the new),
    and itself. A row of ORPHAN carries its memory's tier, so one that moves is taken out and
    put back."""
    touched = " UNION ".join(
        f"SELECT h.id FROM {MEMORY_TABLE} AS h WHERE h.name = {row}.name"
        f" UNION SELECT h.id FROM {MEMORY_TABLE} AS h, {items.format(row=row)}"
        " WHERE h.name = j.value"
        for row in rows
    )
    touched += f" UNION SELECT {writer}.id"
    own = None if gone else items
    return f"""
    DELETE FROM {ORPHAN} WHERE memory_id IN ({touched}) AND NOT EXISTS (
        SELECT 1 FROM {MEMORY_TABLE} AS m WHERE m.id = {ORPHAN}.memory_id
        AND coalesce(m.project_id, 0) = {ORPHAN}.tier AND {orphan("m", empty, writer, own)}
    );
    INSERT INTO {ORPHAN} (memory_id, tier)
    SELECT m.id, coalesce(m.project_id, 0) FROM {MEMORY_TABLE} AS m
    WHERE m.id IN ({touched}) AND {orphan("m", empty, writer, own)}
    ON CONFLICT (memory_id) DO NOTHING;"""


def _carry(tally: str, column: str, value: str, delta: str, *, unless_null: bool = False) -> str:
    """The statements of a trigger moving the count of `tally`'s row for `value` (of its
    unique `column`) by `delta`, the row gone once the count is 0; `unless_null`: nothing
    while `value` is NULL."""
    source = (
        f"SELECT {value}, {delta}\n    WHERE {value} IS NOT NULL"
        if unless_null
        else f"VALUES ({value}, {delta})"
    )
    return f"""
    INSERT INTO {tally} ({column}, memories) {source}
    ON CONFLICT ({column}) DO UPDATE SET memories = {tally}.memories + excluded.memories;
    DELETE FROM {tally} WHERE {column} = {value} AND memories <= 0;"""


def carry_orphan(tier: str, delta: str) -> str:
    """The statements of a trigger on ORPHAN moving `tier`'s count by `delta`."""
    return _carry(ORPHAN_TALLY, "tier", tier, delta)


def orphan_recounts(empty: str) -> dict[str, str]:
    """A recount of the orphans and of their tally from the memories, in the order a rebuild
    refills them (ORPHAN's triggers move the tally)."""
    orphans = (
        "SELECT m.id AS memory_id, coalesce(m.project_id, 0) AS tier"
        f" FROM {MEMORY_TABLE} AS m WHERE {orphan('m', empty)}"
    )
    return {
        ORPHAN: orphans,
        ORPHAN_TALLY: f"SELECT o.tier, count(*) FROM ({orphans}) AS o GROUP BY o.tier",
    }


ORPHAN_COLUMNS = {ORPHAN: "memory_id, tier", ORPHAN_TALLY: "tier, memories"}


def carry_wording(wording: str, delta: str) -> str:
    """The statements of a trigger on WORDING moving the count of the key `wording` (none
    while it is NULL, a key not worked out yet) by `delta`."""
    return _carry(WORDING_TALLY, "wording", wording, delta, unless_null=True)


# A memory's wording row as its triggers write it: a new one, one whose description changed
# (its key unknown until a door or a mend works it out), one gone.
def new_wording(memory: str) -> str:
    return f"""
    INSERT INTO {WORDING} (memory_id, wording) VALUES ({memory}.id, NULL)
    ON CONFLICT (memory_id) DO UPDATE SET wording = NULL;"""


def reworded(memory: str) -> str:
    return f"""
    UPDATE {WORDING} SET wording = NULL WHERE memory_id = {memory}.id;"""


def gone_wording(memory: str) -> str:
    return f"""
    DELETE FROM {WORDING} WHERE memory_id = {memory}.id;"""


_WORDING_STRAYS = (
    f"FROM {WORDING} AS w WHERE NOT EXISTS (SELECT 1 FROM {MEMORY_TABLE} AS m"
    " WHERE m.id = w.memory_id)"
)
_WORDING_MISSING = (
    f"FROM {MEMORY_TABLE} AS m WHERE NOT EXISTS (SELECT 1 FROM {WORDING} AS w"
    " WHERE w.memory_id = m.id)"
)


def keep_wording_rows(cursor) -> None:
    """A rebuild's step: a row for every memory (its key unknown where there was none), none
    for a memory gone. The keys themselves are Python's (writes.wordings.mend)."""
    cursor.execute(
        f"DELETE FROM {WORDING} WHERE memory_id IN (SELECT w.memory_id {_WORDING_STRAYS})"
    )
    cursor.execute(
        f"INSERT INTO {WORDING} (memory_id, wording) SELECT m.id, NULL {_WORDING_MISSING}"
    )


def wording_row_problems(cursor) -> list[str]:
    """What `check` finds wrong in the rows of WORDING (not in its keys: writes.wordings)."""
    cursor.execute(
        f"SELECT (SELECT count(*) {_WORDING_MISSING}), (SELECT count(*) {_WORDING_STRAYS})"
    )
    missing, strays = cursor.fetchone()
    problems = []
    if missing:
        problems.append(f"{missing} memories have no row in {WORDING}")
    if strays:
        problems.append(f"{WORDING} holds {strays} rows of memories that are gone")
    return problems


WORDING_RECOUNTS = {
    WORDING_TALLY: (
        f"SELECT wording, count(*) FROM {WORDING} WHERE wording IS NOT NULL GROUP BY wording"
    )
}
WORDING_COLUMNS = {WORDING_TALLY: "wording, memories"}
