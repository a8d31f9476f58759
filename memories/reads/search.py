"""Search: the one selector behind the list page, the API's `q=` and `manage.py memory search`.

A search is a list of queries, read as synonyms (`["terse", "brevity", "verbosity"]`): one
search over all of them, each memory listed once at its best score. Each query is split on
whitespace into

* words (runs of letters and digits, as the FTS5 tokenizer splits them), all of which must
  match, and
* plain-text terms: a run of a script written without spaces (Chinese, Japanese, Thai, Lao,
  Khmer, Myanmar, Tibetan) or a long identifier, path or URL (letters and digits joined by
  punctuation: `/etc/nginx/nginx.conf`, `deploy-host`, `MEMADMIN_INLINE_MAX_BYTES`).

The four senses of the seed, each hit saying which one answered (`matched_by`):

1. `word`: the words through FTS5 and its porter stemmer (deploys, shipping, running).
2. `prefix`: tried for a query whose words match nothing (within the filters): each word as
   the start of a stored word (`deploy` finds `deployment`) or shortened toward one
   (`deployment` finds `Deploys`). The stemmer rewrites a prefix query too (`deploy*` is
   searched as `deploi*`, which misses `deployment`, indexed as `deploy`), so the forward
   prefix is the longest start of the word the stemmer leaves alone (`deplo*`).
3. `plain_text`: each plain-text term is matched as text beside the words, and a memory
   holding both ranks first; `scanned_terms` names the terms that matched. A run of an
   unspaced script is scanned for in the memories themselves, since the tokenizer keeps
   such a run as one token (one pass for all such terms, newest first, stopping after
   SCAN_LIMIT matches for each term it holds: `capped` says when it stopped); a joined identifier is
   looked up through the index by its pieces and confirmed as text.
4. `last_resort`: when nothing else answers, each whole query is scanned for as plain text
   and the result says so (`SearchResult.last_resort`).

User text reaches FTS5 only as double-quoted strings (quotes doubled, NUL removed), so FTS5
syntax in a query (`"`, `NEAR(`, `body:`, `*`, `AND`, parentheses) is searched for as words,
never obeyed; text scans use LIKE with `%`, `_` and the escape character escaped.

The ranking is computed in SQL (see `search()` for the formula): FTS5 ranks and counts, one
join reads priority, read count and verified_at, and only the page's rows are loaded.
"""

import datetime as dt
import functools
import json
import math
import re
import sqlite3
import threading
from dataclasses import dataclass, field
from functools import lru_cache

from django.conf import settings
from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.utils import timezone

from memories.models import Memory
from memories.reads.filters import MemoryFilters
from projects.models import Project

# BM25 column weights: a hit on the name counts most, then the description, then the body.
NAME_WEIGHT, DESCRIPTION_WEIGHT, BODY_WEIGHT = 10.0, 4.0, 1.0
# Where the match is, as a factor of relevance: BM25 saturates with repetition, so without
# it a long body naming a word twenty times rivals the memory named for it.
NAME_PLACEMENT, DESCRIPTION_PLACEMENT, BODY_PLACEMENT = 1.0, 0.7, 0.4
TEXT_STRENGTH = 0.8  # a text match counts as a BM25 of 4: r / (1 + r) = 0.8
PRIORITY_SCALE = 10.0  # the priority at which the declared importance is one half
READS_SCALE = 10.0  # the read count at which the reads alone make a memory half important
FRESHNESS_FLOOR = 0.5  # what freshness decays toward: an old note keeps half its weight
PREFIX_WEIGHT = 0.8  # a prefix guess ranks below an exact word match of the same quality
SCAN_LIMIT = 2000  # text matches kept per scanned term, newest first, in one shared pass
SHORT_BODY_CHARS = 400  # a hit carries its body when it is at most this long
MAX_QUERY_CHARS = 500
MAX_QUERIES = 20
MIN_PREFIX = 3  # shorter stems would match a large part of the vocabulary
MIN_SHORTENED = 4
SHORTEN_TO = 0.6  # a query word is shortened to no less than this share of its length
MAX_SHORTENINGS = 8
JOINED_MIN_CHARS = 8  # `deploy-host` is an identifier; `e-mail` is two words

