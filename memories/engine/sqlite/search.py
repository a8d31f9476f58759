"""SQLite's ranking statement: FTS5 MATCH expressions, BM25, and the plain-text scan.

User text reaches FTS5 only as double-quoted strings (quotes doubled, NUL removed), so FTS5
syntax in a query (`"`, `NEAR(`, `body:`, `*`, `AND`, parentheses) is searched for as words,
never obeyed; text scans use LIKE with `%`, `_` and the escape character escaped.

FTS5 ranks and counts, one join reads priority, read count and verified_at (of the bounded
candidates alone when the plan's bound holds), and only the page's rows are loaded.
"""

import datetime as dt
import math
import sqlite3
import threading
from dataclasses import dataclass
from functools import lru_cache

from memories.engine.ranking import SENSES, Formula, Part, Plan, Spelling
from memories.engine.sql import Sql as _Sql
from memories.engine.sql import like_pattern, scan_cte
from memories.engine.sqlite.index import FTS_TABLE
from memories.engine.tables import MEMORY_TABLE, PROJECT_TABLE

# What the seam (memories.engine.PROVIDES) takes from this module, and nothing else.
__all__ = ["ranking_statement", "ranked_rows"]

MIN_PREFIX = 3  # shorter stems would match a large part of the vocabulary
MIN_SHORTENED = 4
SHORTEN_TO = 0.6  # a query word is shortened to no less than this share of its length
MAX_SHORTENINGS = 8

# A question's words are chosen by their matches (`_chosen_sql`): counted up to PROBE, and
# past that estimated from where the PROBE-th match lies (bench/results/2026-12-04-words-cost).
PROBE = 1_000
UNBOUNDED = 2**62  # a words budget this high leaves every word in

M = MEMORY_TABLE
PROJECTS = PROJECT_TABLE
NOTHING = '""'  # an FTS5 expression (an empty phrase) that matches no row
SENSE_RANK = " ".join(f"WHEN '{sense}' THEN {rank}" for rank, sense in enumerate(SENSES))


# MATCH expressions --------------------------------------------------------------------------


def quote(text: str) -> str:
    """One FTS5 string: whatever it holds is tokenized as text, never read as syntax."""
    return '"' + text.replace("\x00", " ").replace('"', '""') + '"'


def word_expression(words: list[str], joiner: str = " AND ") -> str:
    return joiner.join(quote(word) for word in words)


def _shortest(word: str) -> int:
    return max(MIN_SHORTENED, math.ceil(len(word) * SHORTEN_TO))


def prefix_expression(words: list[str]) -> str:
    """Each word as the start of a stored word, or shortened toward one.

    Forward: the longest start of the word porter leaves alone, as a prefix (`deplo*` for
    `deploy`, since `deploy*` would be searched as `deploi*`). Backward: the word shortened
    a letter at a time down to SHORTEN_TO of its length, each as a prefix the stemmer reads
    as it reads a stored word (`deploy*` from `deployment` finds `Deploys`). Any word's forms
    match, as any word does; a memory matching several of the forms ranks above one matching
    a single short one.
    """
    groups = []
    for word in words:
        forms = [quote(word)]
        if len(word) >= MIN_PREFIX:
            forward = stable_prefix(word)
            if forward:
                forms.append(quote(forward) + "*")
            for length in range(len(word) - 1, _shortest(word) - 1, -1)[:MAX_SHORTENINGS]:
                forms.append(quote(word[:length]) + "*")
        groups.append("(" + " OR ".join(dict.fromkeys(forms)) + ")")
    return " OR ".join(groups)


def prefix_placement_expression(words: list[str]) -> str:
    """Any word's widest stable prefix: where a prefix match sits, one expansion a word."""
    forms = []
    for word in words:
        widest = stable_prefix(word[: _shortest(word)]) if len(word) >= MIN_PREFIX else None
        forms.append(quote(widest) + "*" if widest else quote(word))
    return " OR ".join(dict.fromkeys(forms))


