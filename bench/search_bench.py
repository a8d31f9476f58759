"""Time search()'s first page against the bare query it is built on.

    python bench/search_bench.py                  # 100,000 memories (generated on first run)
    python bench/search_bench.py --memories 10000 --runs 31

For a common word, a rare word, a prefix (a partial word only the prefix sense answers) and
a CJK term, the median of `memories.search.search()` returning its first page of 50 (Django,
the filters, the ranking, the count and loading the page's memories) is set against the
median of the bare query it runs on the same file through sqlite3 without Django: the FTS5
MATCH ranked by BM25 for the first page, or for the CJK term the text scan. `stmt` is
search()'s own statement run the same way, so the gap between it and `search` is Python
(Django's cursor, building the page's model instances). Runs alternate between the three
so that a busy machine slows them alike; `(min)` is the ratio of the fastest runs, steadier
on a loaded machine. Target: every median ratio (search / bare) under 4.
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


def bare_query(query: str, store: Path) -> tuple[str, list, str]:
    """The SQL search() is built on for this query, its parameters, and what it is."""
    from memories import search

    parsed = search.parse(query)
    fts = (
        f"SELECT rowid, {search.BM25} AS rank FROM memories_fts WHERE memories_fts MATCH ?"
        f" ORDER BY rank LIMIT {PAGE}"
    )
    if parsed.words and not parsed.terms:
        words = search.word_expression(parsed.words)
        with sqlite3.connect(store) as con:
            found = con.execute(
                "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?", (words,)
            ).fetchone()[0]
        if found:
            return fts, [words], "FTS5 MATCH, BM25, first page"
        return fts, [search.prefix_expression(parsed.words)], "FTS5 prefix MATCH, BM25, first page"
    pattern = search.like_pattern(parsed.terms[0].text)
    scan = (
        "SELECT id FROM memories_memory WHERE (name LIKE ? ESCAPE '\\'"
        " OR description LIKE ? ESCAPE '\\' OR body LIKE ? ESCAPE '\\')"
        f" ORDER BY id DESC LIMIT {search.SCAN_LIMIT}"
    )
    return scan, [pattern] * 3, "text scan (LIKE), newest first, bounded"


def measure(query: str, runs: int, store: Path) -> dict:
    from django.conf import settings

    from memories.filters import MemoryFilters
    from memories.search import ranking_sql, search

    sql, params, what = bare_query(query, store)
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
    bare, searched = statistics.median(bare_times), statistics.median(search_times)
    senses = sorted({hit.matched_by for hit in result.hits})
    return {
        "query": query,
        "bare": bare * 1000,
        "statement": statistics.median(statement_times) * 1000,
        "search": searched * 1000,
        "ratio": searched / bare,
        "min_ratio": min(search_times) / min(bare_times),
        "count": result.count,
        "senses": ",".join(senses) or "-",
        "what": what,
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
    print(f"search() first page ({PAGE}) vs its bare query, {options.memories} memories,")
    print(f"median of {options.runs} alternating runs, {path}\n")
    header = f"{'case':<12} {'query':<9} {'hits':>6} {'sense':<10} {'bare ms':>8} "
    print(header + f"{'stmt ms':>8} {'search ms':>9} {'ratio':>6} {'(min)':>6}  bare query")
    worst = 0.0
    for label, query in cases:
        row = measure(query, options.runs, path)
        worst = max(worst, row["ratio"])
        print(
            f"{label:<12} {query:<9} {row['count']:>6} {row['senses']:<10} {row['bare']:>8.2f} "
            f"{row['statement']:>8.2f} {row['search']:>9.2f} {row['ratio']:>5.2f}x "
            f"{row['min_ratio']:>5.2f}x  {row['what']}"
        )
    verdict = "under" if worst < TARGET_RATIO else "OVER"
    print(f"\nworst ratio {worst:.2f}x: {verdict} the {TARGET_RATIO:.0f}x target")
    return 0 if worst < TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
