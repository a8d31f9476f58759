"""Whether a bounded set of candidates keeps a common word's first page: the exact ranking
(every match scored, as the search statement does) against the best page among only the K
matches of highest weight (importance × freshness), for several K.

    .venv/bin/python bench/bounded_candidates.py --data-dir /work/stores/v2/1000000-1

Reads a generated SQLite store (read-only). Every match's relevance and weight are computed
here from FTS5's bm25() and the formula of memories.reads.search; the exact page so made is
first checked against the page the search statement itself returns.
"""

import argparse
import datetime as dt
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402

PAGE = 50
SIZES = (2_000, 5_000, 10_000, 20_000)


def _scored(store: Path, word: str, now: dt.datetime, formula, half_life: float) -> list:
    """(score, created_at, id, weight, relevance) of every match of `word`."""
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    rows = con.execute(
        "SELECT f.rowid, -bm25(memories_fts, ?, ?, ?), m.priority, m.read_count,"
        " m.verified_at, m.created_at,"
        " f.rowid IN (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?),"
        " f.rowid IN (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?)"
        " FROM memories_fts AS f JOIN memories_memory AS m ON m.id = f.rowid"
        " WHERE memories_fts MATCH ?",
        (
            formula.name_weight,
            formula.description_weight,
            formula.body_weight,
            f'name : ("{word}")',
            f'description : ("{word}")',
            f'"{word}"',
        ),
    ).fetchall()
    scored = []
    for memory_id, r, priority, reads, verified, created, in_name, in_description in rows:
        if in_name:
            placement = formula.name_placement
        elif in_description:
            placement = formula.description_placement
        else:
            placement = formula.body_placement
        relevance = r / (1 + r) * placement
        verified_at = dt.datetime.fromisoformat(verified).replace(tzinfo=dt.UTC)
        weight = formula.weight(priority, reads, verified_at, now, half_life)
        scored.append((relevance * weight, created, memory_id, weight, relevance))
    return scored


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--word", default="service")
    options = parser.parse_args()
    store = options.data_dir / "memadmin.sqlite3"
    generate.setup_django(options.data_dir)
    from django.conf import settings
    from django.db import connection

    from memories.reads.filters import MemoryFilters
    from memories.reads.search import FORMULA, ranking_sql

    now = dt.datetime.now(dt.UTC)
    half_life = float(settings.MEMADMIN_SEARCH_HALF_LIFE_DAYS)
    scored = _scored(store, options.word, now, FORMULA, half_life)
    exact = sorted(scored, reverse=True)[:PAGE]
    exact_ids = [row[2] for row in exact]
    sql, params = ranking_sql([options.word], MemoryFilters(), limit=PAGE, now=now)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        statement_ids = [row[5] for row in cursor.fetchall()]
    print(f"{store}: {len(scored)} matches of {options.word!r}")
    print(f"  the exact page made here is the search statement's: {exact_ids == statement_ids}")
    weights = [row[3] for row in exact]
    relevances = [row[4] for row in exact]
    heaviest = max(row[3] for row in scored)
    print(
        f"  its weights {min(weights):.3f}-{max(weights):.3f}, relevance"
        f" {min(relevances):.4f}-{max(relevances):.4f};"
        f" {sum(row[3] == heaviest for row in scored)} matches weigh {heaviest:.3f}"
    )
    by_weight = sorted(scored, key=lambda row: (row[3], row[1], row[2]), reverse=True)
    for size in SIZES:
        page = [row[2] for row in sorted(by_weight[:size], reverse=True)[:PAGE]]
        kept = len(set(page) & set(exact_ids))
        print(
            f"  the {size:,} heaviest matches ranked exactly: {kept}/{PAGE} of the exact"
            f" page, in its order: {page == exact_ids}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
