"""Search: the ranked half of memories.reads.find, behind every `q=` of the pages, /v1, MCP and
`manage.py memory search`.

A search is a list of queries, read as synonyms (`["terse", "brevity", "verbosity"]`): one
search over all of them, each memory listed once at its best score. Each query is split on
whitespace into

* words (runs of letters and digits, as the index's tokenizer splits them), any of which
  matches, a memory holding more of the query's rarer words ranking first, and
* plain-text terms: a run of a script written without spaces (Chinese, Japanese, Thai, Lao,
  Khmer, Myanmar, Tibetan) or a long identifier, path or URL (letters and digits joined by
  punctuation: `/etc/nginx/nginx.conf`, `deploy-host`, `MEMADMIN_INLINE_MAX_BYTES`).

The four senses of the seed, each hit saying which one answered (`matched_by`):

1. `word`: the words through the search index and its stemmer (deploys, shipping, running).
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
4. `reference`: a memory citing a query as one of its references (`docs/runbook.md`,
   `INC-2291`, another memory's name) that no other sense found: read from the normalized
   reference table by the ORM, not scored by the index, so listed after the hits the text
   senses rank, in index order (`REFERENCE_SENSE`, score 0).
5. `last_resort`: when nothing else answers, each whole query is scanned for as plain text
   and the result says so (`SearchResult.last_resort`).

A query is searched for by its first MAX_QUERY_TERMS words and terms; one holding no letter
or digit is scanned for among the newest PUNCTUATION_SCANNED memories alone (`capped` when
the store holds more). A question of several words is matched by its rarer words at scale
(CANDIDATES).

User text reaches the index only as quoted strings, so its syntax in a query (`"`, `NEAR(`,
`body:`, `*`, `AND`, parentheses) is searched for as words, never obeyed; text scans escape
their wildcards likewise.

The ranking is computed in SQL, in one statement the store's engine writes from the plan made
here (`memories.engine.ranking`; see `search()` for the formula): the index ranks and counts,
one join reads priority, read count and verified_at (for a query of many matches, of the
best by relevance alone when that provably gives the same page: CANDIDATES), and only the
page's rows are loaded.
"""

import datetime as dt
import json
import re
from dataclasses import dataclass, field

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.utils import timezone

from memories import engine
from memories.engine.ranking import SENSES, Candidates, Formula, Part, Plan
from memories.engine.tables import REFERENCE_TABLE
from memories.models import INDEX_ORDER, Memory
from memories.reads import conditions, meaning
from memories.reads import rows as memory_rows
from memories.reads.filters import MemoryFilters
from memories.rules import captions, similarity
from memories.rules.fields import MAX_QUERIES, MAX_QUERY_CHARS, MAX_QUERY_TERMS

# The index's column weights: a hit on the name counts most, then the description, then the
# body.
NAME_WEIGHT, DESCRIPTION_WEIGHT, BODY_WEIGHT = 10.0, 4.0, 1.0
# Where the match is, as a factor of relevance: the index's score saturates with repetition,
# so without it a long body naming a word twenty times rivals the memory named for it.
NAME_PLACEMENT, DESCRIPTION_PLACEMENT, BODY_PLACEMENT = 1.0, 0.7, 0.4
TEXT_STRENGTH = 0.8  # a text match counts as an index score of 4: r / (1 + r) = 0.8
# An index match counts at least this much, however common its words: the index's relevance
# score gives a word nearly every memory holds almost no weight, which would leave placement
# and importance nothing to rank by in a small or uniform store, and meaning alone deciding a
# hybrid search.
MATCH_FLOOR = 0.2
PRIORITY_SCALE = 10.0  # the priority at which the declared importance is one half
READS_SCALE = 10.0  # the read count at which the reads alone make a memory half important
FRESHNESS_FLOOR = 0.5  # what freshness decays toward: an old note keeps half its weight
PREFIX_WEIGHT = 0.8  # a prefix guess ranks below an exact word match of the same quality
SCAN_LIMIT = 2000  # text matches kept per scanned term, newest first, in one shared pass
# A query of words with 20,000 matches or more ranks its best eighth by text relevance first
# (Candidates): for a word in half the memories the first page's last score beats the
# relevance of the 5,000th; below that the bound rarely holds and every match is ranked
# (bench/results/2026-12-01-search).
# A question of several words is matched by its rarer words while their matches add up to
# 20,000 at most, and weighs its best 1,000 of them by text relevance whatever their number
# (bench/results/2026-12-04-words-cost).
CANDIDATES = Candidates(share=0.125, from_matches=20_000, words_budget=20_000, question=1_000)
# A query of punctuation alone (no word or term to look up) is scanned for as text among the
# newest this many memories, so that it costs no more than a question at any size.
PUNCTUATION_SCANNED = 20_000
SHORT_BODY_CHARS = 400  # a hit carries its body when it is at most this long
JOINED_MIN_CHARS = 8  # `deploy-host` is an identifier; `e-mail` is two words
REFERENCE_SENSE = "reference"  # found by a reference alone: a sense outside the engine