SENSES = ("word", "prefix", "plain_text", "last_resort")

_UNSPACED = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u0f00-\u0fff"  # Tibetan
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"  # Hiragana, Katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"  # CJK ideographs
)
UNSPACED_RUNS = re.compile(f"([{_UNSPACED}]+)")
WORD = re.compile(r"[^\W_]+")  # letters and digits: what the unicode61 tokenizer keeps
# Letters and digits joined by the punctuation of paths, URLs and identifiers.
IDENTIFIER = re.compile(r"[\w/\\.:@#?=&+~%-]+")
EDGE_PUNCTUATION = "\"'`()[]{}<>,;:!?."
LIKE_ESCAPE = "\\"


@dataclass
class Hit:
    memory: Memory
    score: float
    matched_by: str  # one of SENSES
    scanned_terms: list[str] = field(default_factory=list)

    @property
    def verified_since_recorded(self) -> bool:
        return self.memory.verified_at > self.memory.created_at

    @property
    def short_body(self) -> str | None:
        body = self.memory.body
        return body if len(body) <= SHORT_BODY_CHARS else None

    def to_dict(self, now=None) -> dict:
        data = self.memory.to_dict(now)
        data["score"] = round(self.score, 6)
        data["matched_by"] = self.matched_by
        data["scanned_terms"] = list(self.scanned_terms)
        data["verified"] = self.verified_since_recorded
        if self.short_body is not None:
            data["body"] = self.short_body
        return data


@dataclass
class SearchResult:
    hits: list[Hit]
    count: int
    last_resort: bool  # True when the whole-query plain-text scan answered
    capped: bool = False  # a scan stopped at SCAN_LIMIT matches: count is a lower bound


# Reading a query ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    text: str
    joined: bool  # letters and digits joined by punctuation, found through the index


@dataclass
class Query:
    text: str
    words: list[str]
    terms: list[Term]

    @property
    def parts(self) -> int:
        """What a memory can hold of the query: the words (as one) and each term."""
        return (1 if self.words else 0) + len(self.terms)


def clean(text: str) -> str:
    return " ".join(str(text).replace("\x00", " ").split())[:MAX_QUERY_CHARS]


def parse(text: str) -> Query:
    """Split one query into words and plain-text terms; never raises."""
    text = clean(text)
    words: list[str] = []
    terms: list[Term] = []
    for chunk in text.split():
        core = chunk.strip(EDGE_PUNCTUATION) or chunk
        if UNSPACED_RUNS.search(core):
            for index, segment in enumerate(UNSPACED_RUNS.split(core)):
                if index % 2:
                    terms.append(Term(segment, joined=False))
                else:
                    words.extend(w.lower() for w in WORD.findall(segment))
            continue
        pieces = WORD.findall(core)
        if (
            len(pieces) > 1
            and IDENTIFIER.fullmatch(core)
            and ("/" in core or "\\" in core or len(core) >= JOINED_MIN_CHARS)
        ):
            terms.append(Term(core, joined=True))
        else:
            words.extend(w.lower() for w in pieces)
    return Query(
        text=text,
        words=list(dict.fromkeys(words)),
        terms=list(dict.fromkeys(terms)),
    )


def quote(text: str) -> str:
    """One FTS5 string: whatever it holds is tokenized as text, never read as syntax."""
    return '"' + text.replace("\x00", " ").replace('"', '""') + '"'


def like_pattern(text: str) -> str:
    escaped = (
        text.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2)
        .replace("%", LIKE_ESCAPE + "%")
        .replace("_", LIKE_ESCAPE + "_")
    )
    return f"%{escaped}%"


def word_expression(words: list[str], joiner: str = " AND ") -> str:
    return joiner.join(quote(word) for word in words)


