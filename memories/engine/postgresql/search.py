"""PostgreSQL's ranking statement: tsquery matches on the search index's weighted vectors,
ranked by Okapi BM25 as SQLite's FTS5 ranks them (each word's idf × its saturated frequency,
the frequency from ts_rank of the word alone), and the plain-text sense through trigram
indexes.

User text reaches to_tsquery only as bound, single-quoted lexemes (quotes and backslashes
doubled), so tsquery syntax in a query (`&`, `|`, `!`, `<->`, `:*`, parentheses) is searched
for as words, never obeyed; text matches use ILIKE with `%`, `_` and the escape character
escaped, each a bound parameter.

The statement has the shape of SQLite's (memories.engine.sqlite.search): the hits of every
part, scored by the plan's formula, one row per memory at its best, counted, and only the
page's memories joined.
"""

import math
from dataclasses import dataclass, replace
from functools import lru_cache

from memories.engine.postgresql import words as statistics
from memories.engine.postgresql.index import CONFIG, SEARCH_COLUMN, SEARCH_TABLE
from memories.engine.postgresql.words import lexeme
from memories.engine.ranking import SENSES, Formula, Part, Plan, Spelling
from memories.engine.sql import Sql as _Sql
from memories.engine.sql import like_pattern, scan_cte
from memories.engine.tables import MEMORY_TABLE, PROJECT_TABLE

# What the seam (memories.engine.PROVIDES) takes from this module, and nothing else.
__all__ = ["ranking_statement", "ranked_rows"]

MIN_PREFIX = 3  # shorter prefixes would match a large part of the vocabulary
MIN_SHORTENED = 4
SHORTEN_TO = 0.6  # a query word is shortened to no less than this share of its length
MAX_SHORTENINGS = 8
UNBOUNDED = 2**62  # a words budget this high leaves every word in

M = MEMORY_TABLE
S = SEARCH_TABLE
PROJECTS = PROJECT_TABLE
SENSE_RANK = " ".join(f"WHEN '{sense}' THEN {rank}" for rank, sense in enumerate(SENSES))
# A word's frequency comes from ts_rank rather than ts_rank_cd: ts_rank_cd of a word alone is
# FTS5's frequency exactly (each occurrence its column's weight), but it cost about half as
# much again a statement at 100,000 memories for the same recall on LoCoMo
# (bench/results/2026-12-05-pg-recall).
# The weights it takes lie in [0, 1], in the order D, C, B, A: the formula's, divided by the
# name's, and the rank multiplied back by it.
WEIGHTS = "'{{0, {body}, {description}, 1}}'"
# The ranking statement may be planned across parallel workers (as many as the server's
# max_parallel_workers_per_gather gives): at the default prices of a row passed up from a
# worker (0.1) and of starting the workers (1,000) the planner keeps a common word's 47,471
# matches at 100,000 memories in one process, though ranking a row costs more than passing
# it on. Set for that statement alone (bench/results/2026-12-01-quiet-5: 108-112 -> 81 ms).
PARALLEL = ("SET LOCAL parallel_tuple_cost = 0.01", "SET LOCAL parallel_setup_cost = 10")
PARALLEL_ENDED = (
    "SET LOCAL parallel_tuple_cost TO DEFAULT",
    "SET LOCAL parallel_setup_cost TO DEFAULT",
)


def _float(value: float) -> str:
    return f"CAST({float(value)!r} AS float8)"


def _shortest(word: str) -> int:
    return max(MIN_SHORTENED, math.ceil(len(word) * SHORTEN_TO))


def _prefixes(word: str) -> list[str]:
    """The word and its shortenings, as prefixes of stored lexemes: `deploy` finds
    `deployment`, `deployment` finds `Deploys` (stored as `deploy`)."""
    if len(word) < MIN_PREFIX:
        return []
    lengths = range(len(word), _shortest(word) - 1, -1)[: MAX_SHORTENINGS + 1]
    return list(dict.fromkeys(word[:length] for length in lengths))