# Search by meaning (mode hybrid and meaning; bench/meaning gives the figures these were
# chosen by). A memory is similar in meaning to a query from this cosine up, and below it a
# guess is not returned, so a unique word brings no junk along. With all-MiniLM-L6-v2,
# recall@5 of the paraphrase set 0.897 from 0.1, 0.860 from 0.15, 0.804 from 0.2; a query no
# memory answers comes nearest at 0.13-0.26 in English, up to 0.39 as made-up tokens
# (bench/results/2026-12-04-encoder): no floor tells them all apart.
MEANING_FLOOR = 0.15
# Hybrid (`_fused`): reciprocal rank fusion, a hit scoring WORDS_SHARE / (RRF_K + its rank
# among the words' hits) plus the rest / (RRF_K + its rank among the meaning's). Ranks, not
# scores, since the two scales differ; both rankings already weigh importance and
# freshness. Chosen on LoCoMo's dev conversations (bench/recall/fusion_grid.py,
# bench/results/2026-12-04-recall-minilm): recall@5 0.551-0.562 for RRF_K 10 and a share of
# 0.5 to 0.6, 0.530-0.537 at the paper's 60, 0.48-0.53 blending the scores themselves.
WORDS_SHARE = 0.55
RRF_K = 10
# A question asked in a sentence (every query holding SENTENCE_WORDS words or more besides
# function words) matches many memories by a word or two of it. A words hit whose meaning
# is as far from the question as a question no memory answers comes (a cosine up to
# INCIDENTAL_BELOW, bench/results/2026-12-04-encoder) is read as matched by chance: its
# words' share counts INCIDENTAL_SHARE of itself at MEANING_FLOOR and less, all of itself
# from INCIDENTAL_BELOW up, in proportion between. On LoCoMo's dev conversations recall@5
# moved by 0.004 at most over the ramps tried (full from 0.25 or 0.3, 0 to 0.3 below); the
# paraphrase set's rose from 0.67 to 0.77-0.80 (bench/recall/sentence_grid.py).
SENTENCE_WORDS = 3
INCIDENTAL_BELOW = 0.3
INCIDENTAL_SHARE = 0.1
TIE = 1e-6  # scores this close (relatively) share a rank
# A hit by meaning is ranked among the meaning's candidates by cosine × (importance ×
# freshness) ^ WEIGHT_POWER: the fourth root keeps the blend a tie-breaker between near equals.
WEIGHT_POWER = 0.25
FUSED_CANDIDATES = 100  # the words' best hits fused with the meaning's (more for deep pages)
FUSED_FIELDS = ("id", "project_id", "created_at")  # what fusing reads of the words' hits
SEMANTIC = "semantic"  # matched_by of a hit found by meaning alone
MATCHED_BY = (*SENSES, REFERENCE_SENSE, SEMANTIC)  # every sense a hit may say answered

FORMULA = Formula(
    name_weight=NAME_WEIGHT,
    description_weight=DESCRIPTION_WEIGHT,
    body_weight=BODY_WEIGHT,
    name_placement=NAME_PLACEMENT,
    description_placement=DESCRIPTION_PLACEMENT,
    body_placement=BODY_PLACEMENT,
    text_strength=TEXT_STRENGTH,
    match_floor=MATCH_FLOOR,
    priority_scale=PRIORITY_SCALE,
    reads_scale=READS_SCALE,
    freshness_floor=FRESHNESS_FLOOR,
    prefix_weight=PREFIX_WEIGHT,
    scan_limit=SCAN_LIMIT,
)