def _shortest(word: str) -> int:
    return max(MIN_SHORTENED, math.ceil(len(word) * SHORTEN_TO))


def prefix_expression(words: list[str]) -> str:
    """Each word as the start of a stored word, or shortened toward one; all words needed.

    Forward: the longest start of the word porter leaves alone, as a prefix (`deplo*` for
    `deploy`, since `deploy*` would be searched as `deploi*`). Backward: the word shortened
    a letter at a time down to SHORTEN_TO of its length, each as a prefix the stemmer reads
    as it reads a stored word (`deploy*` from `deployment` finds `Deploys`). A memory matching
    several of the forms ranks above one matching a single short one.
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
    return " AND ".join(groups)


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


# The SQL -------------------------------------------------------------------------------------

M = Memory._meta.db_table
PROJECTS = Project._meta.db_table
NOTHING = '""'  # an FTS5 expression (an empty phrase) that matches no row
BM25 = f"bm25(memories_fts, {NAME_WEIGHT}, {DESCRIPTION_WEIGHT}, {BODY_WEIGHT})"
# r / (1 + r) with r = -bm25 (never negative), written to call bm25() once.
RELEVANCE = f"(1.0 - 1.0 / (1.0 - {BM25}))"


class _Sql:
    """Text and positional parameters built together, in the order they appear."""

    def __init__(self):
        self.parts: list[str] = []
        self.params: list = []

    def add(self, text: str, *params) -> "_Sql":
        self.parts.append(text)
        self.params.extend(params)
        return self

    def text(self) -> str:
        return "".join(self.parts)


@dataclass
class _Filter:
    where: str
    params: list

    @property
    def active(self) -> bool:
        return self.where != "1"


def _filter_sql(filters: MemoryFilters, now: dt.datetime) -> _Filter | None:
    """The filters' condition on memories_memory, from the same code the listing uses.

    None when the filters admit nothing.
    """
    query = filters.apply(Memory.objects.all(), now).query
    if not query.where:
        return _Filter("1", [])
    try:
        where, params = query.get_compiler(connection=connection).compile(query.where)
    except EmptyResultSet:
        return None
    except FullResultSet:
        return _Filter("1", [])
    return _Filter(f"({where})", list(params))


def _julian_day(moment: dt.datetime) -> float:
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    return (moment - epoch).total_seconds() / 86400 + 2440587.5


def _weight_sql(sql: _Sql, now: dt.datetime) -> None:
    """importance × freshness of the memories_memory row (see search())."""
    half_life = float(settings.MEMADMIN_SEARCH_HALF_LIFE_DAYS)
    sql.add(
        f"(1.0 - {READS_SCALE} * {M}.priority"
        f" / (({M}.priority + {PRIORITY_SCALE}) * ({M}.read_count + {READS_SCALE})))"
        f" * (CASE WHEN {M}.priority <= 1 THEN 1.0 ELSE {FRESHNESS_FLOOR}"
        f" + {1 - FRESHNESS_FLOOR} * pow(0.5, max(0.0, %s - julianday({M}.verified_at)) / %s)"
        " END)",
        _julian_day(now),
        half_life,
    )


def _text_relevance_sql(pattern_sql: str) -> str:
    """A text match's relevance: TEXT_STRENGTH at the best place the text was found."""
    return (
        f"({TEXT_STRENGTH} * (CASE WHEN {M}.name LIKE {pattern_sql} ESCAPE '\\'"
        f" THEN {NAME_PLACEMENT} WHEN {M}.description LIKE {pattern_sql} ESCAPE '\\'"
        f" THEN {DESCRIPTION_PLACEMENT} ELSE {BODY_PLACEMENT} END))"
    )


