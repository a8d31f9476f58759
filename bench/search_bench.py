"""Time search()'s first page against the bare FTS5 query it runs.

    python bench/search_bench.py                  # 100,000 memories (generated on first run)
    python bench/search_bench.py --memories 10000 --runs 31

For a common word, a rare word, a prefix (a partial word only the prefix sense answers) and
a CJK term, the median of `memories.reads.search.search()` returning its first page of 50 (Django,
the filters, the ranking, the count and loading the page's memories) is set against the
median of the statement it runs (`ranking_sql()`: the FTS5 MATCH or the text scan, ranked,
counted and joined to the page's rows), run on the same file through sqlite3 without Django:
the gap between the two is Python (Django's cursor, building the page's model instances).
Target: every median ratio (search / statement) under 4.

For scale the table also gives `match`: a MATCH alone, ranked by BM25 for the first page of
rowids, or for the CJK term the bounded text scan of ids, and search()'s ratio to it. For a
rare word that query takes a few hundredths of a millisecond, so the ratio to it measures
Python's fixed cost of a call rather than the search. Runs alternate between the three so
that a busy machine slows them alike; `(min)` is the ratio of the fastest runs.

`differ` counts the first page's hits that differ (by place) from the page ranking every
match gives (`memories.engine.ranking.EXHAUSTIVE` in place of the bounded candidates): 0
wherever the bound holds or the statement fell back to ranking every match.
"""

import argparse
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402  (sets Django up on the generated store)

TARGET_RATIO = 4.0
PAGE = 50


def match_query(query: str, store: Path) -> tuple[str, list, str]:
    """The FTS5 MATCH alone (or the text scan) for this query, its parameters, and what it is."""
    from memories.engine.sqlite import search as sqlite_search
    from memories.reads import search

    parsed = search.parse(query)
    fts = (
        f"SELECT rowid, {sqlite_search.bm25(search.FORMULA)} AS rank FROM memories_fts"
        f" WHERE memories_fts MATCH ? ORDER BY rank LIMIT {PAGE}"
    )
    if parsed.words and not parsed.terms:
        words = sqlite_search.word_expression(parsed.words)
        with sqlite3.connect(store) as con:
            found = con.execute(
                "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?", (words,)
            ).fetchone()[0]
        if found:
            return fts, [words], "FTS5 MATCH, BM25, first page"
        return (
            fts,
            [sqlite_search.prefix_expression(parsed.words)],
            "FTS5 prefix MATCH, BM25, first page",
        )
    pattern = sqlite_search.like_pattern(parsed.terms[0].text)
    scan = (
        "SELECT id FROM memories_memory WHERE (name LIKE ? ESCAPE '\\'"
        " OR description LIKE ? ESCAPE '\\' OR body LIKE ? ESCAPE '\\')"
        f" ORDER BY id DESC LIMIT {search.SCAN_LIMIT}"
    )
    return scan, [pattern] * 3, "text scan (LIKE), newest first, bounded"


def first_page_difference(query: str) -> int:
    """Hits of the first page that differ, by place, from the exhaustive ranking's."""
    from django.utils import timezone

    from memories.engine.ranking import EXHAUSTIVE
    from memories.reads import search
    from memories.reads.filters import MemoryFilters

    now = timezone.now()
    bounded = search.search([query], MemoryFilters(), limit=PAGE, now=now).hits
    candidates, search.CANDIDATES = search.CANDIDATES, EXHAUSTIVE
    try:
        exhaustive = search.search([query], MemoryFilters(), limit=PAGE, now=now).hits
    finally:
        search.CANDIDATES = candidates
    moved = sum(a.memory.id != b.memory.id for a, b in zip(bounded, exhaustive, strict=False))
    return moved + abs(len(bounded) - len(exhaustive))


def measure(query: str, runs: int, store: Path) -> dict:
    from django.conf import settings

    from memories.reads.filters import MemoryFilters
    from memories.reads.search import ranking_sql, search

    sql, params, what = match_query(query, store)
    con = sqlite3.connect(store)
    # The same pragmas (page cache, memory-mapped reads) the app's connections run with.
    con.executescript(settings.DATABASES["default"]["OPTIONS"]["init_command"])
    filters = MemoryFilters()
    statement, statement_params = ranking_sql([query], filters, limit=PAGE)
    statement = statement.replace("%s", "?")
    for _ in range(3):  # warm the page cache and both connections
        con.execute(sql, params).fetchall()
        result = search([query], filters, limit=PAGE)
    bare_times, statement_times, search_times = [], [], []
    for _ in range(runs):
        started = time.perf_counter()
        con.execute(sql, params).fetchall()
        bare_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        con.execute(statement, statement_params).fetchall()
        statement_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        result = search([query], filters, limit=PAGE)
        search_times.append(time.perf_counter() - started)
    con.close()
    statement_median = statistics.median(statement_times)
    searched = statistics.median(search_times)
    senses = sorted({hit.matched_by for hit in result.hits})
    return {
        "query": query,
        "match": statistics.median(bare_times) * 1000,
        "statement": statement_median * 1000,
        "search": searched * 1000,
        "ratio": searched / statement_median,
        "min_ratio": min(search_times) / min(statement_times),
        "match_ratio": searched / statistics.median(bare_times),
        "count": result.count,
        "senses": ",".join(senses) or "-",
        "what": what,
        "differ": first_page_difference(query),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--data-dir", type=Path)
    options = parser.parse_args()
    path = generate.ensure_store(options.memories, options.data_dir)

    cases = [
        ("common word", generate.COMMON_WORD),
        ("rare word", generate.RARE_WORD),
        ("prefix", generate.PREFIX_WORD + "ab"),
        ("CJK term", generate.CJK_TERM),
    ]
    print(f"search() first page ({PAGE}) vs the statement it runs, {options.memories} memories,")
    print(f"median of {options.runs} alternating runs, {path}\n")
    header = f"{'case':<12} {'query':<9} {'hits':>6} {'sense':<10} {'stmt ms':>8} "
    header += f"{'search ms':>9} {'ratio':>6} {'(min)':>6} {'match ms':>9} {'/match':>7}"
    header += f" {'differ':>6}"
    print(header + "  match")
    worst = 0.0
    for label, query in cases:
        row = measure(query, options.runs, path)
        worst = max(worst, row["ratio"])
        print(
            f"{label:<12} {query:<9} {row['count']:>6} {row['senses']:<10} "
            f"{row['statement']:>8.2f} {row['search']:>9.2f} {row['ratio']:>5.2f}x "
            f"{row['min_ratio']:>5.2f}x {row['match']:>9.2f} {row['match_ratio']:>6.2f}x"
            f" {row['differ']:>6}"
            f"  {row['what']}"
        )
    verdict = "under" if worst < TARGET_RATIO else "OVER"
    print(f"\nworst ratio {worst:.2f}x: {verdict} the {TARGET_RATIO:.0f}x target")
    return 0 if worst < TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
