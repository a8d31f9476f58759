"""In-process medians of the list page's context and its facets on one store, for before/after."""
import os, sys, time, statistics
from pathlib import Path
root = Path.cwd()
sys.path.insert(0, str(root / "bench")); sys.path.insert(0, str(root))
import generate
generate.setup_django(Path(sys.argv[1]))
from django.http import QueryDict
from django.utils import timezone
from memadmin.pages.memories.listing import listing_context
from memories.reads import facets
from memadmin.pages.memories.forms import MemoryListForm
QUERIES = ["", "project=webdev", "expired=true", "unverified=90d", "referencing=docs/runbook.md", "tag=infra", "load=inline", "q=deploy&mode=words", "format=csv"]
out = {}
for q in QUERIES:
    if q == "format=csv": continue
    times = []
    for _ in range(25):
        t = time.perf_counter(); ctx = listing_context(QueryDict(q)); len(ctx.get("rows") or []); times.append(time.perf_counter() - t)
    out["list " + (q or "none")] = statistics.median(times) * 1000
    form = MemoryListForm(QueryDict(q)); form.is_valid()
    times = []
    for _ in range(15):
        t = time.perf_counter(); facets.facets(form.filters(), timezone.now()); times.append(time.perf_counter() - t)
    out["facets " + (q or "none")] = statistics.median(times) * 1000
for k, v in out.items(): print(f"{k}\t{v:.2f}")
