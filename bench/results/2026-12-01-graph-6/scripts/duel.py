"""Two gunicorn servers on one store, main's code and this tree's, requests alternating:
server CPU per request (the workers' utime+stime) and wall medians. duel.py DATA COUNT PATH [N]"""
import os, sys, statistics, subprocess, time, json
from pathlib import Path
OLD, NEW = Path("/tmp/s6-graph/main-src"), Path(os.environ.get("NEWSRC", "/work/wt-s6-graph"))
data, count, path = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
n = int(sys.argv[4]) if len(sys.argv) > 4 else 40
prog = '''
import sys, json, time, os
sys.path.insert(0, "bench"); sys.path.insert(0, ".")
from pathlib import Path
import generate, run
url = os.environ.get("DBURL", "")
generate.ensure_store(%d, Path(%r), 1, url)
facts = run.prepare_store()
server = run.Server(int(sys.argv[1]), Path(%r), 2, url)
print(json.dumps({"token": facts["token"], "session": facts["session"]}), flush=True)
sys.stdin.readline()
server.stop()
''' % (count, str(data), str(data))
procs, tokens, servers = {}, {}, {}
for name, root, port in (("old", OLD, 8771), ("new", NEW, 8772)):
    p = subprocess.Popen([str(root / ".venv/bin/python"), "-c", prog, str(port)], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    tokens[name] = json.loads(p.stdout.readline()); procs[name] = (p, port)
sys.path.insert(0, str(NEW / "bench"))
import http.client
def workers(pid):
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [int(x) for x in out]
def gunicorn_pid(port):
    out = subprocess.run(["bash", "-c", f"ss -ltnp 'sport = :{port}'"], capture_output=True, text=True).stdout
    import re
    pids = {int(m) for m in re.findall(r"pid=(\d+)", out)}
    return pids
def cpu(pids):
    total = 0
    for pid in pids:
        f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        total += int(f[11]) + int(f[12])
    return total / os.sysconf("SC_CLK_TCK")
def get(port, headers):
    s = time.perf_counter()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("GET", path, headers=headers); r = c.getresponse(); body = r.read(); c.close()
    return r.status, body, (time.perf_counter() - s) * 1000
hdr = {name: ({"Host": "127.0.0.1", "Authorization": f"Bearer {t['token']}"} if path.startswith("/v1") else {"Host": "127.0.0.1", "Cookie": f"sessionid={t['session']}"}) for name, t in tokens.items()}
pids = {name: gunicorn_pid(port) for name, (p, port) in procs.items()}
bodies = {}
for name, (p, port) in procs.items():
    for _ in range(5): st, bodies[name], _ = get(port, hdr[name])
print("status", st, "same bytes", bodies["old"] == bodies["new"], len(bodies["new"]))
wall = {"old": [], "new": []}
start = {name: cpu(pids[name]) for name in procs}
for i in range(n):
    for name in (("old", "new") if i % 2 else ("new", "old")):
        wall[name].append(get(procs[name][1], hdr[name])[2])
used = {name: (cpu(pids[name]) - start[name]) * 1000 / n for name in procs}
for name in ("old", "new"):
    print(f"{name}: wall median {statistics.median(wall[name]):.2f} ms, server CPU {used[name]:.2f} ms/request")
print("load", os.getloadavg())
for p, _ in procs.values():
    p.stdin.write("\n"); p.stdin.flush(); p.wait()