# tsqueries, as (sql, params): words stemmed through the store's configuration. A prefix is
# compared with stored stems both stemmed (`deploy:*` as `deploi:*` finds `Deploys`) and as
# typed (`deploy:*` finds `deployment`, stored as `deploy`), through `simple`.


def _stemmed(text: str) -> tuple[str, list]:
    return f"to_tsquery('{CONFIG}', %s)", [text]


def _unstemmed(text: str) -> tuple[str, list]:
    return "to_tsquery('simple', %s)", [text]


def _either(*queries: tuple[str, list]) -> tuple[str, list]:
    return "(" + " || ".join(q for q, _ in queries) + ")", [p for _, ps in queries for p in ps]


def word_query(words: list[str], weight: str = "", joiner: str = " & ") -> tuple[str, list]:
    return _stemmed(joiner.join(lexeme(word) + (":" + weight if weight else "") for word in words))


def prefix_query(words: list[str]) -> tuple[str, list]:
    """Each word, or one of its prefixes; any word's forms match, as any word does."""
    groups = []
    for word in words:
        prefixes = _prefixes(word)
        forms = [word_query([word])]
        if prefixes:
            text = " | ".join(lexeme(p) + ":*" for p in prefixes)
            forms += [_stemmed(text), _unstemmed(text)]
        groups.append(_either(*forms))
    return _either(*groups)


def prefix_placement_query(words: list[str], weight: str) -> tuple[str, list]:
    """Any word's widest prefix in the column of `weight`: where a prefix match sits."""
    forms = []
    for word in words:
        if len(word) >= MIN_PREFIX:
            text = lexeme(word[: _shortest(word)]) + ":*" + weight
            forms += [_stemmed(text), _unstemmed(text)]
        else:
            forms.append(word_query([word], weight))
    return _either(*forms)


@dataclass(frozen=True)
class _Terms:
    weight: str  # importance × freshness, of the search index's copy of the memory's fields;
    # %s: the Julian day now, the half-life in days
    rank: str  # {query}: the tsquery (a prefix part's)
    word_rank: str  # one word's share of the relevance; {idf}, {query}: the word's;
    # {average}: the memories' average length
    text_relevance: str  # of the row's hits.pattern
    prefix_weight: str
    scan_limit: int


# The memory as the ranking's weight reads it: the search index's copy of its fields (the
# Julian day of verified_at worked out by the trigger that writes the row).
WEIGHED = Spelling(
    table=S,
    priority=f"{S}.priority",
    read_count=f"{S}.read_count",
    days=f"%s::float8 - {S}.verified_day",
    half_life="%s::float8",
    number=_float,
    power="power",
    greatest="greatest",
)


@lru_cache(maxsize=16)
def _terms(f: Formula) -> _Terms:
    weights = WEIGHTS.format(
        body=f.body_weight / f.name_weight, description=f.description_weight / f.name_weight
    )
    column = f"{S}.{SEARCH_COLUMN}"
    # A word's frequency in the memory, in the column weights' units (one occurrence in the
    # name: name_weight, in the body: body_weight): ts_rank of the word alone is its heaviest
    # occurrence's weight plus the others' divided by their rank squared, the whole divided
    # by π²/6, on weights divided by the name's. The memory's length: its distinct words.
    frequency = (
        f"(ts_rank({weights}, {column}, {{query}}) * {_float(f.name_weight * math.pi**2 / 6)})"
    )
    length_ratio = f"(length({column}) / {{average}})"
    return _Terms(
        weight=f.weight_sql(WEIGHED),
        rank=f"({_float(f.name_weight)} * ts_rank({weights}, {column}, {{query}}))",
        word_rank=(
            f"(CASE WHEN {{idf}} > 0 THEN"
            f" {f.term_relevance_sql('{idf}', frequency, length_ratio)} ELSE 0 END)"
        ),
        text_relevance=(
            f"({_float(f.text_strength)} * (CASE WHEN {M}.name ILIKE hits.pattern"
            f" THEN {_float(f.name_placement)} WHEN {M}.description ILIKE hits.pattern"
            f" THEN {_float(f.description_placement)} ELSE {_float(f.body_placement)} END))"
        ),
        prefix_weight=_float(f.prefix_weight),
        scan_limit=f.scan_limit,
    )