def _index_relevance_sql(sql: _Sql, any_expression: str) -> None:
    """An index match's relevance: the BM25 strength at the best column holding a word.

    The column sets are FTS5 column filters, each read once per statement.
    """
    sql.add(
        f"({RELEVANCE} * (CASE WHEN rowid IN (SELECT rowid FROM memories_fts"
        f" WHERE memories_fts MATCH %s) THEN {NAME_PLACEMENT} WHEN rowid IN (SELECT rowid"
        f" FROM memories_fts WHERE memories_fts MATCH %s) THEN {DESCRIPTION_PLACEMENT}"
        f" ELSE {BODY_PLACEMENT} END))",
        f"name : ({any_expression})",
        f"description : ({any_expression})",
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
        "memories_fts MATCH (CASE WHEN EXISTS (SELECT 1 FROM memories_fts AS guard"
        f" JOIN {M} ON {M}.id = guard.rowid WHERE guard.memories_fts MATCH %s AND {flt.where})"
        f" THEN '{NOTHING}' ELSE %s END)",
        guard,
        *flt.params,
        expression,
    )


@dataclass
class _Part:
    query: int
    sense: str
    expression: str | None = None  # FTS5 MATCH (word, prefix, joined terms)
    any_expression: str | None = None  # word, prefix: any of the words, to place the match
    guard: str | None = None  # prefix: tried only when this word expression matches nothing
    term: str | None = None  # the scanned term, for plain_text and last_resort
    scan: bool = False  # scanned for in the memories rather than found through the index


def _parts(queries: list[Query], *, last_resort: bool) -> list[_Part]:
    parts = []
    for index, query in enumerate(queries):
        if last_resort:
            parts.append(_Part(index, "last_resort", term=query.text, scan=True))
            continue
        if query.words:
            words = word_expression(query.words)
            any_word = word_expression(query.words, " OR ")
            parts.append(_Part(index, "word", expression=words, any_expression=any_word))
            prefix = prefix_expression(query.words)
            if prefix != words:
                any_prefix = prefix_placement_expression(query.words)
                parts.append(
                    _Part(
                        index, "prefix", expression=prefix, any_expression=any_prefix, guard=words
                    )
                )
        for term in query.terms:
            if term.joined:
                parts.append(
                    _Part(index, "plain_text", expression=quote(term.text), term=term.text)
                )
            else:
                parts.append(_Part(index, "plain_text", term=term.text, scan=True))
    return parts


def _hits_sql(sql: _Sql, parts: list[_Part], flt: _Filter, words_found: str | None = None):
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
                f"SELECT memories_fts.rowid AS id, {head}, NULL AS rel, %s AS term, %s AS pattern"
                f" FROM memories_fts JOIN {M} ON {M}.id = memories_fts.rowid"
                f" WHERE memories_fts MATCH %s AND {flt.where} AND ",
                part.term,
                pattern,
                part.expression,
                *flt.params,
            )
            _text_condition(sql, pattern)
        else:
            sql.add(f"SELECT rowid AS id, {head}, ")
            _index_relevance_sql(sql, part.any_expression)
            sql.add(" AS rel, NULL AS term, NULL AS pattern FROM memories_fts WHERE ")
            if part.guard is None:
                sql.add("memories_fts MATCH %s", part.expression)
            elif words_found is not None:
                sql.add(
                    f"memories_fts MATCH (CASE WHEN {words_found} THEN '{NOTHING}' ELSE %s END)",
                    part.expression,
                )
            else:
                _match_unless_sql(sql, part.expression, part.guard, flt)


def _scan_cte(sql: _Sql, parts: list[_Part], flt: _Filter) -> int:
    """One bounded pass over the memories for every scanned term, newest first.

    Materialized, so each term's matches are read from it and the bound can be checked.
    Returns the bound (0: nothing to scan).
    """
    scanned = [(number, part) for number, part in enumerate(parts) if part.scan]
    if not scanned:
        return 0
    sql.add(f"scan AS MATERIALIZED (SELECT {M}.id AS id")
    for number, part in scanned:
        sql.add(", ")
        _text_condition(sql, like_pattern(part.term))
        sql.add(f" AS found{number}")
    sql.add(f" FROM {M} WHERE (")
    for index, (_, part) in enumerate(scanned):
        sql.add(" OR " if index else "")
        _text_condition(sql, like_pattern(part.term))
    bound = SCAN_LIMIT * len(scanned)
    sql.add(f") AND {flt.where} ORDER BY {M}.id DESC LIMIT {bound}), ", *flt.params)
    return bound


