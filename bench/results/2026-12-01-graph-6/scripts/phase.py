import sys, os, time, statistics
sys.path.insert(0, "/work/wt-s6-graph/bench"); sys.path.insert(0, "/work/wt-s6-graph")
from pathlib import Path
import generate
generate.ensure_store(int(sys.argv[2]), Path(sys.argv[1]), 1, os.environ.get("DBURL", ""))
from memories.reads import graph as g
from memadmin.web.responses import plain_json
from django.utils import timezone
import gc
T = {}
def tick(name, f, *a):
    s = time.process_time(); r = f(*a); T.setdefault(name, []).append((time.process_time() - s) * 1000); return r
for i in range(25):
    now = timezone.now()
    rows, scoped, whole = tick("links", g._newest_links, None, now, 1500)
    w = tick("wiring", g._Wiring, rows)
    roots = tick("roots", g._roots, w.degrees, w.edges)
    comps = tick("components", g._components, roots)
    comp = comps[0]
    hub = w.hub(comp)
    kept = tick("best_first", w.best_first, hub, 1500)
    graph = tick("graph()", lambda: w.graph(kept, now, [kept], cap=1500))
    d = tick("to_dict", graph.to_dict)
    tick("ujson", plain_json, d)
    tick("memories sql", g._memories, [n for n in kept if n > 0], now)
for k, v in T.items(): print(f"{k:14} {statistics.median(v):6.2f} ms")
print(os.getloadavg())
