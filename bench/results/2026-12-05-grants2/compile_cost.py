"""What narrowing /v1's list to a grant's tiers costs in Python: the page's queryset built and
compiled with no tier condition, with `tier IN (0, 1)` as a lookup object on the column, and
as `tier__in`, in CPU microseconds (median of 2,000).

    .venv/bin/python bench/results/2026-12-05-grants2/compile_cost.py STORE_DIR
"""

import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(BENCH))

import generate  # noqa: E402


def cpu(fn, n: int = 2000) -> float:
    spent = []
    for _ in range(n):
        started = time.process_time()
        fn()
        spent.append((time.process_time() - started) * 1e6)
    return statistics.median(spent)


def main(store: str) -> None:
    generate.ensure_store(100000, Path(store), 1)
    from django.db.models.lookups import In

    from memories.models import LIST_FIELDS, Memory

    base = Memory.every.all()
    order = ("priority", "-created_at", "-id")
    tier = Memory._meta.get_field("tier")

    def compiled(queryset) -> str:
        page = queryset.order_by(*order).values_list(*LIST_FIELDS, named=True)[:51]
        return str(page.query.sql_with_params())

    def plain():
        compiled(base)

    def lookup():
        compiled(base.filter(In(tier.get_col(base.query.get_initial_alias()), (0, 1))))

    def keyword():
        compiled(base.filter(tier__in=(0, 1)))

    for _ in range(2):
        print(
            f"no filter {cpu(plain):.0f} us; In lookup {cpu(lookup):.0f} us; "
            f"tier__in {cpu(keyword):.0f} us"
        )


if __name__ == "__main__":
    main(sys.argv[1])