def _ranking_sql(
    queries: list[Query], parts: list[_Part], flt: _Filter, now, limit: int, offset: int
) -> _Sql:
    """total (n, capped) and page (id, score, sense_rank, terms, created_at), as CTEs."""
    sql = _Sql().add("WITH ")
    bound = _scan_cte(sql, parts, flt)
    sql.add("hits AS (")
    _hits_sql(sql, parts, flt)
    sql.add(
        "), scored AS (SELECT hits.id AS id, hits.q AS q, hits.sense AS sense,"
        f" hits.term AS term, coalesce(hits.rel, {_text_relevance_sql('hits.pattern')}) AS rel, "
    )
    _weight_sql(sql, now)
    sql.add(
        f" AS weight, {M}.created_at AS created_at FROM hits JOIN {M} ON {M}.id = hits.id"
        f" WHERE {flt.where}), ",
        *flt.params,
    )
    sense_rank = " ".join(f"WHEN '{sense}' THEN {rank}" for rank, sense in enumerate(SENSES))
    query_parts = " ".join(f"WHEN {i} THEN {query.parts or 1}" for i, query in enumerate(queries))
    capped = f"(SELECT count(*) FROM scan) >= {bound}" if bound else "0"
    sql.add(
        "per_query AS (SELECT id, q, count(*) AS matched, avg(rel) AS rel, max(weight) AS weight,"
        f" min(CASE sense {sense_rank} END) AS sense_rank,"
        " json_group_array(term) FILTER (WHERE term IS NOT NULL) AS terms,"
        " max(created_at) AS created_at FROM scored GROUP BY id, q), "
        "ranked AS (SELECT id, sense_rank, terms, created_at,"
        " (matched - 1 + rel * weight"
        f" * (CASE WHEN sense_rank = 1 THEN {PREFIX_WEIGHT} ELSE 1.0 END))"
        f" / (CASE q {query_parts} END) AS score FROM per_query), "
        # SQLite takes the bare columns of a max() aggregate from the row holding the max.
        "best AS MATERIALIZED (SELECT id, max(score) AS score, sense_rank, terms, created_at"
        " FROM ranked GROUP BY id), "
        f"total AS (SELECT (SELECT count(*) FROM best) AS n, {capped} AS capped), "
        "page AS (SELECT id, score, sense_rank, terms, created_at FROM best"
        " ORDER BY score DESC, created_at DESC, id DESC LIMIT %s OFFSET %s) ",
        limit,
        offset,
    )
    return sql


def _words_ranking_sql(word: _Part, prefix: _Part | None, flt: _Filter, now, limit, offset):
    """The common case, one query of words alone: no grouping, the count straight from FTS5.

    The word count doubles as the prefix retry's guard. The same total and page as
    _ranking_sql makes of it.
    """
    if flt.active:
        count = (
            f"SELECT count(*) AS n FROM memories_fts JOIN {M} ON {M}.id = memories_fts.rowid"
            f" WHERE {flt.where} AND memories_fts MATCH %s"
        )
    else:
        count = "SELECT count(*) AS n FROM memories_fts WHERE memories_fts MATCH %s"
    count_params = flt.params if flt.active else []
    sql = _Sql().add(f"WITH words AS MATERIALIZED ({count}), ", *count_params, word.expression)
    sql.add("total AS (SELECT words.n")
    if prefix is not None:
        sql.add(
            f" + (CASE WHEN words.n THEN 0 ELSE ({count}) END)", *count_params, prefix.expression
        )
    sql.add(" AS n, 0 AS capped FROM words), page AS (SELECT hits.id AS id, ")
    sql.add(f"hits.rel * (CASE hits.sense WHEN 'prefix' THEN {PREFIX_WEIGHT} ELSE 1.0 END) * ")
    _weight_sql(sql, now)
    sql.add(
        " AS score, CASE hits.sense WHEN 'word' THEN 0 ELSE 1 END AS sense_rank,"
        f" '[]' AS terms, {M}.created_at AS created_at FROM ("
    )
    parts = [part for part in (word, prefix) if part is not None]
    _hits_sql(sql, parts, flt, words_found="(SELECT n FROM words)")
    sql.add(
        f") AS hits JOIN {M} ON {M}.id = hits.id WHERE {flt.where}"
        " ORDER BY score DESC, created_at DESC, id DESC LIMIT %s OFFSET %s) ",
        *flt.params,
        limit,
        offset,
    )
    return sql


