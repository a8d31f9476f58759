"""PostgreSQL's spelling of the pieces of the reads and writes that each dialect spells its
own way."""

# What the seam (memories.engine.PROVIDES) takes from this module, and nothing else.
__all__ = [
    "values",
    "ordered_values",
    "byte_length",
    "likelihood",
    "unindexed",
    "glob",
    "json_values",
    "KEYS_HOLD_ID_ORDER",
]

# A B-tree's entries of one key are in the order of their place in the heap, not of the id.
KEYS_HOLD_ID_ORDER = False


def values(items) -> tuple[str, list]:
    """A subquery of one column, `value`, holding the items: one array parameter."""
    items = list(items)
    kind = "text[]" if any(isinstance(item, str) for item in items) else "bigint[]"
    return f"SELECT unnest(%s::{kind}) AS value", [items]


def ordered_values(items: list[int]) -> tuple[str, list]:
    """A subquery of two columns, `value` (the ids, one array parameter) and `place`, each
    one's position among them, ascending. The array is bound as its text: psycopg's
    adapter of a list took 0.3 ms of CPU for the 400 ids a search's neighbours are read
    by, the text 0.06 (bench/results/2026-12-05-pglatency)."""
    array = "{" + ",".join(str(int(item)) for item in items) + "}"
    return "SELECT value, place FROM unnest(%s::bigint[]) WITH ORDINALITY AS ids(value, place)", [
        array
    ]


def byte_length(sql: str) -> str:
    return f"octet_length({sql})"


def utc_month(sql: str) -> str:
    """The month (YYYY-MM, UTC) of a moment."""
    return f"to_char({sql} AT TIME ZONE 'UTC', 'YYYY-MM')"


def likelihood(condition_sql: str, share: float) -> str:
    """PostgreSQL keeps statistics of how values spread: the condition as it is."""
    return condition_sql


def unindexed(sql: str) -> str:
    return sql


def glob(lhs_sql: str, rhs_sql: str) -> str:
    """The shell pattern as an anchored regular expression (`.` literal, `*` any run, `?` one
    character; brackets as they are), built in SQL so the CHECK holds on any connection."""
    regex = f"replace(replace(replace({rhs_sql}, '.', '\\.'), '*', '.*'), '?', '.')"
    return f"{lhs_sql} ~ ('^' || {regex} || '$')"


def json_values(sql: str, keys: tuple[str, ...]) -> str:
    """The values of these keys of a JSON object, as the text of a JSON array."""
    items = ", ".join(f"{sql} -> '{key}'" for key in keys)
    return f"CAST(jsonb_build_array({items}) AS TEXT)"
