import sys, time, statistics
sys.path.insert(0, "bench")
import generate
from pathlib import Path
generate.ensure_store(100000, Path("/tmp/grants-bench/store"), 1)
from django.test import Client
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from memadmin.accounts import tokens
cl = {}
for name in ("bench-whole", "bench-project"):
    u = User.objects.get(username=name)
    tok = tokens.create_token(u, "read", "probe")[1]
    c = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {tok}"); cl[name]=c
    c.get("/v1/memories")
    with CaptureQueriesContext(connection) as q:
        c.get("/v1/memories")
    print(name, len(q.captured_queries))
    for x in q.captured_queries: print("   ", x["sql"][:400])
    cl[name+"sql"] = [x["sql"] for x in q.captured_queries]
res = {n: [] for n in ("bench-whole","bench-project")}
sq = {n: [[] for _ in cl[n+"sql"]] for n in res}
for i in range(40):
    for n in res:
        t=time.process_time(); cl[n].get("/v1/memories"); res[n].append((time.process_time()-t)*1000)
        for k, s in enumerate(cl[n+"sql"]):
            if s.startswith("SELECT") and "%s" not in s:
                with connection.cursor() as cur:
                    t=time.process_time(); cur.execute(s); cur.fetchall(); sq[n][k].append((time.process_time()-t)*1000)
for n in res: print(n, "request cpu", round(statistics.median(res[n]),2), [round(statistics.median(x),2) if x else None for x in sq[n]])