@dataclass
class _Filter:
    where: str
    params: list

    @property
    def searched(self) -> str:
        """The search index, joined to the memories when the filters read them."""
        if self.where == "TRUE":
            return S
        return f"{S} JOIN {M} ON {M}.id = {S}.id"


def _weight_sql(sql: _Sql, plan: Plan, t: _Terms) -> None:
    epoch = plan.now.timestamp()
    sql.add(t.weight, epoch / 86400 + 2440587.5, plan.half_life_days)


def _text_condition(sql: _Sql, pattern: str) -> None:
    sql.add(
        f"({M}.name ILIKE %s OR {M}.description ILIKE %s OR {M}.body ILIKE %s)",
        pattern,
        pattern,
        pattern,
    )


@dataclass(frozen=True)
class _Words:
    """A word part's words as BM25 weighs them: each word's idf (`idfs`, in the part's order)
    and the memories' average length, written into the statement as numbers; or, for a
    question at scale that may leave words out (`chosen`), `idfs` None and the CTEs
    `weighed<n>` of (place, query, idf), the idf 0 for a word left out, and `chosen<n>` of
    the tsqueries of the words kept (see _words_sql)."""

    average_length: float
    idfs: list[float] | None = None
    weighed: str | None = None
    chosen: str | None = None
    # A question of the whole store at scale, decided before the statement (_kept_words):
    # the words kept (with `idfs`), whether any was left out, and `floored`, the CTE of the
    # lowest id of their newest matches.
    kept: list[str] | None = None
    left_out: bool = False
    floored: str | None = None


def _index_hit(
    sql: _Sql,
    t: _Terms,
    f: Formula,
    part: Part,
    head: str,
    flt: _Filter,
    plan=None,
    words_of: _Words | None = None,
) -> None:
    """A word or prefix part: matched and ranked through the search column, placed by the
    best column holding any of its words; with `plan`, also the memory's weight and
    created_at, read in the same pass; `words_of` a word part's CTEs."""
    words = words_of.kept if words_of and words_of.kept is not None else list(part.words)
    chosen = words_of.chosen if words_of else None
    # Placed by one test of the name and description together, which a match in the body
    # alone (most matches of a common word) fails, and then by the name.
    if chosen:
        query = (f"(SELECT q0 FROM {chosen})", [])
        placed = [(f"(SELECT q{n} FROM {chosen})", []) for n in (1, 2)]
    elif part.sense == "word":
        query = word_query(words, "", " | ")
        placed = [word_query(words, weight, " | ") for weight in ("AB", "A")]
    else:
        query = prefix_query(words)
        placed = [prefix_placement_query(words, weight) for weight in ("AB", "A")]
    column = f"{S}.{SEARCH_COLUMN}"
    if words_of:
        # BM25's sum over the words: each word ranked alone, weighed by its idf.
        ranks = []
        rank_params = []
        for place, word in enumerate(words, start=1):
            if words_of.idfs is None:
                idf = f"(SELECT idf FROM {words_of.weighed} WHERE place = {place})"
                word_query_sql = f"(SELECT query FROM {words_of.weighed} WHERE place = {place})"
            else:
                idf = _float(words_of.idfs[place - 1])
                word_query_sql, query_params = word_query([word])
                rank_params += query_params
            ranks.append(
                t.word_rank.replace("{idf}", idf)
                .replace("{average}", _float(words_of.average_length))
                .replace("{query}", word_query_sql)
            )
        rank = f"({' + '.join(ranks)})"
    else:
        rank = t.rank.replace("{query}", query[0])
        rank_params = query[1]
    if part.sense == "prefix":
        sql.add("SELECT * FROM (")
    # One level, each expression written once, so that each is computed once a row, in the
    # scan (no subquery's projection on top): r / (1 + r) as 1 - 1 / (1 + r), as on SQLite,
    # which reads r once. The vector is kept in the search index's row (SEARCH_STORAGE), so
    # ranking and placing it read it in place.
    sql.add(f"SELECT {S}.id AS id, {head}, {f.strength_sql(rank)}", *rank_params)
    sql.add(
        f" * (CASE WHEN NOT {column} @@ {placed[0][0]} THEN {_float(f.body_placement)}"
        f" WHEN {column} @@ {placed[1][0]} THEN {_float(f.name_placement)}"
        f" ELSE {_float(f.description_placement)} END) AS rel",
        *placed[0][1],
        *placed[1][1],
    )
    if plan:
        sql.add(", ")
        _weight_sql(sql, plan, t)
        sql.add(f" AS weight, {S}.created_at AS created_at")
    else:
        sql.add(", NULL::text AS term, NULL::text AS pattern")
    sql.add(
        f" FROM {flt.searched} WHERE {column} @@ {query[0]} AND {flt.where}"
        + (f" AND {S}.id >= (SELECT floor FROM {chosen})" if chosen else ""),
        *query[1],
        *flt.params,
    )
    if words_of and words_of.floored:
        sql.add(f" AND {S}.id >= (SELECT floor FROM {words_of.floored})")
    if part.sense == "prefix":
        # Tried only when the words match nothing the filters admit: an uncorrelated test,
        # evaluated once before any row is read. Above the scan's subquery (OFFSET 0 keeps
        # the planner from pushing it down), so that it also stops a parallel scan before
        # its workers are started, not in each of them.
        guard = word_query(words, "", " | ")
        sql.add(
            f" OFFSET 0) AS tried WHERE NOT EXISTS"
            f" (SELECT 1 FROM {flt.searched} WHERE {column} @@ {guard[0]} AND {flt.where})",
            *guard[1],
            *flt.params,
        )


