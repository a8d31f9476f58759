"""Where a request's CPU time goes, for the whole store's admin and one project's operator
(bench/grants_bench.py's principals) in turns: each function named is wrapped to add up its
inclusive CPU time per request; medians of --requests requests, and the grant's difference.

    .venv/bin/python bench/results/2026-12-05-grants3/phases.py --data-dir STORE \
        --path /v1/memories --requests 400

Run it from the checkout to measure (its bench/ and code). The wrappers cost a little each:
compare the principals, not these figures with grants_bench's.
"""

import argparse
import collections
import functools
import importlib
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path.cwd() / "bench"))

import generate  # noqa: E402
import grants_bench  # noqa: E402

# module: attribute path (every name here is on main and on the branch)
TIMED = [
    ("memadmin.api.memories", "find.find"),
    ("memories.reads.listing", "_filtered"),
    ("memories.reads.listing", "tallies.count"),
    ("memories.reads.listing", "pagination.page"),
    ("memories.reads.find", "listing.page_memories"),
    ("memadmin.pages.memories.listing", "listing_context"),
    ("django.db.models.sql.compiler", "SQLCompiler.as_sql"),
    ("django.db.models.sql.compiler", "SQLCompiler.execute_sql"),
]

spent: dict[str, float] = collections.defaultdict(float)


def _wrap(module_name: str, attribute: str) -> str:
    owner = importlib.import_module(module_name)
    *path, name = attribute.split(".")
    for part in path:
        owner = getattr(owner, part)
    function = getattr(owner, name)
    label = attribute

    @functools.wraps(function)
    def timed(*args, **kwargs):
        started = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label] += time.process_time() - started

    setattr(owner, name, timed)
    return label


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--path", default="/v1/memories")
    parser.add_argument("--htmx", action="store_true")
    parser.add_argument("--requests", type=int, default=400)
    options = parser.parse_args()
    generate.ensure_store(100_000, options.data_dir, 1)
    principals = grants_bench._principals()
    labels = [_wrap(module, attribute) for module, attribute in TIMED]
    per = {name: collections.defaultdict(list) for name in principals}
    for number in range(options.requests + 5):
        for name, (client, token) in principals.items():
            headers = {"HTTP_HX_REQUEST": "true"} if options.htmx else {}
            if options.path.startswith("/v1"):
                headers["HTTP_AUTHORIZATION"] = f"Bearer {token}"
            spent.clear()
            started = time.process_time()
            response = client.get(options.path, **headers)
            request = time.process_time() - started
            assert response.status_code == 200, response.status_code
            if number >= 5:
                per[name]["request"].append(request)
                for label in labels:
                    per[name][label].append(spent.get(label, 0.0))
    names = list(principals)
    route = options.path + (" (htmx)" if options.htmx else "")
    print(f"{route}: CPU µs, median; " + " / ".join(names))
    for label in ["request", *labels]:
        medians = [statistics.median(per[name][label]) * 1e6 for name in names]
        print(f"{label:30} {medians[0]:8.1f} {medians[1]:8.1f} {medians[1] - medians[0]:+8.1f}")
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