_UNSPACED = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u0f00-\u0fff"  # Tibetan
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"  # Hiragana, Katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"  # CJK ideographs
)
UNSPACED_RUNS = re.compile(f"([{_UNSPACED}]+)")
WORD = re.compile(r"[^\W_]+")  # letters and digits: what the index's tokenizer keeps
# Letters and digits joined by the punctuation of paths, URLs and identifiers.
IDENTIFIER = re.compile(r"[\w/\\.:@#?=&+~%-]+")
EDGE_PUNCTUATION = "\"'`()[]{}<>,;:!?."


@dataclass
class Hit:
    memory: Memory
    score: float
    matched_by: str  # one of MATCHED_BY
    scanned_terms: list[str] = field(default_factory=list)
    similarity: float | None = None  # the cosine to the query, when meaning was asked

    @property
    def by_meaning_only(self) -> bool:
        return self.matched_by == SEMANTIC

    @property
    def verified_since_recorded(self) -> bool:
        return captions.verified_since_recorded(self.memory)

    @property
    def short_body(self) -> str | None:
        body = self.memory.body
        return body if len(body) <= SHORT_BODY_CHARS else None

    def to_dict(self, now=None) -> dict:
        data = self.memory.to_dict(now)
        data["score"] = round(self.score, 6)
        data["matched_by"] = self.matched_by
        data["scanned_terms"] = list(self.scanned_terms)
        data["similarity"] = None if self.similarity is None else round(self.similarity, 4)
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

    @property
    def looks_cited(self) -> bool:
        """Whether the query reads as a reference rather than words: one path, URL or id."""
        return not self.words and len(self.terms) == 1 and self.terms[0].joined


def looks_cited(text: str) -> bool:
    """Whether `text` reads as a path, URL or id, which the Referencing filter finds."""
    return parse(text).looks_cited


def clean(text: str) -> str:
    return " ".join(str(text).replace("\x00", " ").split())[:MAX_QUERY_CHARS]


def parse(text: str) -> Query:
    """Split one query into words and plain-text terms, the first MAX_QUERY_TERMS of them
    in the order written (each once); never raises."""
    text = clean(text)
    found: list[str | Term] = []  # words and terms in the order written
    for chunk in text.split():
        core = chunk.strip(EDGE_PUNCTUATION) or chunk
        if UNSPACED_RUNS.search(core):
            for index, segment in enumerate(UNSPACED_RUNS.split(core)):
                if index % 2:
                    found.append(Term(segment, joined=False))
                else:
                    found.extend(w.lower() for w in WORD.findall(segment))
            continue
        pieces = WORD.findall(core)
        if (
            len(pieces) > 1
            and IDENTIFIER.fullmatch(core)
            and ("/" in core or "\\" in core or len(core) >= JOINED_MIN_CHARS)
        ):
            found.append(Term(core, joined=True))
        else:
            found.extend(w.lower() for w in pieces)
    kept = list(dict.fromkeys(found))[:MAX_QUERY_TERMS]
    return Query(
        text=text,
        words=[item for item in kept if isinstance(item, str)],
        terms=[item for item in kept if isinstance(item, Term)],
    )


# The plan -----------------------------------------------------------------------------------


def _parts(queries: list[Query], *, last_resort: bool) -> list[Part]:
    """What each query is matched by: its words, their prefixes (tried when the words match
    nothing) and its plain-text terms; or, as the last resort, the whole query as text."""
    parts = []
    for index, query in enumerate(queries):
        if last_resort:
            parts.append(Part(index, "last_resort", term=query.text, scan=True))
            continue
        if query.words:
            words = tuple(query.words)
            parts.append(Part(index, "word", words=words))
            parts.append(Part(index, "prefix", words=words))
        for term in query.terms:
            parts.append(Part(index, "plain_text", term=term.text, scan=not term.joined))
    return parts


def _words_first(queries: list[Query], parts: list[Part]) -> list[Part]:
    """The parts a search runs first. A query of words alone is tried by its words without
    their prefixes, which count only when the words match nothing within the filters: then
    a second statement adds them. One statement holding both cost PostgreSQL a quarter more
    CPU, planning the prefixes' queries that a question's words make moot
    (bench/results/2026-12-05-pglatency)."""
    if len(queries) == 1 and not queries[0].terms:
        return [part for part in parts if part.sense != "prefix"]
    return parts