def _words_sql(sql: _Sql, plan: Plan, flt: _Filter, connection) -> dict[int, _Words]:
    """For each word part, how its words are weighed (_Words), by the part's number, from the
    store's word statistics (memories.engine.postgresql.words).

    A question (a word part of several words) at scale whose words have matches the
    statistics estimate (a store of more memories than its share of the words budget) keeps
    its rarer words, in the CTE `chosen<n>` of (q0, q1, q2, dropped, left_out, floor): the
    tsqueries (anywhere, in the name or description, in the name) of the words kept, or of
    them all when the filters admit none of the kept words' matches; whether a word was left
    out (`left_out`) or the newest matches alone are ranked (`dropped` then too: the count is
    then a lower bound). A word is kept by the statistics' estimate alone, a word not among
    them counting as rare, so that a question none of whose words is estimated keeps them
    all, and its statement is written without those CTEs.
    """
    budget = plan.candidates.words_budget
    found: dict[int, _Words] = {}
    word_parts = [n for n, part in enumerate(plan.parts) if part.sense == "word"]
    if not word_parts:
        return found
    questions = [n for n in word_parts if len(plan.parts[n].words) > 1]
    at_scale = budget < UNBOUNDED
    share = max(1, budget // max(1, len(questions)))  # synonyms share the budget
    for number in word_parts:
        words = list(plan.parts[number].words)
        question = at_scale and number in questions
        store, read = statistics.statistics(
            connection,
            words,
            threshold=int(share if question else budget),
            budget=int(min(budget, UNBOUNDED)),
        )
        idfs = [plan.formula.idf(store.memories, word.matches) for word in read]
        if not question or not any(word.estimate for word in read):
            found[number] = _Words(store.average_length, idfs)
            continue
        if flt.where == "TRUE":
            found[number] = _kept_words(sql, number, words, read, idfs, store, share, flt)
            continue
        terms = f"terms{number}"
        sql.add(
            f"{terms} AS MATERIALIZED (SELECT *, sum(estimate) OVER (ORDER BY estimate, place"
            f" ROWS UNBOUNDED PRECEDING) AS running FROM (SELECT place, to_tsquery('{CONFIG}',"
            " quoted) AS query, quoted, idf, estimate FROM unnest(%s::text[], %s::float8[],"
            " %s::real[]) WITH ORDINALITY AS w(quoted, idf, estimate, place)) AS counted), ",
            [lexeme(word) for word in words],
            idfs,
            [word.estimate for word in read],
        )
        name = f"chosen{number}"
        kept = f"running <= {int(share)} OR running = estimate"
        sql.add(
            # In the order written, so that a question keeping every word ranks as before.
            f"kept{number} AS MATERIALIZED (SELECT string_agg(quoted, ' | ' ORDER BY place) AS q0,"
            " string_agg(quoted || ':AB', ' | ' ORDER BY place) AS q1,"
            " string_agg(quoted || ':A', ' | ' ORDER BY place) AS q2,"
            f" count(*) AS kept, sum(estimate) AS matches FROM {terms} WHERE {kept}), "
        )
        # The newest `budget` matches of the words chosen, when they are more: past them the
        # id `floor`.
        sql.add(
            f"{name} AS MATERIALIZED (SELECT q0, q1, q2, dropped OR floor > 0 AS dropped,"
            " left_out, floor FROM (SELECT *, CASE WHEN matches > %s THEN coalesce((SELECT"
            f" {S}.id FROM {flt.searched} WHERE {S}.{SEARCH_COLUMN} @@ decided.q0"
            f" AND {flt.where} ORDER BY {S}.id DESC LIMIT 1 OFFSET %s), 0) ELSE 0 END AS floor"
            " FROM (SELECT ",
            int(share),
            *flt.params,
            int(share) - 1,
        )
        for index, weight in enumerate(("", "AB", "A")):
            full = word_query(words, weight, " | ")
            sql.add(
                f"{', ' if index else ''}CASE WHEN ok THEN to_tsquery('{CONFIG}', q{index})"
                f" ELSE {full[0]} END AS q{index}",
                *full[1],
            )
        sql.add(
            f", ok AND kept < {len(words)} AS dropped, ok AND kept < {len(words)} AS left_out,"
            " CASE WHEN ok THEN matches ELSE %s END AS matches"
            f" FROM (SELECT *, (kept = {len(words)}",
            int(share) + 1,
        )
        if flt.where != "TRUE":
            sql.add(
                f" OR EXISTS (SELECT 1 FROM {flt.searched} WHERE {S}.{SEARCH_COLUMN} @@"
                f" to_tsquery('{CONFIG}', kept{number}.q0) AND {flt.where})",
                *flt.params,
            )
        else:
            sql.add(" OR TRUE")
        sql.add(f") AS ok FROM kept{number}) AS tried) AS decided) AS floored), ")
        # The words left out weigh nothing, as they are not matched.
        sql.add(
            f"weighed{number} AS MATERIALIZED (SELECT place, query, CASE WHEN {kept} OR NOT"
            f" (SELECT left_out FROM {name}) THEN idf ELSE 0 END AS idf FROM {terms}), "
        )
        found[number] = _Words(store.average_length, weighed=f"weighed{number}", chosen=name)
    return found


# How many times the budget of the words' matches the range of newest ids a question of the
# whole store looks for its floor in is expected to hold: matches are not spread evenly.
FLOOR_MARGIN = 1.25


def _kept_words(sql: _Sql, number: int, words, read, idfs, store, share, flt) -> _Words:
    """A question of the whole store at scale: its words kept as the CTEs of _words_sql
    keep them (the rarer first while their estimated matches add up to `share`, the rarest
    always), decided here, where no filter can leave them without a match, so that the
    statement holds them as constants. When their matches exceed the share, only the newest
    `share` are ranked, as there: their floor found among the ids the newest FLOOR_MARGIN x
    `share` matches are expected from, the lowest of those ids written as a number, so that
    the planner reads only that range of the index and the rows in it (at 1,000,000
    memories, 25,000 of a word's 70,000 matches, not all of them twice); should fewer lie
    there (the matches are mostly old), among them all."""
    order = sorted(range(len(words)), key=lambda i: (read[i].estimate, i))
    running, kept = 0.0, []
    for i in order:
        running += read[i].estimate
        if running <= share or running == read[i].estimate:
            kept.append(i)
    kept.sort()
    matches = sum(read[i].estimate for i in kept)
    chosen = [words[i] for i in kept]
    left_out = len(kept) < len(words)
    bounded = _Words(store.average_length, [idfs[i] for i in kept], kept=chosen, left_out=left_out)
    span = store.last_id - store.first_id + 1
    above = store.last_id - math.ceil(span * min(1.0, FLOOR_MARGIN * share / max(matches, 1)))
    if matches <= share or above <= store.first_id:
        return bounded
    floored = f"floored{number}"
    query = word_query(chosen, "", " | ")
    newest = f"SELECT {S}.id FROM {flt.searched} WHERE {S}.{SEARCH_COLUMN} @@ {query[0]}"
    sql.add(
        f"{floored} AS MATERIALIZED (SELECT coalesce(({newest} AND {S}.id >= {int(above)}"
        f" ORDER BY {S}.id DESC LIMIT 1 OFFSET %s), ({newest} ORDER BY {S}.id DESC LIMIT 1"
        " OFFSET %s), 0) AS floor), ",
        *query[1],
        int(share) - 1,
        *query[1],
        int(share) - 1,
    )
    return replace(bounded, floored=floored)


def _dropped_sql(words: dict[int, _Words]) -> str:
    """Whether a word part left out a word (SQL), so that the count is a lower bound."""
    dropped = [f"(SELECT dropped FROM {w.chosen})" for w in words.values() if w.chosen]
    dropped += ["TRUE" for w in words.values() if w.left_out or w.floored]
    return " OR ".join(dropped) or "FALSE"


def _hits_sql(
    sql: _Sql, t: _Terms, f: Formula, parts: list[Part], flt: _Filter, words: dict[int, _Words]
) -> None:
    """UNION ALL of every part's matches within the filters: (id, q, sense, rel, term,
    pattern). rel is NULL for a text match (ranked by column later)."""
    for number, part in enumerate(parts):
        if number:
            sql.add(" UNION ALL ")
        head = f"{part.query} AS q, '{part.sense}'::text AS sense"
        if part.sense in ("word", "prefix"):
            _index_hit(sql, t, f, part, head, flt, words_of=words.get(number))
        elif part.scan:
            sql.add(
                f"SELECT id, {head}, NULL::float8 AS rel, %s::text AS term,"
                f" %s::text AS pattern FROM scan WHERE found{number}",
                part.term,
                like_pattern(part.term),
            )
        else:
            pattern = like_pattern(part.term)
            sql.add(
                f"SELECT {M}.id AS id, {head}, NULL::float8 AS rel, %s::text AS term,"
                f" %s::text AS pattern FROM {M} WHERE {flt.where} AND ",
                part.term,
                pattern,
                *flt.params,
            )
            _text_condition(sql, pattern)


def _words_ranking_sql(plan: Plan, flt: _Filter, connection) -> _Sql:
    """The common case, one query of words alone: each match ranked and weighed in one pass
    of the index, no grouping (a memory matches one sense), counted from that pass. The
    same total and page as the general statement makes of it."""
    f = plan.formula
    t = _terms(f)
    sql = _Sql().add("WITH ")
    words = _words_sql(sql, plan, flt, connection)
    sql.add("scored AS MATERIALIZED (SELECT id, sense, rel * weight")
    sql.add(
        f" * (CASE WHEN sense = 'prefix' THEN {t.prefix_weight} ELSE 1.0::float8 END) AS score,"
        " created_at FROM ("
    )
    for number, part in enumerate(plan.parts):
        sql.add(" UNION ALL " if number else "")
        _index_hit(sql, t, f, part, f"'{part.sense}'::text AS sense", flt, plan, words.get(number))
    sql.add(
        f") AS hits), total AS (SELECT count(*) AS n, {_dropped_sql(words)} AS capped"
        " FROM scored),"
        " page AS (SELECT id, score, CASE sense WHEN 'word' THEN 0 ELSE 1 END AS sense_rank,"
        " '[]'::text AS terms, created_at FROM scored"
        " ORDER BY score DESC, created_at DESC, id DESC LIMIT %s OFFSET %s) ",
        plan.limit,
        plan.offset,
    )
    return sql


def ranking_statement(plan: Plan, connection) -> tuple[str, list]:
    """The rows `memories.engine.ranking` describes, in one statement, its words weighed by
    the store's statistics as `connection` reads them."""
    flt = _Filter(plan.where or "TRUE", list(plan.params))
    if len(plan.divisors) == 1 and all(part.sense in ("word", "prefix") for part in plan.parts):
        sql = _words_ranking_sql(plan, flt, connection)
    else:
        sql = _ranking_sql(plan, flt, connection)
    sql.add(
        "SELECT total.n, total.capped, page.score, page.sense_rank, page.terms, "
        + plan.columns
        + f" FROM total LEFT JOIN page ON TRUE LEFT JOIN {M} ON {M}.id = page.id"
        f" LEFT JOIN {PROJECTS} ON {PROJECTS}.id = {M}.project_id"
        " ORDER BY page.score DESC, page.created_at DESC, page.id DESC"
    )
    return sql.text(), sql.params


def _ranking_sql(plan: Plan, flt: _Filter, connection) -> _Sql:
    """Any search: every part's hits scored, grouped per query and memory, one row per memory
    at its best, counted, and the page."""
    f = plan.formula
    t = _terms(f)
    sql = _Sql().add("WITH ")
    words = _words_sql(sql, plan, flt, connection)
    bound = scan_cte(sql, M, plan.parts, flt.where, flt.params, t.scan_limit, _text_condition)
    sql.add("hits AS (")
    _hits_sql(sql, t, f, plan.parts, flt, words)
    sql.add(
        "), scored AS (SELECT hits.id AS id, hits.q AS q, hits.sense AS sense,"
        f" hits.term AS term, coalesce(hits.rel, {t.text_relevance}) AS rel, "
    )
    _weight_sql(sql, plan, t)
    sql.add(
        f" AS weight, {M}.created_at AS created_at FROM hits JOIN {M} ON {M}.id = hits.id"
        f" JOIN {S} ON {S}.id = hits.id), "
    )
    divisors = " ".join(f"WHEN {i} THEN {divisor}" for i, divisor in enumerate(plan.divisors))
    capped = f"(SELECT count(*) FROM scan) >= {bound}" if bound else "FALSE"
    capped = f"({capped} OR {_dropped_sql(words)})"
    sql.add(
        "per_query AS (SELECT id, q, count(*) AS matched, avg(rel) AS rel, max(weight) AS weight,"
        f" min(CASE sense {SENSE_RANK} END) AS sense_rank,"
        " coalesce(json_agg(term) FILTER (WHERE term IS NOT NULL), '[]')::text AS terms,"
        " max(created_at) AS created_at FROM scored GROUP BY id, q), "
        "ranked AS (SELECT id, sense_rank, terms, created_at,"
        " (matched - 1 + rel * weight"
        f" * (CASE WHEN sense_rank = 1 THEN {t.prefix_weight} ELSE 1.0::float8 END))"
        f" / (CASE q {divisors} END) AS score FROM per_query), "
        "best AS MATERIALIZED (SELECT DISTINCT ON (id) id, score, sense_rank, terms, created_at"
        " FROM ranked ORDER BY id, score DESC), "
        f"total AS (SELECT (SELECT count(*) FROM best) AS n, {capped} AS capped), "
        "page AS (SELECT id, score, sense_rank, terms, created_at FROM best"
        " ORDER BY score DESC, created_at DESC, id DESC LIMIT %s OFFSET %s) ",
        plan.limit,
        plan.offset,
    )
    return sql


def ranked_rows(connection, sql: str, params: list) -> list[tuple]:
    """The ranking statement's rows, with the PARALLEL settings for it alone, in one round
    trip: the settings, the statement and the settings put back are sent together (Django's
    client-side binding cursor sends them as one query string), which PostgreSQL runs as
    one implicit transaction when none is open; inside one, the last part ends the
    setting."""
    with connection.cursor() as cursor:
        cursor.execute("; ".join([*PARALLEL, sql, *PARALLEL_ENDED]), params)
        for _ in PARALLEL:
            cursor.nextset()
        return cursor.fetchall()