class _Tokenizer:
    """Asks SQLite how the index's tokenizer treats a word, with and without porter.

    A private in-memory database per thread, so it adds no query to the store's connection.
    """

    def __init__(self):
        self._local = threading.local()

    def _connection(self) -> sqlite3.Connection:
        con = getattr(self._local, "con", None)
        if con is None:
            con = sqlite3.connect(":memory:")
            for name, tokenize in (("stemmed", "porter unicode61"), ("plain", "unicode61")):
                con.execute(f"CREATE VIRTUAL TABLE {name} USING fts5(x, tokenize='{tokenize}')")
                con.execute(f"CREATE VIRTUAL TABLE {name}_v USING fts5vocab({name}, 'instance')")
            self._local.con = con
        return con

    def tokens(self, texts: list[str]) -> tuple[list[str], list[str]]:
        """The porter tokens and the plain tokens of the texts joined by spaces."""
        con = self._connection()
        found = []
        with con:
            for name in ("stemmed", "plain"):
                con.execute(f"INSERT INTO {name}(rowid, x) VALUES (1, ?)", (" ".join(texts),))
                rows = con.execute(f"SELECT term FROM {name}_v ORDER BY offset").fetchall()
                con.execute(f"DELETE FROM {name}")
                found.append([row[0] for row in rows])
        return found[0], found[1]


_tokenizer = _Tokenizer()


@lru_cache(maxsize=4096)
def stable_prefix(word: str) -> str | None:
    """The longest start of `word` (at least MIN_PREFIX long) that porter leaves unchanged."""
    prefixes = [word[:length] for length in range(len(word), MIN_PREFIX - 1, -1)]
    stemmed, plain = _tokenizer.tokens(prefixes)
    if len(stemmed) != len(prefixes) or len(plain) != len(prefixes):
        return None
    for stem, folded in zip(stemmed, plain, strict=True):
        if stem == folded:
            return folded
    return None


# The statement ------------------------------------------------------------------------------


def bm25(f: Formula) -> str:
    return f"bm25({FTS_TABLE}, {f.name_weight}, {f.description_weight}, {f.body_weight})"


@dataclass(frozen=True)
class _Terms:
    """The formula's terms as SQL text, written once per formula rather than per search
    (formatting a dozen floats took about a tenth of the time to write a words-only one)."""

    weight: str  # importance × freshness; %s: the Julian day now, the half-life in days
    index_relevance: str  # %s: the name and the description column filters
    text_relevance: str  # of the row's hits.pattern
    prefix_weight: str
    scan_limit: int


# The memory as the ranking's weight reads it: its own row.
WEIGHED = Spelling(
    table=M,
    priority=f"{M}.priority",
    read_count=f"{M}.read_count",
    days=f"%s - julianday({M}.verified_at)",
    half_life="%s",
    number=lambda value: repr(float(value)),
    power="pow",
    greatest="max",
)


@lru_cache(maxsize=16)
def _terms(f: Formula) -> _Terms:
    # r = -bm25 (never negative), written to call bm25() once.
    relevance = f.strength_sql(f"(-{bm25(f)})")
    return _Terms(
        weight=f.weight_sql(WEIGHED),
        # The column sets are FTS5 column filters, each read once per statement.
        index_relevance=(
            f"({relevance} * (CASE WHEN rowid IN (SELECT rowid FROM {FTS_TABLE}"
            f" WHERE {FTS_TABLE} MATCH %s) THEN {f.name_placement} WHEN rowid IN (SELECT rowid"
            f" FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s) THEN {f.description_placement}"
            f" ELSE {f.body_placement} END))"
        ),
        text_relevance=(
            f"({f.text_strength} * (CASE WHEN {M}.name LIKE hits.pattern ESCAPE '\\'"
            f" THEN {f.name_placement} WHEN {M}.description LIKE hits.pattern ESCAPE '\\'"
            f" THEN {f.description_placement} ELSE {f.body_placement} END))"
        ),
        prefix_weight=str(f.prefix_weight),
        scan_limit=f.scan_limit,
    )


@dataclass
class _Filter:
    where: str
    params: list

    @property
    def active(self) -> bool:
        return self.where != "1"


@dataclass(slots=True)
class _Match:
    """A part of the plan as this statement matches it."""

    query: int
    sense: str
    expression: str | None = None  # FTS5 MATCH (word, prefix, joined terms)
    any_expression: str | None = None  # word, prefix: any of the words, to place the match
    guard: str | None = None  # prefix: tried only when this word expression matches nothing
    term: str | None = None  # the scanned term, for plain_text and last_resort
    scan: bool = False  # scanned for in the memories rather than found through the index
    phrases: list[str] | None = None  # word, of a query of several: chosen among (_chosen_sql)
    chosen: str | None = None  # the CTE holding the chosen `expression` and `dropped`