def _statement(
    db, queries, parts, flt, now, limit, offset, attnames=memory_rows.EVERY_FIELD
) -> tuple[str, list]:
    """The ranking statement (`memories.engine.ranking` gives its rows) and its parameters."""
    plan = Plan(
        parts=parts,
        divisors=[query.parts or 1 for query in queries],
        where=flt.where,
        params=flt.params,
        columns=memory_rows.columns(attnames),
        formula=FORMULA,
        half_life_days=float(settings.MEMADMIN_SEARCH_HALF_LIFE_DAYS),
        now=now,
        limit=limit,
        offset=offset,
        candidates=CANDIDATES,
    )
    return engine.of(db).search.ranking_statement(plan, db)


def _run(
    queries, parts, flt, now, limit, offset, attnames=memory_rows.EVERY_FIELD
) -> tuple[int, bool, list[Hit]]:
    """Run one ranking statement: (count, capped, the page's hits, their memories with the
    fields of `attnames`)."""
    if not parts:
        return 0, False, []
    db = connections[DEFAULT_DB_ALIAS]
    sql, params = _statement(db, queries, parts, flt, now, limit, offset, attnames)
    rows = engine.of(db).search.ranked_rows(db, sql, params)
    page = [row for row in rows if row[2] is not None]
    loader = memory_rows.Loader.for_connection(db, attnames)
    memories = loader.memories(row[5:] for row in page)
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
    flt = conditions.of(filters, now) if parsed else None
    parts = _words_first(parsed, _parts(parsed, last_resort=False)) if flt else []
    if not parts:
        return None
    return _statement(connections[DEFAULT_DB_ALIAS], parsed, parts, flt, now, limit, offset)


