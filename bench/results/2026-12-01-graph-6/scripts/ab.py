"""A/B in one process: main's graph module against this tree's, alternating. ab.py DATA COUNT [cap] [query]"""
import sys, os, time, json, statistics, importlib.util
sys.path.insert(0, "/work/wt-s6-graph/bench"); sys.path.insert(0, "/work/wt-s6-graph")
from pathlib import Path
import generate
generate.ensure_store(int(sys.argv[2]), Path(sys.argv[1]), 1, os.environ.get("DBURL", ""))
from memories.reads import graph as new
spec = importlib.util.spec_from_file_location("old_graph", "/tmp/s6-graph/main-src/memories/reads/graph.py")
old = importlib.util.module_from_spec(spec); spec.loader.exec_module(old)
from django.core.serializers.json import DjangoJSONEncoder
cap = int(sys.argv[3]) if len(sys.argv) > 3 else 1500
def run(mod, encode):
    g = mod.store_graph(cap=cap)
    return encode(g)
def enc_old(g): return json.dumps(g.to_dict(), cls=DjangoJSONEncoder, ensure_ascii=False).encode()
from memadmin.web.responses import plain_json
def enc_new(g): return plain_json(g.to_dict()).content
a, b = run(old, enc_old), run(new, enc_new)
print("same bytes", a == b, len(a))
ts = {"old": [], "new": []}
for i in range(int(os.environ.get("N", 30))):
    for name, mod, enc in (("old", old, enc_old), ("new", new, enc_new)) if i % 2 else (("new", new, enc_new), ("old", old, enc_old)):
        s = time.process_time(); run(mod, enc); ts[name].append((time.process_time() - s) * 1000)
for k, v in ts.items():
    print(f"{k}: median {statistics.median(v):.2f} ms  min {min(v):.2f}")
print("load", os.getloadavg())
