"""The overview's dangling figures against a recount of the dangling tally (the old statement)."""
import os, sys, time
import django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
django.setup()
from django.db import connection
from memories.reads import overview, hygiene, graph
from memories.reads.filters import MemoryFilters
t = time.perf_counter(); o = overview.overview(); t1 = time.perf_counter() - t
with connection.cursor() as c:
    c.execute("SELECT count(*), sum(n) FROM (SELECT target, sum(refs) n FROM memories_danglingtally GROUP BY target) x")
    targets, refs = c.fetchone()
    c.execute("SELECT target, sum(refs) n FROM memories_danglingtally GROUP BY target ORDER BY n DESC, target LIMIT 10")
    top = [tuple(r) for r in c.fetchall()]
print("overview", round(t1*1000,1), "ms;", o.dangling_target_count, o.dangling_references, "recount", targets, refs, "same:", (o.dangling_target_count, o.dangling_references) == (targets, refs) and [tuple(x) for x in o.dangling_targets] == top)
for scope in (None, MemoryFilters(project="webdev")):
    t = time.perf_counter(); tallied = hygiene.dangling(scope); a = time.perf_counter() - t
    t = time.perf_counter(); resolved = hygiene._dangling(graph.links(scope), 50, 0); b = time.perf_counter() - t
    print("hygiene dangling", "store" if scope is None else "webdev", "tally", round(a*1000,1), "ms; resolved", round(b*1000,1), "ms; same:", tallied.to_dict() == resolved.to_dict(), tallied.count)