class _Loader:
    """Memories (with their project) built from the columns the ranking statement returns,
    through each field's database converters, as a queryset would build them."""

    memory_fields = Memory._meta.concrete_fields
    project_fields = Project._meta.concrete_fields
    _local = threading.local()  # connections are per thread, and so are their loaders

    @classmethod
    @functools.cache
    def columns(cls) -> str:
        return ", ".join(
            [f'{M}."{f.column}"' for f in cls.memory_fields]
            + [f'{PROJECTS}."{f.column}"' for f in cls.project_fields]
        )

    @classmethod
    def for_connection(cls, db) -> "_Loader":
        loader = getattr(cls._local, "loader", None)
        if loader is None or loader.db is not db:
            loader = cls._local.loader = cls(db)
        return loader

    def __init__(self, db):
        self.db = db
        self.memory_converters = self._converters(Memory, self.memory_fields)
        self.project_converters = self._converters(Project, self.project_fields)
        self.memory_attnames = [f.attname for f in self.memory_fields]
        self.project_attnames = [f.attname for f in self.project_fields]
        self.project_field = Memory._meta.get_field("project")

    def _converters(self, model, fields):
        converters = []
        for index, model_field in enumerate(fields):
            column = model_field.get_col(model._meta.db_table)
            functions = self.db.ops.get_db_converters(column)
            functions += model_field.get_db_converters(self.db)
            if functions:
                converters.append((index, column, functions))
        return converters

    def _build(self, model, attnames, converters, values: list):
        for index, column, functions in converters:
            for convert in functions:
                values[index] = convert(values[index], column, self.db)
        return model.from_db(self.db.alias, attnames, values)

    def memories(self, rows) -> list[Memory]:
        """One Memory per row; the rows of one project share one Project."""
        split = len(self.memory_fields)
        projects: dict[int, Project] = {}
        memories = []
        for values in rows:
            memory = self._build(
                Memory, self.memory_attnames, self.memory_converters, list(values[:split])
            )
            if memory.project_id is not None:
                project = projects.get(memory.project_id)
                if project is None:
                    project = projects[memory.project_id] = self._build(
                        Project,
                        self.project_attnames,
                        self.project_converters,
                        list(values[split:]),
                    )
                self.project_field.set_cached_value(memory, project)
            memories.append(memory)
        return memories


def _statement(queries, parts, flt, now, limit, offset) -> _Sql:
    """The ranking statement: rows of (count, capped, score, sense, terms, memory, project).

    A single row of NULLs past the count when the page is empty, so the count comes back.
    """
    if len(queries) == 1 and all(part.sense in ("word", "prefix") for part in parts):
        prefix = parts[1] if len(parts) > 1 else None
        sql = _words_ranking_sql(parts[0], prefix, flt, now, limit, offset)
    else:
        sql = _ranking_sql(queries, parts, flt, now, limit, offset)
    return sql.add(
        "SELECT total.n, total.capped, page.score, page.sense_rank, page.terms, "
        + _Loader.columns()
        + f" FROM total LEFT JOIN page LEFT JOIN {M} ON {M}.id = page.id"
        f" LEFT JOIN {PROJECTS} ON {PROJECTS}.id = {M}.project_id"
        " ORDER BY page.score DESC, page.created_at DESC, page.id DESC"
    )