def _match(part: Part) -> _Match:
    words = list(part.words)
    if part.sense == "word":
        return _Match(
            part.query,
            part.sense,
            expression=word_expression(words, " OR "),
            any_expression=word_expression(words, " OR "),
            phrases=[quote(word) for word in words] if len(words) > 1 else None,
        )
    if part.sense == "prefix":
        return _Match(
            part.query,
            part.sense,
            expression=prefix_expression(words),
            any_expression=prefix_placement_expression(words),
            guard=word_expression(words, " OR "),
        )
    if part.scan:
        return _Match(part.query, part.sense, term=part.term, scan=True)
    return _Match(part.query, part.sense, expression=quote(part.term), term=part.term)


def _chosen_sql(sql: _Sql, parts: list[_Match], flt: _Filter, budget: int) -> None:
    """For each word part of several words, the CTE `chosen<n>` of (expression, dropped): the
    MATCH expression of the words kept (see PROBE), or of them all when the filters admit
    none of the kept words' matches; and whether a word was left out (the count is then a
    lower bound).

    Each word's matches are counted up to PROBE in rowid order; past PROBE its share is
    estimated from the rowid of its PROBE-th match, so that counting costs a few pages of
    each word's index whatever the store's size.
    """
    if budget >= UNBOUNDED:
        return
    # Synonyms share the budget.
    budget = max(1, budget // max(1, sum(part.phrases is not None for part in parts)))
    for number, part in enumerate(parts):
        if part.phrases is None:
            continue
        part.chosen = f"chosen{number}"
        sql.add(f"probe{number} AS MATERIALIZED (")
        for index, phrase in enumerate(part.phrases):
            sql.add(
                f"{' UNION ALL ' if index else ''}SELECT %s AS phrase, n, last FROM"
                f" (SELECT count(*) AS n, max(rowid) AS last FROM (SELECT rowid FROM {FTS_TABLE}"
                f" WHERE {FTS_TABLE} MATCH %s LIMIT {PROBE}))",
                phrase,
                phrase,
            )
        sql.add(
            f"), kept{number} AS MATERIALIZED (SELECT group_concat(phrase, ' OR ') AS expression,"
            " count(*) AS kept, sum(df) AS matches FROM (SELECT phrase, df, sum(df) OVER (ORDER"
            " BY df, phrase ROWS UNBOUNDED PRECEDING) AS running FROM (SELECT phrase, CASE WHEN"
            f" n < {PROBE} THEN n ELSE {PROBE}.0 * (SELECT max(id) FROM {M}) / last END AS df"
            f" FROM probe{number})) WHERE running <= {int(budget)} OR running = df"
            # A store of no more memories than the budget holds no more matches.
            f" OR (SELECT max(id) FROM {M}) <= {int(budget)}), "
        )
        # The newest `budget` matches of the words chosen, when they are more: past them the
        # rowid `floor`.
        flt_join = f" JOIN {M} ON {M}.id = newest.rowid" if flt.active else ""
        flt_where = f" AND {flt.where}" if flt.active else ""
        sql.add(
            f"{part.chosen} AS MATERIALIZED (SELECT expression, dropped OR floor > 0 AS dropped,"
            " floor FROM (SELECT expression, dropped, CASE WHEN matches > %s THEN coalesce(("
            f"SELECT newest.rowid FROM {FTS_TABLE} AS newest{flt_join} WHERE"
            f" newest.{FTS_TABLE} MATCH decided.expression{flt_where} ORDER BY newest.rowid DESC"
            " LIMIT 1 OFFSET %s), 0) ELSE 0 END AS floor FROM (SELECT CASE WHEN ok THEN"
            f" expression ELSE %s END AS expression, ok AND kept < {len(part.phrases)}"
            " AS dropped, CASE WHEN ok THEN matches ELSE %s END AS matches FROM (SELECT"
            f" expression, kept, matches, (kept = {len(part.phrases)}",
            int(budget),
            *flt.params,
            int(budget) - 1,
            part.expression,
            int(budget) + 1,
        )
        if flt.active:
            sql.add(
                f" OR EXISTS (SELECT 1 FROM {FTS_TABLE} AS kept JOIN {M} ON {M}.id = kept.rowid"
                f" WHERE kept.{FTS_TABLE} MATCH kept{number}.expression AND {flt.where})",
                *flt.params,
            )
        else:
            sql.add(" OR 1")
        sql.add(f") AS ok FROM kept{number}) AS tried) AS decided) AS floored), ")


def _match_sql(part: _Match) -> tuple[str, list]:
    """The part's MATCH as SQL: the expression chosen by the statement (and the newest
    matches alone, past its floor), or bound."""
    if part.chosen:
        return (
            f"{FTS_TABLE} MATCH (SELECT expression FROM {part.chosen})"
            f" AND {FTS_TABLE}.rowid >= (SELECT floor FROM {part.chosen})",
            [],
        )
    return f"{FTS_TABLE} MATCH %s", [part.expression]


def _dropped_sql(parts: list[_Match]) -> str:
    """Whether a word part left out a word (SQL), so that the count is a lower bound."""
    chosen = [f"(SELECT dropped FROM {part.chosen})" for part in parts if part.chosen]
    return " OR ".join(chosen) or "0"


def _julian_day(moment: dt.datetime) -> float:
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    return (moment - epoch).total_seconds() / 86400 + 2440587.5


def _weight_sql(sql: _Sql, plan: Plan, t: _Terms) -> None:
    """importance × freshness of the memories_memory row."""
    sql.add(t.weight, _julian_day(plan.now), plan.half_life_days)


def _index_relevance_sql(sql: _Sql, t: _Terms, part: _Match) -> None:
    """An index match's relevance: the BM25 strength at the best column holding a word."""
    if not part.chosen:
        anywhere = part.any_expression
        sql.add(t.index_relevance, f"name : ({anywhere})", f"description : ({anywhere})")
        return
    head, between, tail = t.index_relevance.split("%s")
    chosen = f"(SELECT expression FROM {part.chosen})"
    sql.add(
        f"{head}('name : (' || {chosen} || ')'){between}('description : (' || {chosen} || ')')"
        f"{tail}"
    )


def _text_condition(sql: _Sql, pattern: str) -> None:
    sql.add(
        f"({M}.name LIKE %s ESCAPE '\\' OR {M}.description LIKE %s ESCAPE '\\'"
        f" OR {M}.body LIKE %s ESCAPE '\\')",
        pattern,
        pattern,
        pattern,
    )


def _match_unless_sql(sql: _Sql, expression: str, guard: str, flt: _Filter) -> None:
    """MATCH the expression only when the guard matches nothing the filters admit.

    The test sits inside MATCH's right-hand side, evaluated once before the index is read,
    so a guarded retry that is not needed costs one EXISTS and no scan.
    """
    sql.add(
        f"{FTS_TABLE} MATCH (CASE WHEN EXISTS (SELECT 1 FROM {FTS_TABLE} AS guard"
        f" JOIN {M} ON {M}.id = guard.rowid WHERE guard.{FTS_TABLE} MATCH %s AND {flt.where})"
        f" THEN '{NOTHING}' ELSE %s END)",
        guard,
        *flt.params,
        expression,
    )


def _hits_sql(
    sql: _Sql, t: _Terms, parts: list[_Match], flt: _Filter, words_found: str | None = None
):
    """UNION ALL of every part's matches: (id, q, sense, rel, term, pattern).

    rel is the relevance of an index match, NULL for a text match (ranked by column later).
    Each is referenced once downstream: a flattened subquery computes bm25() per reference.
    `words_found`, when the statement already knows it, decides a prefix retry instead of
    a guard of its own.
    """
    for number, part in enumerate(parts):
        if number:
            sql.add(" UNION ALL ")
        head = f"{part.query} AS q, '{part.sense}' AS sense"
        if part.scan:
            sql.add(
                f"SELECT id, {head}, NULL AS rel, %s AS term, %s AS pattern FROM scan"
                f" WHERE found{number}",
                part.term,
                like_pattern(part.term),
            )
        elif part.term is not None:
            pattern = like_pattern(part.term)
            sql.add(
                f"SELECT {FTS_TABLE}.rowid AS id, {head}, NULL AS rel, %s AS term, %s AS pattern"
                f" FROM {FTS_TABLE} JOIN {M} ON {M}.id = {FTS_TABLE}.rowid"
                f" WHERE {FTS_TABLE} MATCH %s AND {flt.where} AND ",
                part.term,
                pattern,
                part.expression,
                *flt.params,
            )
            _text_condition(sql, pattern)
        else:
            sql.add(f"SELECT rowid AS id, {head}, ")
            _index_relevance_sql(sql, t, part)
            sql.add(f" AS rel, NULL AS term, NULL AS pattern FROM {FTS_TABLE} WHERE ")
            if part.guard is None:
                condition, params = _match_sql(part)
                sql.add(condition, *params)
            elif words_found is not None:
                sql.add(
                    f"{FTS_TABLE} MATCH (CASE WHEN {words_found} THEN '{NOTHING}' ELSE %s END)",
                    part.expression,
                )
            else:
                _match_unless_sql(sql, part.expression, part.guard, flt)


def _ranking_sql(plan: Plan, parts: list[_Match], flt: _Filter) -> _Sql:
    """total (n, capped) and page (id, score, sense_rank, terms, created_at), as CTEs."""
    t = _terms(plan.formula)
    sql = _Sql().add("WITH ")
    _chosen_sql(sql, parts, flt, plan.candidates.words_budget)
    bound = scan_cte(sql, M, parts, flt.where, flt.params, t.scan_limit, _text_condition)
    sql.add("hits AS (")
    _hits_sql(sql, t, parts, flt)
    sql.add(
        "), scored AS (SELECT hits.id AS id, hits.q AS q, hits.sense AS sense,"
        f" hits.term AS term, coalesce(hits.rel, {t.text_relevance}) AS rel, "
    )
    _weight_sql(sql, plan, t)
    sql.add(
        f" AS weight, {M}.created_at AS created_at FROM hits JOIN {M} ON {M}.id = hits.id"
        f" WHERE {flt.where}), ",
        *flt.params,
    )
    query_parts = " ".join(f"WHEN {i} THEN {divisor}" for i, divisor in enumerate(plan.divisors))
    capped = f"(SELECT count(*) FROM scan) >= {bound}" if bound else "0"
    capped = f"({capped} OR {_dropped_sql(parts)})"
    sql.add(
        "per_query AS (SELECT id, q, count(*) AS matched, avg(rel) AS rel, max(weight) AS weight,"
        f" min(CASE sense {SENSE_RANK} END) AS sense_rank,"
        " json_group_array(term) FILTER (WHERE term IS NOT NULL) AS terms,"
        " max(created_at) AS created_at FROM scored GROUP BY id, q), "
        "ranked AS (SELECT id, sense_rank, terms, created_at,"
        " (matched - 1 + rel * weight"
        f" * (CASE WHEN sense_rank = 1 THEN {t.prefix_weight} ELSE 1.0 END))"
        f" / (CASE q {query_parts} END) AS score FROM per_query), "
        # SQLite takes the bare columns of a max() aggregate from the row holding the max.
        "best AS MATERIALIZED (SELECT id, max(score) AS score, sense_rank, terms, created_at"
        " FROM ranked GROUP BY id), "
        f"total AS (SELECT (SELECT count(*) FROM best) AS n, {capped} AS capped), "
        "page AS (SELECT id, score, sense_rank, terms, created_at FROM best"
        " ORDER BY score DESC, created_at DESC, id DESC LIMIT %s OFFSET %s) ",
        plan.limit,
        plan.offset,
    )
    return sql


def _words_ranking_sql(plan: Plan, word: _Match, prefix: _Match | None, flt: _Filter) -> _Sql:
    """The common case, one query of words alone: no grouping, the count straight from FTS5,
    and the page ranked among a bounded set of candidates (`memories.engine.ranking`).

    The word count doubles as the prefix retry's guard. The same total and page as
    _ranking_sql makes of it.
    """
    t = _terms(plan.formula)

    def count(condition: str) -> str:
        if flt.active:
            return (
                f"SELECT count(*) AS n FROM {FTS_TABLE} JOIN {M} ON {M}.id = {FTS_TABLE}.rowid"
                f" WHERE {flt.where} AND {condition}"
            )
        return f"SELECT count(*) AS n FROM {FTS_TABLE} WHERE {condition}"

    count_params = flt.params if flt.active else []
    sql = _Sql().add("WITH ")
    _chosen_sql(sql, [word], flt, plan.candidates.words_budget)
    condition, params = _match_sql(word)
    sql.add(f"words AS MATERIALIZED ({count(condition)}), ", *count_params, *params)
    sql.add("total AS (SELECT words.n")
    if prefix is not None:
        sql.add(
            f" + (CASE WHEN words.n THEN 0 ELSE ({count(f'{FTS_TABLE} MATCH %s')}) END)",
            *count_params,
            prefix.expression,
        )
    sql.add(f" AS n, {_dropped_sql([word])} AS capped FROM words), ")
    parts = [part for part in (word, prefix) if part is not None]
    bounded = plan.candidates
    # The candidates: the best by relevance × sense within the filters; none (LIMIT 0) when
    # the matches are too few to bound. A question (several words) weighs its best
    # `bounded.question` whatever their number, and its page is the best of those.
    question = word.chosen is not None and bounded.question < bounded.from_matches
    if question:
        sql.add("bound AS (SELECT %s AS k), ", max(plan.offset + plan.limit, bounded.question))
    else:
        sql.add(
            "bound AS (SELECT CASE WHEN n >= %s THEN max(%s, CAST(n * %s AS INTEGER)) ELSE 0"
            " END AS k FROM total), ",
            bounded.from_matches,
            plan.offset + plan.limit,
            bounded.share,
        )
    sql.add(
        "candidate AS MATERIALIZED (SELECT hits.id AS id, hits.sense AS sense,"
        f" hits.rel * (CASE hits.sense WHEN 'prefix' THEN {t.prefix_weight} ELSE 1.0 END) AS key"
        " FROM ("
    )
    _hits_sql(sql, t, parts, flt, words_found="(SELECT n FROM words)")
    sql.add(") AS hits")
    if flt.active:
        sql.add(f" JOIN {M} ON {M}.id = hits.id WHERE {flt.where}", *flt.params)
    sql.add(
        " ORDER BY key DESC LIMIT (SELECT k FROM bound)), scored AS MATERIALIZED"
        " (SELECT candidate.id AS id, candidate.key * "
    )
    _weight_sql(sql, plan, t)
    sql.add(
        " AS score, CASE candidate.sense WHEN 'word' THEN 0 ELSE 1 END AS sense_rank,"
        f" '[]' AS terms, {M}.created_at AS created_at FROM candidate"
        f" JOIN {M} ON {M}.id = candidate.id), "
    )
    if question:
        sql.add("certain AS MATERIALIZED (SELECT 1 AS yes), ")
    else:
        sql.add(
            # Exact when the page's last score beats the least candidate's key, the most any
            # other match could score (its weight is at most 1).
            "certain AS MATERIALIZED (SELECT coalesce((SELECT score FROM scored"
            " ORDER BY score DESC, created_at DESC, id DESC LIMIT 1 OFFSET %s)"
            " > (SELECT min(key) FROM candidate), 0) AS yes), ",
            plan.offset + plan.limit - 1,
        )
    sql.add(
        "page AS (SELECT * FROM (SELECT id, score, sense_rank, terms, created_at FROM scored"
        " WHERE (SELECT yes FROM certain)"
        " ORDER BY score DESC, created_at DESC, id DESC LIMIT %s OFFSET %s)"
        " UNION ALL SELECT * FROM (SELECT hits.id AS id, ",
        plan.limit,
        plan.offset,
    )
    sql.add(f"hits.rel * (CASE hits.sense WHEN 'prefix' THEN {t.prefix_weight} ELSE 1.0 END) * ")
    _weight_sql(sql, plan, t)
    sql.add(
        " AS score, CASE hits.sense WHEN 'word' THEN 0 ELSE 1 END AS sense_rank,"
        f" '[]' AS terms, {M}.created_at AS created_at FROM ("
    )
    _hits_sql(sql, t, parts, flt, words_found="(SELECT n FROM words)")
    sql.add(
        f") AS hits JOIN {M} ON {M}.id = hits.id WHERE NOT (SELECT yes FROM certain)"
        f" AND {flt.where} ORDER BY score DESC, created_at DESC, id DESC LIMIT %s OFFSET %s)) ",
        *flt.params,
        plan.limit,
        plan.offset,
    )
    return sql


def ranking_statement(plan: Plan, connection) -> tuple[str, list]:
    """The rows `memories.engine.ranking` describes, in one statement (FTS5 keeps the words'
    statistics its bm25() reads: nothing is read of `connection` first)."""
    parts = [_match(part) for part in plan.parts]
    flt = _Filter(plan.where or "1", list(plan.params))
    if len(plan.divisors) == 1 and all(part.sense in ("word", "prefix") for part in parts):
        prefix = parts[1] if len(parts) > 1 else None
        sql = _words_ranking_sql(plan, parts[0], prefix, flt)
    else:
        sql = _ranking_sql(plan, parts, flt)
    sql.add(
        "SELECT total.n, total.capped, page.score, page.sense_rank, page.terms, "
        + plan.columns
        + f" FROM total LEFT JOIN page LEFT JOIN {M} ON {M}.id = page.id"
        f" LEFT JOIN {PROJECTS} ON {PROJECTS}.id = {M}.project_id"
        " ORDER BY page.score DESC, page.created_at DESC, page.id DESC"
    )
    return sql.text(), sql.params


def ranked_rows(connection, sql: str, params: list) -> list[tuple]:
    """The ranking statement's rows, run as any other read."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()
