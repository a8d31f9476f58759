"""Save the answers of the graph routes on a store copy: snap.py DATA_DIR OUT_DIR [COUNT]"""
import sys, os, hashlib
sys.path.insert(0, os.getcwd() + "/bench"); sys.path.insert(0, os.getcwd())
from pathlib import Path
import generate, run
data, out = Path(sys.argv[1]), Path(sys.argv[2]); out.mkdir(parents=True, exist_ok=True)
generate.ensure_store(int(sys.argv[3]) if len(sys.argv) > 3 else 100000, data, 1, os.environ.get("DBURL", ""))
from django.test import Client
from django.utils import timezone
import datetime as dt
from unittest import mock
facts = run.prepare_store()
fixed = dt.datetime(2026, 12, 1, 22, 0, tzinfo=dt.timezone.utc)
c = Client(HTTP_HOST="127.0.0.1")
api = {"HTTP_AUTHORIZATION": f"Bearer {facts['token']}"}
c.cookies["sessionid"] = facts["session"]
q = [
    "", "limit=1", "limit=10", "limit=100", "limit=1500", "limit=5000", "limit=10000",
    "project=webdev", "project=", "tag=infra", "load=inline", "unverified=90d", "expired=true",
    "expired=false", "referencing=" + facts["reference_target"], "project=data&limit=300",
    "tag=infra&limit=10000", "load=search&project=infra", "referencing=" + facts["cited"],
    "project=nosuch", "limit=0", "unverified=1000000d",
]
paths = [("v1-graph", "/v1/graph?"), ("page-data", "/graph/data/?")]
cited = f"/v1/memories/{facts['cited']}/graph?project={facts['cited_project']}"
with mock.patch("django.utils.timezone.now", return_value=fixed):
    for name, base in paths:
        for i, query in enumerate(q):
            r = c.get(base + query, **(api if name == "v1-graph" else {}))
            (out / f"{name}-{i:02d}.json").write_bytes(r.content)
            print(name, i, query, r.status_code, len(r.content), hashlib.sha1(r.content).hexdigest()[:10])
    for depth in (1, 2, 3):
        for limit in ("", "&limit=50"):
            for name, p in (("v1-around", cited), ("page-around", f"/graph/around/{facts['cited']}/data/?project={facts['cited_project']}")):
                r = c.get(p + f"&depth={depth}{limit}", **(api if name == "v1-around" else {}))
                (out / f"{name}-{depth}{limit[1:]}.json").write_bytes(r.content)
                print(name, depth, limit, r.status_code, len(r.content), hashlib.sha1(r.content).hexdigest()[:10])
    r = c.get("/graph/?view=table&limit=300"); (out / "table-300.html").write_bytes(r.content); print("table", r.status_code, len(r.content))