_SAYS_SOMETHING = re.compile(r"[^\W_]").search  # a letter or a digit, in any script


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
    mode: str,
) -> SearchResult:
    """Memories matching any of the queries, within the filters, best first: by their words
    (`mode="words"`, below), by meaning (`"meaning"`, see `_by_meaning`), or both fused
    (`"hybrid"`, see `_fused`). Every caller asks through memories.reads.find, which holds
    the one default mode.

    The score of a memory for one query:

        score = (matched - 1 + relevance × importance × freshness × sense) / parts

    * parts: what the query holds, its words counting as one part and each plain-text term
      as one; matched: how many of them the memory holds. A memory holding every part scores
      above any holding fewer, and a query of words alone scores relevance × importance ×
      freshness × sense.
    * relevance, in (0, 1): strength × placement, the mean over the parts matched.
      strength: 0.2 + 0.8 × r / (1 + r) (MATCH_FLOOR), r being the search index's relevance
      score of the match (never negative) with the columns weighted name 10, description 4,
      body 1; for a text match
      0.8 (as a score of 4). placement: 1 when the name holds a word (or the term), 0.7 the
      description, 0.4 the body alone.
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
    flt = conditions.of(filters, now) if parsed else None
    if flt is None:
        return SearchResult(hits=[], count=0, last_resort=False)
    if mode == "words":
        return _by_words(parsed, flt, filters, now, limit, offset)
    window = max(FUSED_CANDIDATES, offset + limit)
    # A query of no letter or digit (punctuation, symbols) means nothing to the encoder: its
    # vector lands near whatever it lands near, and those would be guesses of nothing.
    meant = [query.text for query in parsed if _SAYS_SOMETHING(query.text)]
    ranking = meaning.ranking(meant, floor=MEANING_FLOOR)
    if mode == "meaning":
        return _meaning_page(*_by_meaning(ranking, flt, now, window), limit, offset)
    # Read while the meaning is ranked; ranked by both, and only the page's memories loaded.
    words = _by_words(parsed, flt, filters, now, window, 0, attnames=FUSED_FIELDS)
    close = _by_meaning(ranking, flt, now, window)[0]
    damp = _incidental(ranking.result(), words.hits) if _sentences(parsed) else {}
    return _fused(words, close, damp, limit, offset, now)


def _by_words(
    parsed, flt, filters, now, limit, offset, attnames=memory_rows.EVERY_FIELD
) -> SearchResult:
    parts = _parts(parsed, last_resort=False)
    first = _words_first(parsed, parts)
    count, capped, hits = _run(parsed, first, flt, now, limit, offset, attnames)
    if not count and first != parts:
        count, capped, hits = _run(parsed, parts, flt, now, limit, offset, attnames)
    cited = _cited_only(parsed, parts, flt, filters, now)
    if cited:
        start = max(offset - count, 0)
        room = limit - len(hits)
        hits += [
            Hit(memory=memory, score=0.0, matched_by=REFERENCE_SENSE)
            for memory in _in_order(cited[start : start + room] if room > 0 else [])
        ]
        return SearchResult(
            hits=hits,
            count=count + len(cited),
            last_resort=False,
            capped=capped or len(cited) >= SCAN_LIMIT,
        )
    last_resort = count == 0
    if last_resort:
        newest = None
        if not any(query.words or query.terms for query in parsed):
            ids = Memory.objects.order_by("-id").values_list("id", flat=True)
            newest = next(iter(ids[PUNCTUATION_SCANNED - 1 : PUNCTUATION_SCANNED]), None)
        scanned = (conditions.of(filters, now, from_id=newest) if newest else None) or flt
        count, capped, hits = _run(
            parsed, _parts(parsed, last_resort=True), scanned, now, limit, offset, attnames
        )
        capped = capped or newest is not None
    return SearchResult(
        hits=hits, count=count, last_resort=last_resort and count > 0, capped=capped
    )


def _cited_only(
    parsed: list[Query], parts, flt: conditions.Condition, filters: MemoryFilters, now
) -> list[int]:
    """The ids of the memories within the filters (`flt`, their condition) that cite a
    query as a reference and that no text sense finds, in index order (at most SCAN_LIMIT).
    A plain statement: asked of every search, where compiling a queryset cost more than
    running it."""
    targets = [query.text for query in parsed]
    citing = (
        f'{memory_rows.M}."id" IN (SELECT memory_id FROM {REFERENCE_TABLE}'
        f" WHERE target IN ({', '.join(['%s'] * len(targets))}))"
    )
    where = citing if flt.where is None else f"{citing} AND {flt.where}"
    ids = memory_rows.ids(where, [*targets, *flt.params], order=INDEX_ORDER, limit=SCAN_LIMIT)
    if not ids:
        return []
    among = conditions.of(filters, now, ids)
    by_text = _run(parsed, parts, among, now, len(ids), 0)[2] if among else []
    found = {hit.memory.id for hit in by_text}
    return [memory_id for memory_id in ids if memory_id not in found]


def _in_order(ids: list[int]) -> list[Memory]:
    by_id = memory_rows.by_id(ids)
    return [by_id[memory_id] for memory_id in ids if memory_id in by_id]


# By meaning ---------------------------------------------------------------------------------


@dataclass(slots=True)
class _Close:
    """A memory near a query in meaning, within the filters."""

    memory_id: int
    cosine: float
    score: float  # cosine × importance × freshness
    created_at: dt.datetime


def _by_meaning(ranking, flt: conditions.Condition, now, want: int) -> tuple[list[_Close], bool]:
    """The `want` memories the filters admit (`flt`, their condition) nearest a query in
    meaning (its nearest, for synonyms: `meaning.ranking`, from MEANING_FLOOR up), ranked by
    cosine × the weight of the words' formula (importance × freshness) ^ WEIGHT_POWER, then
    the most recently created; and whether they are all there are.
    """
    found, complete = meaning.nearest(
        ranking,
        condition=flt,
        want=want,
        fields=("priority", "read_count", "verified_at", "created_at"),
    )
    half_life = float(settings.MEMADMIN_SEARCH_HALF_LIFE_DAYS)
    close = [
        _Close(
            n.memory_id,
            n.cosine,
            n.cosine * FORMULA.weight(priority, reads, verified_at, now, half_life) ** WEIGHT_POWER
            - meaning.HUB_PENALTY * n.hubness,
            created_at,
        )
        for n in found
        for priority, reads, verified_at, created_at in [n.values]
    ]
    close.sort(key=lambda c: (c.score, c.created_at, c.memory_id), reverse=True)
    return close, complete


def _meaning_page(close: list[_Close], complete: bool, limit: int, offset: int) -> SearchResult:
    page = close[offset : offset + limit]
    memories = memory_rows.by_id([c.memory_id for c in page])
    hits = [
        Hit(memories[c.memory_id], c.score, SEMANTIC, similarity=c.cosine)
        for c in page
        if c.memory_id in memories
    ]
    return SearchResult(hits=hits, count=len(close), last_resort=False, capped=not complete)


def _sentences(parsed: list[Query]) -> bool:
    """Whether every query is a question asked in a sentence (see SENTENCE_WORDS)."""
    return all(len(similarity.content_words(query.text)) >= SENTENCE_WORDS for query in parsed)


def _incidental(ranked, hits: list[Hit]) -> dict[int, float]:
    """The share (below 1) a words hit of a sentence keeps of its words' part, by how near
    the question it is in meaning (see INCIDENTAL_BELOW); a memory without a vector keeps
    all of it."""
    cosines = ranked.similarity([hit.memory.id for hit in hits])
    span = INCIDENTAL_BELOW - MEANING_FLOOR
    damp = {}
    for memory_id, cosine in cosines.items():
        if cosine < INCIDENTAL_BELOW:
            above = max(cosine - MEANING_FLOOR, 0.0) / span
            damp[memory_id] = INCIDENTAL_SHARE + (1 - INCIDENTAL_SHARE) * above
    return damp


def _fused(
    words: SearchResult,
    close: list[_Close],
    damp: dict[int, float],
    limit: int,
    offset: int,
    now,
) -> SearchResult:
    """The words' best hits and the meaning's fused by their ranks: WORDS_SHARE / (RRF_K +
    the rank among the words' hits) + (1 - WORDS_SHARE) / (RRF_K + the rank among the
    meaning's, which holds only memories from MEANING_FLOOR up). Hits of equal score share a
    rank, so memories equal in all that ranks score equal; both rankings weigh importance
    and freshness, which so decide among equally relevant hits as in words mode. When
    nothing but the whole-query scan answered by words, its hits come first, as the seed says.
    A words hit of a sentence keeps only its `damp` share (`_incidental`) of the words' part.

    A hit the words found keeps its sense and gains its similarity; one found by meaning
    alone is `semantic`. `count` is the words' count plus the memories found by meaning
    alone among the meaning's best. The words' hits come with FUSED_FIELDS alone: only the
    page's memories are loaded whole.
    """
    by_words = {hit.memory.id: hit for hit in words.hits}
    word_rank = _ranks({hit.memory.id: hit.score for hit in words.hits})
    meaning_rank = _ranks({c.memory_id: c.score for c in close})
    cosine = {c.memory_id: c.cosine for c in close}
    created = {c.memory_id: c.created_at for c in close}
    created.update((hit.memory.id, hit.memory.created_at) for hit in words.hits)
    first = 1.0 if words.last_resort else 0.0  # the scan's hits above every guess
    scores = {}
    for memory_id in created:
        score = 0.0
        if memory_id in word_rank:
            share = WORDS_SHARE * damp.get(memory_id, 1.0)
            score += first + share / (RRF_K + word_rank[memory_id])
        if memory_id in meaning_rank:
            score += (1 - WORDS_SHARE) / (RRF_K + meaning_rank[memory_id])
        scores[memory_id] = score
    ranked = sorted(scores, key=lambda m: (scores[m], created[m], m), reverse=True)
    page = ranked[offset : offset + limit]
    loaded = memory_rows.by_id(page)
    hits = []
    for memory_id in page:
        if memory_id not in loaded:  # deleted since
            continue
        found = by_words.get(memory_id)
        hit = found or Hit(loaded[memory_id], 0.0, SEMANTIC)
        hit.memory, hit.score, hit.similarity = (
            loaded[memory_id],
            scores[memory_id],
            cosine.get(memory_id),
        )
        hits.append(hit)
    return SearchResult(
        hits=hits,
        count=words.count + sum(1 for c in close if c.memory_id not in by_words),
        last_resort=words.last_resort,
        capped=words.capped,
    )


def _ranks(scores: dict[int, float]) -> dict[int, int]:
    """Each id's rank by score, best first, equal scores sharing the better rank (1, 2, 2, 4).

    Equal within TIE: a moment's difference in verified_at (two memories written one after
    the other) moves freshness in the ninth digit, which must not part memories that are
    otherwise alike.
    """
    ranks: dict[int, int] = {}
    ordered = sorted(scores.items(), key=lambda item: item[1], reverse=True)
    leader_id, leader_score = None, None
    for place, (memory_id, score) in enumerate(ordered, start=1):
        if leader_score is None or leader_score - score > TIE * abs(leader_score):
            leader_id, leader_score = memory_id, score
            ranks[memory_id] = place
        else:
            ranks[memory_id] = ranks[leader_id]
    return ranks