def _run(queries, parts, flt, now, limit, offset) -> tuple[int, bool, list[Hit]]:
    """Run one ranking statement: (count, capped, the page's hits)."""
    if not parts:
        return 0, False, []
    sql = _statement(queries, parts, flt, now, limit, offset)
    db = connections[DEFAULT_DB_ALIAS]
    with db.cursor() as cursor:
        cursor.execute(sql.text(), sql.params)
        rows = cursor.fetchall()
    page = [row for row in rows if row[2] is not None]
    memories = _Loader.for_connection(db).memories(row[5:] for row in page)
    hits = [
        Hit(
            memory=memory,
            score=row[2],
            matched_by=SENSES[row[3]],
            scanned_terms=json.loads(row[4]) if row[4] != "[]" else [],
        )
        for row, memory in zip(page, memories, strict=True)
    ]
    return rows[0][0], bool(rows[0][1]), hits


def ranking_sql(
    queries: list[str], filters: MemoryFilters, *, limit: int = 50, offset: int = 0, now=None
) -> tuple[str, list] | None:
    """The first statement search() runs (text with %s placeholders, and its parameters),
    for EXPLAIN QUERY PLAN and benchmarks; None when it would run none."""
    now = now or timezone.now()
    parsed = _parse_all(queries)
    flt = _filter_sql(filters, now) if parsed else None
    parts = _parts(parsed, last_resort=False) if flt else []
    if not parts:
        return None
    sql = _statement(parsed, parts, flt, now, limit, offset)
    return sql.text(), sql.params


def _parse_all(queries: list[str]) -> list[Query]:
    parsed = (parse(text) for text in list(queries)[:MAX_QUERIES])
    return [query for query in parsed if query.text]


def search(
    queries: list[str],
    filters: MemoryFilters,
    *,
    limit: int = 50,
    offset: int = 0,
    now=None,
) -> SearchResult:
    """Memories matching any of the queries, within the filters, best first.

    The score of a memory for one query:

        score = (matched - 1 + relevance × importance × freshness × sense) / parts

    * parts: what the query holds, its words counting as one part and each plain-text term
      as one; matched: how many of them the memory holds. A memory holding every part scores
      above any holding fewer, and a query of words alone scores relevance × importance ×
      freshness × sense.
    * relevance, in (0, 1): strength × placement, the mean over the parts matched.
      strength: r / (1 + r), r being minus FTS5's BM25 with the columns weighted name 10,
      description 4, body 1; for a text match 0.8 (as a BM25 of 4). placement: 1 when
      the name holds a word (or the term), 0.7 the description, 0.4 the body alone.
    * importance, in (0, 1]: 1 - (p / (p + 10)) × (10 / (reads + 10)), the declared priority
      p blended with the read count: priority 0 is 1, priority 10 unread is 0.5, and forty
      reads lift any priority to at least 0.8.
    * freshness, in (0.5, 1]: 0.5 + 0.5 × 0.5 ^ (days since verified_at / half-life), the
      half-life being MEMADMIN_SEARCH_HALF_LIFE_DAYS (180); always 1 for priorities 0 and 1.
    * sense: 0.8 for a prefix match, 1 otherwise.

    Over the list of queries a memory keeps its best score. Ties go to the most recently
    created. `count` is every matching memory the filters admit (a lower bound when
    `capped`); `queries` of nothing but blanks find nothing.
    """
    now = now or timezone.now()
    parsed = _parse_all(queries)
    flt = _filter_sql(filters, now) if parsed else None
    if flt is None:
        return SearchResult(hits=[], count=0, last_resort=False)

    count, capped, hits = _run(parsed, _parts(parsed, last_resort=False), flt, now, limit, offset)
    last_resort = count == 0
    if last_resort:
        count, capped, hits = _run(
            parsed, _parts(parsed, last_resort=True), flt, now, limit, offset
        )
    return SearchResult(
        hits=hits, count=count, last_resort=last_resort and count > 0, capped=capped
    )
