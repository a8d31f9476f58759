import sys, time, statistics
sys.path.insert(0, "bench")
import generate
from pathlib import Path
generate.ensure_store(100000, Path("/tmp/grants-bench/store"), 1)
from django.test import Client
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
cl = {}
for name in ("bench-whole", "bench-project"):
    c = Client(HTTP_HOST="127.0.0.1"); c.force_login(User.objects.get(username=name)); cl[name]=c
    with CaptureQueriesContext(connection) as q:
        c.get("/memories/_facets/")
    cl[name+"sql"] = q.captured_queries[-1]["sql"]
res = {n: [] for n in ("bench-whole","bench-project")}
sqlres = {n: [] for n in ("bench-whole","bench-project")}
for i in range(40):
    for n in res:
        t=time.process_time(); cl[n].get("/memories/_facets/"); res[n].append((time.process_time()-t)*1000)
        with connection.cursor() as cur:
            t=time.process_time(); cur.execute(cl[n+"sql"]); cur.fetchall(); sqlres[n].append((time.process_time()-t)*1000)
for n in res: print(n, "request cpu", round(statistics.median(res[n]),2), "batch sql cpu", round(statistics.median(sqlres[n]),2))
