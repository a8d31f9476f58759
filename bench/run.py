"""The benchmark: every page and API route under gunicorn, against the bare SQL it runs.

    .venv/bin/python bench/run.py --memories 100000
    .venv/bin/python bench/run.py --memories 10000 --requests 60 --seconds 4
    .venv/bin/python bench/run.py --engine postgres --database-url postgres://u@host:port/db

With `--engine postgres` the store is that PostgreSQL database (filled once, like the
file), the server runs on it, and the bare SQL goes through psycopg alone (a client-side
binding cursor, as Django's), its plans from EXPLAIN.

One command: builds (or reuses) a generated store of N memories (bench/generate.py), starts
the production server on it (gunicorn, 2 sync workers, 127.0.0.1, the settings' CONN_MAX_AGE)
and, for each route,

* captures the SQL one request runs (in process, through a Django execute wrapper on the
  same store) and the `EXPLAIN QUERY PLAN` of each statement, flagging every full scan of
  `memories_memory`;
* alternates requests to the server with runs of that SQL through the sqlite3 module on the
  same file (no Django), so a busy machine slows both alike, until the route has
  --requests requests or --seconds of them; the median and p95 of each;
* checks the target: the route's median at most 3 x its bare SQL's median plus 5 ms.

Then 8 clients on `/v1/memories` at once for --rps-seconds give requests per second.
Results go to bench/out/<timestamp>.json and .md (the table is also printed). The exit
status is 1 when a route misses its target or a plan scans the whole memories table where
an index could serve it; a substring search's text scan (LIKE '%...%', which no index
serves) is shown as a text scan and does not fail the run.
"""

import argparse
import datetime as dt
import http.client
import json
import math
import os
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402

ROOT = generate.ROOT
OUT = ROOT / "bench" / "out"
RATIO_TARGET = 3.0
OVERHEAD_MS = 5.0
USER = "bench"
# Django's SQLite cursor turns the format placeholders into qmarks the same way.
FORMAT_QMARK = re.compile(r"(?<!%)%s")
FULL_SCAN = re.compile(r"Seq Scan on memories_memory\b")


@dataclass
class Route:
    label: str
    path: str
    api: bool = False
    htmx: bool = False


@dataclass
class Statement:
    sql: str
    params: list
    plan: list[str]
    full_scans: list[str]
    text_scans: list[str]  # a substring search's scan: no index can serve LIKE '%...%'
    median_ms: float = 0.0


@dataclass
class Result:
    label: str
    path: str
    bytes: int
    requests: int
    median_ms: float
    p95_ms: float
    bare_median_ms: float
    bare_p95_ms: float
    ratio: float
    target_ms: float
    meets: bool
    statements: list[Statement] = field(default_factory=list)
    skipped_statements: list[str] = field(default_factory=list)

    @property
    def main(self) -> Statement | None:
        """The slowest statement reading memories (sign-in's own lookups aside)."""
        reading = [s for s in self.statements if "memories_" in s.sql] or self.statements
        return max(reading, key=lambda s: s.median_ms, default=None)

    @property
    def full_scans(self) -> list[str]:
        return [scan for s in self.statements for scan in s.full_scans]

    @property
    def text_scans(self) -> list[str]:
        return [scan for s in self.statements for scan in s.text_scans]


def percentile_95(samples: list[float]) -> float:
    if len(samples) < 20:
        return max(samples)
    return statistics.quantiles(samples, n=20)[18]


# ---------------------------------------------------------------------------- the store


def prepare_store() -> dict:
    """Static files, a signed-in admin and an API token on the configured store; the names
    the routes use (a busy project, a much-cited memory, a reference target)."""
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from memadmin.accounts import roles, tokens
    from memories.models import Memory

    call_command("collectstatic", interactive=False, verbosity=0)
    user, _ = User.objects.get_or_create(username=USER)
    user.groups.add(Group.objects.get(name=roles.ADMIN))
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    session = client.cookies["sessionid"].value
    token = tokens.create_token(user, "read", "benchmark")[1]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT r.target FROM memories_reference r "
            "WHERE EXISTS (SELECT 1 FROM memories_memory m WHERE m.name = r.target) "
            "GROUP BY r.target ORDER BY count(*) DESC, r.target LIMIT 1"
        )
        cited_name = cursor.fetchone()[0]
        cursor.execute(
            "SELECT target FROM memories_reference WHERE target LIKE 'https://%' "
            "GROUP BY target ORDER BY count(*) DESC, target LIMIT 1"
        )
        url_target = cursor.fetchone()[0]
    cited = Memory.objects.select_related("project").get(name=cited_name)
    return {
        "session": session,
        "token": token,
        "project": generate.PROJECTS[0],
        "cited": cited.name,
        "cited_project": cited.project_name or "",
        "reference_target": url_target,
    }


def routes(facts: dict) -> list[Route]:
    filters = [
        ("none", {}),
        ("project", {"project": facts["project"]}),
        ("expired", {"expired": "true"}),
        ("unverified", {"unverified": "90d"}),
        ("referencing", {"referencing": facts["reference_target"]}),
        ("tag", {"tag": "infra"}),
        ("load", {"load": "inline"}),
    ]
    found = []
    for label, query in filters:
        path = "/memories/" + ("?" + urlencode(query) if query else "")
        found.append(Route(f"list, {label}", path))
        found.append(Route(f"list, {label} (htmx)", path, htmx=True))
    searches = [
        ("common word", generate.COMMON_WORD),
        ("rare word", generate.RARE_WORD),
        ("prefix", generate.PREFIX_WORD + "ab"),
        ("CJK", generate.CJK_TERM),
    ]
    for label, query in searches:
        found.append(Route(f"search page, {label}", "/memories/?" + urlencode({"q": query})))
    for label, query in searches:
        found.append(Route(f"/v1 search, {label}", "/v1/memories?" + urlencode({"q": query}), True))
    tier = urlencode({"project": facts["cited_project"]})
    found += [
        Route("overview page", "/"),
        Route("hygiene, dangling targets", "/hygiene/dangling/"),
        Route("/v1 hygiene, dangling targets", "/v1/hygiene?section=dangling", True),
        Route("hygiene, orphans", "/hygiene/orphans/"),
        Route("hygiene, unverified", "/hygiene/unverified/"),
        Route("hygiene, duplicates", "/hygiene/duplicates/"),
        Route("hygiene, shadows", "/hygiene/shadows/"),
        Route("hygiene page (every section)", "/hygiene/"),
        Route("/v1 hygiene (every section)", "/v1/hygiene", True),
        Route("hygiene page, a tag", "/hygiene/?tag=infra"),
        Route("/v1 hygiene, a tag", "/v1/hygiene?tag=infra", True),
        Route("hygiene, dangling targets of a load", "/hygiene/dangling/?load=index"),
        Route("memory detail", f"/memories/{facts['cited']}/?{tier}"),
        Route("tier view", "/memories/_agent/?" + urlencode({"project": facts["project"]})),
        Route("budget report page", "/budget/"),
        Route("budget report (/v1/budget)", "/v1/budget", True),
        Route("graph JSON (/v1/graph)", "/v1/graph", True),
        Route(
            "graph JSON, a project", "/v1/graph?" + urlencode({"project": facts["project"]}), True
        ),
        Route("graph JSON, a tag", "/v1/graph?tag=infra", True),
        Route("graph JSON, unverified", "/v1/graph?unverified=90d", True),
        Route("a memory's graph JSON", f"/v1/memories/{facts['cited']}/graph?{tier}", True),
        Route("/v1 list", "/v1/memories", True),
        Route("/v1 get", f"/v1/memories/{facts['cited']}?{tier}", True),
    ]
    return found


def _without_password(url: str) -> str:
    """A database URL fit to print: its password, if any, left out."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", "@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def request_headers(route: Route, facts: dict) -> dict:
    headers = {"Host": "127.0.0.1"}
    if route.api:
        headers["Authorization"] = f"Bearer {facts['token']}"
    else:
        headers["Cookie"] = f"sessionid={facts['session']}"
    if route.htmx:
        headers["HX-Request"] = "true"
    return headers


# ------------------------------------------------------------------------ the bare SQL


def capture(route: Route, facts: dict, driver) -> tuple[list[tuple[str, list]], int]:
    """The statements one request of the route runs, as the bare driver takes them; the
    body size."""
    from django.db import connection
    from django.test import Client

    statements = []

    def record(execute, sql, params, many, context):
        if params is None:
            statements.append((sql, []))
        elif isinstance(params, list | tuple) and not many:
            statements.append((driver.placeholders(sql), list(params)))
        else:
            raise SystemExit(f"{route.label}: a statement the benchmark cannot replay: {sql}")
        return execute(sql, params, many, context)

    client = Client()
    headers = {k: v for k, v in request_headers(route, facts).items() if k != "Cookie"}
    client.cookies["sessionid"] = facts["session"]
    with connection.execute_wrapper(record):
        response = client.get(route.path, headers=headers)
    if response.status_code != 200:
        raise SystemExit(f"{route.label}: {route.path} answered {response.status_code}")
    return statements, len(response.content)


def table_aliases(sql: str) -> set[str]:
    aliases = {"memories_memory"}
    for match in re.finditer(r'"?memories_memory"?\s+(?:AS\s+)?"?(\w+)"?', sql, re.I):
        if match.group(1).upper() not in {"WHERE", "ON", "LEFT", "JOIN", "INNER", "ORDER"}:
            aliases.add(match.group(1))
    return aliases


def _substring(sql: str, params: list) -> bool:
    """Whether the statement looks for a substring (a LIKE pattern starting with %)."""
    return " LIKE " in sql.upper() and any(isinstance(p, str) and p.startswith("%") for p in params)


class BareSQLite:
    """The store's file through the sqlite3 module, with the app's connection settings."""

    engine = "sqlite"

    def __init__(self, store: Path, settings_dict: dict):
        self.con = sqlite3.connect(store)
        # The connection settings the app's connections get (memory-mapped reads among them).
        self.con.executescript(settings_dict["OPTIONS"].get("init_command", ""))
        self.version = sqlite3.sqlite_version

    def placeholders(self, sql: str) -> str:
        return FORMAT_QMARK.sub("?", sql).replace("%%", "%")

    def plan(self, sql: str, params: list) -> tuple[list[str], list[str], list[str]]:
        """EXPLAIN QUERY PLAN, one indented line per step, and the steps that read every row
        of memories_memory without an index: as full scans, or as text scans when the
        statement looks for a substring, which no index can serve."""
        rows = self.con.execute("EXPLAIN QUERY PLAN " + sql, params).fetchall()
        depth = {0: -1}
        lines = []
        for node, parent, _, detail in rows:
            depth[node] = depth.get(parent, -1) + 1
            lines.append("  " * depth[node] + detail)
        aliases = table_aliases(sql)
        scans = []
        for _, _, _, detail in rows:
            match = re.match(r"SCAN (\w+)(.*)", detail)
            if match and match.group(1) in aliases and "INDEX" not in match.group(2):
                scans.append(detail)
        return (lines, [], scans) if _substring(sql, params) else (lines, scans, [])

    def run(self, statement) -> None:
        self.con.execute(statement.sql, statement.params).fetchall()

    def close(self) -> None:
        self.con.close()


class BarePostgres:
    """The store's database through psycopg alone: a client-side binding cursor, as Django's
    connections use, and autocommit, as Django's reads outside a transaction."""

    engine = "postgresql"

    def __init__(self, url: str, settings_dict: dict):
        import psycopg

        # The connection settings the app's connections get (the planner's among them).
        options = settings_dict["OPTIONS"].get("options", "")
        self.con = psycopg.connect(
            url, autocommit=True, cursor_factory=psycopg.ClientCursor, options=options
        )
        self.version = self.con.execute("SHOW server_version").fetchone()[0]

    def placeholders(self, sql: str) -> str:
        return sql

    def plan(self, sql: str, params: list) -> tuple[list[str], list[str], list[str]]:
        """EXPLAIN, and the sequential scans of memories_memory (text scans when the
        statement looks for a substring)."""
        before, main, after = settings_around(sql)
        lines = [row[0] for row in self._rows(before + "EXPLAIN " + main + after, params)]
        # The memories table's own scans: not memories_memoryvector's, which a search by
        # meaning reads whole by design (memories.reads.meaning).
        scans = [line.strip() for line in lines if FULL_SCAN.search(line)]
        return (lines, [], scans) if _substring(sql, params) else (lines, scans, [])

    def _rows(self, sql: str, params: list) -> list[tuple]:
        """The rows of the one part of `sql` that returns any (the others are settings)."""
        cursor = self.con.execute(sql, params)
        while cursor.description is None and cursor.nextset():
            pass
        return cursor.fetchall()

    def run(self, statement) -> None:
        self._rows(statement.sql, statement.params)

    def close(self) -> None:
        self.con.close()


def settings_around(sql: str) -> tuple[str, str, str]:
    """A statement sent with settings for it alone (PostgreSQL's ranking statement:
    `SET LOCAL ...; statement; SET LOCAL ... TO DEFAULT`): what comes before the
    statement, the statement, what comes after (empty when there are none)."""
    if not sql.lstrip().upper().startswith("SET LOCAL"):
        return "", sql, ""
    parts = sql.split("; ")
    first = next(n for n, part in enumerate(parts) if not part.upper().startswith("SET LOCAL"))
    last = max(n for n, part in enumerate(parts) if not part.upper().startswith("SET LOCAL"))
    before, main, after = parts[:first], parts[first : last + 1], parts[last + 1 :]
    return "; ".join(before) + "; ", "; ".join(main), "".join("; " + part for part in after)


def replayable(sql: str) -> bool:
    return settings_around(sql)[1].lstrip().upper().startswith(("SELECT", "WITH"))


def run_statements(driver, statements: list[Statement]) -> list[float]:
    """Each statement's time in seconds, rows fetched as Django fetches them."""
    times = []
    for statement in statements:
        started = time.perf_counter()
        driver.run(statement)
        times.append(time.perf_counter() - started)
    return times


# --------------------------------------------------------------------------- the server


class Server:
    """gunicorn memadmin.wsgi on 127.0.0.1:port with the store's data dir (or, `floor`, the
    minimal Django app of bench/floor.py on the same store); `tree`: the checkout it serves."""

    def __init__(
        self,
        port: int,
        data_dir: Path,
        workers: int,
        database_url: str = "",
        *,
        floor: bool = False,
        tree: Path = ROOT,
    ):
        self.port = port
        self.log = data_dir / ("floor.log" if floor else "gunicorn.log")
        env = {
            **os.environ,
            "MEMADMIN_DATA_DIR": str(data_dir),
            "MEMADMIN_DATABASE_URL": database_url,
        }
        app, probe = ["memadmin.wsgi"], "/sign-in/"
        if floor:
            env["MEMADMIN_FLOOR_DB"] = str(generate.store_path(data_dir))
            app, probe = ["--chdir", str(ROOT / "bench"), "floor"], "/v1/memories"
        command = [
            str(Path(sys.executable).parent / "gunicorn"),
            *app,
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--worker-class",
            "sync",
        ]
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                command, cwd=tree, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"gunicorn exited; see {self.log}")
            try:
                status, _, _ = self.get(probe, {"Host": "127.0.0.1"})
                if status == 200:
                    return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise SystemExit(f"gunicorn did not answer on port {port}; see {self.log}")

    def get(self, path: str, headers: dict) -> tuple[int, bytes, float]:
        started = time.perf_counter()
        con = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            con.request("GET", path, headers=headers)
            response = con.getresponse()
            body = response.read()
        finally:
            con.close()
        return response.status, body, time.perf_counter() - started

    def cpu_seconds(self) -> float:
        """The CPU time (user and system) its worker processes have used so far."""
        ticks = os.sysconf("SC_CLK_TCK")
        total = 0
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # gone meanwhile
                continue
            if int(fields[1]) == self.process.pid:  # ppid: a worker of this server
                total += int(fields[11]) + int(fields[12])
        return total / ticks

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


# ------------------------------------------------------------------------- measuring


def measure(route, facts, server, driver, *, requests, seconds, warmup) -> Result:
    captured, size = capture(route, facts, driver)
    statements, skipped = [], []
    for sql, params in captured:
        if replayable(sql):
            statements.append(Statement(sql, params, *driver.plan(sql, params)))
        else:
            skipped.append(sql)
    headers = request_headers(route, facts)
    for _ in range(warmup):
        status, _, _ = server.get(route.path, headers)
        if status != 200:
            raise SystemExit(f"{route.label}: the server answered {status}")
        run_statements(driver, statements)
    served, bare, each = [], [], [[] for _ in statements]
    deadline = time.monotonic() + seconds
    while len(served) < requests and (len(served) < 5 or time.monotonic() < deadline):
        status, _, elapsed = server.get(route.path, headers)
        if status != 200:
            raise SystemExit(f"{route.label}: the server answered {status}")
        served.append(elapsed * 1000)
        times = run_statements(driver, statements)
        bare.append(sum(times) * 1000)
        for samples, taken in zip(each, times, strict=True):
            samples.append(taken * 1000)
    for statement, samples in zip(statements, each, strict=True):
        statement.median_ms = statistics.median(samples)
    median, bare_median = statistics.median(served), statistics.median(bare)
    target = RATIO_TARGET * bare_median + OVERHEAD_MS
    return Result(
        label=route.label,
        path=route.path,
        bytes=size,
        requests=len(served),
        median_ms=median,
        p95_ms=percentile_95(served),
        bare_median_ms=bare_median,
        bare_p95_ms=percentile_95(bare),
        ratio=median / bare_median if bare_median else float("inf"),
        target_ms=target,
        meets=median <= target,
        statements=statements,
        skipped_statements=skipped,
    )


def floor_latency(server: Server, floor: Server, detail: Result, facts: dict, options) -> dict:
    """The memory detail page against its floor (bench/floor.py: the same memory, its
    references and its citers by plain statements through one small template): the page
    and the floor asked in turn, so that a busy machine slows both alike."""
    page_headers = request_headers(Route(detail.label, detail.path), facts)
    for _ in range(options.warmup):
        floor.get(detail.path, {"Host": "127.0.0.1"})
    page, served = [], []
    page_cpu, floor_cpu = server.cpu_seconds(), floor.cpu_seconds()
    deadline = time.monotonic() + options.seconds
    while len(served) < options.requests and (len(served) < 5 or time.monotonic() < deadline):
        status, _, elapsed = server.get(detail.path, page_headers)
        if status != 200:
            raise SystemExit(f"the detail page answered {status} for {detail.path}")
        page.append(elapsed * 1000)
        status, _, elapsed = floor.get(detail.path, {"Host": "127.0.0.1"})
        if status != 200:
            raise SystemExit(f"the detail floor answered {status} for {detail.path}")
        served.append(elapsed * 1000)
    # The servers' own CPU time per request moves much less with the load than their answers'
    # times do (in clock ticks: meaningful over a few hundred requests).
    page_cpu = (server.cpu_seconds() - page_cpu) * 1000 / len(page)
    floor_cpu = (floor.cpu_seconds() - floor_cpu) * 1000 / len(served)
    median, page_median = statistics.median(served), statistics.median(page)
    return {
        "path": detail.path,
        "requests": len(served),
        "median_ms": median,
        "page_median_ms": page_median,
        "ratio": page_median / median,
        "page_cpu_ms": page_cpu,
        "cpu_ms": floor_cpu,
        "cpu_ratio": page_cpu / floor_cpu if floor_cpu else float("inf"),
    }


def throughput(server: Server, path: str, headers: dict, *, clients, seconds, cap) -> dict:
    """Requests per second of `clients` threads asking for `path` at once, for `seconds`
    or `cap` requests in all."""
    lock = threading.Lock()
    statuses: dict[int, int] = {}
    latencies: list[float] = []
    stop_at = time.monotonic() + seconds

    def client():
        while time.monotonic() < stop_at:
            with lock:
                if len(latencies) >= cap:
                    return
            status, _, elapsed = server.get(path, headers)
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                latencies.append(elapsed * 1000)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    return {
        "path": path,
        "client": "python threads",
        "clients": clients,
        "requests": len(latencies),
        "seconds": wall,
        "rps": len(latencies) / wall,
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "median_ms": statistics.median(latencies),
        "p95_ms": percentile_95(latencies),
    }


def throughput_ab(server: Server, path: str, headers: dict, *, clients, seconds, cap) -> dict:
    """Requests per second of ApacheBench (`ab`, a C client: the Python client's threads
    took a core of the two from the server) with `clients` at once, a new connection per
    request, for `seconds` or `cap` requests."""
    command = ["ab", "-q", "-c", str(clients), "-t", str(seconds), "-n", str(cap)]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    output = subprocess.run(
        [*command, f"http://127.0.0.1:{server.port}{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout

    def figure(label: str) -> float:
        return float(re.search(rf"^{label}:\s+([\d.]+)", output, re.MULTILINE).group(1))

    failed = int(figure("Failed requests"))
    non_2xx = re.search(r"^Non-2xx responses:\s+(\d+)", output, re.MULTILINE)
    complete = int(figure("Complete requests"))
    return {
        "path": path,
        "client": "ab",
        "clients": clients,
        "requests": complete,
        "seconds": figure("Time taken for tests"),
        "rps": figure("Requests per second"),
        "statuses": {"failed": failed, "non_2xx": int(non_2xx.group(1)) if non_2xx else 0},
        "median_ms": float(re.search(r"^\s+50%\s+(\d+)", output, re.MULTILINE).group(1)),
        "p95_ms": float(re.search(r"^\s+95%\s+(\d+)", output, re.MULTILINE).group(1)),
    }


# ---------------------------------------------------------------------------- reports


def markdown(run: dict, results: list[Result]) -> str:
    lines = [
        f"# Benchmark, {run['memories']:,} memories, {run['started']}",
        "",
        f"gunicorn {run['workers']} sync workers on 127.0.0.1, CONN_MAX_AGE "
        f"{run['conn_max_age']}; "
        + (f"PostgreSQL {run['postgresql']}" if "postgresql" in run else f"SQLite {run['sqlite']}")
        + f"; {run['cpus']} CPUs; load average "
        f"{run['load_before']} before, {run['load_after']} after. Requests per route: up to "
        f"{run['max_requests']} or {run['max_seconds']} s after {run['warmup']} warm-up ones, "
        "alternating with the bare SQL. Target: median <= "
        f"{RATIO_TARGET:g} x bare SQL + {OVERHEAD_MS:g} ms.",
        "",
        "| route | median ms | p95 ms | bare SQL ms | statements | ratio | target ms | meets |"
        " full scans |",
        "|---|---:|---:|---:|---:|---:|---:|:---:|---|",
    ]
    for r in results:
        scans = "; ".join(r.full_scans) or "none"
        if r.text_scans:
            scans += "; text scan: " + "; ".join(r.text_scans)
        lines.append(
            f"| {r.label} | {r.median_ms:.2f} | {r.p95_ms:.2f} | {r.bare_median_ms:.2f} | "
            f"{len(r.statements)} | {r.ratio:.2f} | {r.target_ms:.2f} | "
            f"{'yes' if r.meets else '**no**'} | {scans} |"
        )
    rps = run["throughput"]
    lines += [
        "",
        f"`{rps['path']}` under {rps['clients']} concurrent clients ({rps['client']}, a new "
        f"connection per request): **{rps['rps']:.0f} "
        f"requests/s** ({rps['requests']} requests in {rps['seconds']:.1f} s, median "
        f"{rps['median_ms']:.1f} ms, p95 {rps['p95_ms']:.1f} ms, statuses {rps['statuses']}); "
        f"the Django floor (bench/floor.py: the same 50 rows as JSON, no middleware, token or "
        f"form) under the same load right after: **{run['floor_throughput']['rps']:.0f} "
        "requests/s**.",
        "",
    ]
    if "detail_floor" in run:
        floor = run["detail_floor"]
        lines += [
            "",
            f"The memory detail page against its floor (bench/floor.py: the same memory, its "
            f"references and its citers by plain statements through one small template, no "
            f"session or role), asked in turn: page **{floor['page_median_ms']:.2f} ms**, floor "
            f"**{floor['median_ms']:.2f} ms** (medians of {floor['requests']} each), "
            f"**{floor['ratio']:.2f}x** (goal: within 2x); the servers' CPU time per request "
            f"{floor['page_cpu_ms']:.2f} / {floor['cpu_ms']:.2f} ms, {floor['cpu_ratio']:.2f}x.",
        ]
    lines += [
        "",
        "## The main query of each route (its slowest statement on memories) and its plan",
        "",
    ]
    for r in results:
        main = r.main
        lines.append(f"### {r.label}: `{r.path}`")
        lines.append("")
        if main is None:
            lines.append("No SQL.")
            continue
        lines.append(f"{main.median_ms:.2f} ms of {r.bare_median_ms:.2f} ms bare SQL:")
        lines.append("")
        lines.append("```sql")
        lines.append(main.sql)
        lines.append("```")
        lines.append("```")
        lines.extend(main.plan)
        lines.append("```")
        lines.append("")
    return "\n".join(lines) + "\n"


def print_row(r: Result) -> None:
    flag = "" if r.meets else "  MISSES"
    flag += "  FULL SCAN" if r.full_scans else ""
    flag += "  text scan" if r.text_scans else ""
    print(
        f"{r.label:<34} {r.median_ms:8.2f} {r.p95_ms:8.2f} {r.bare_median_ms:8.2f} "
        f"{r.ratio:6.2f} {r.target_ms:8.2f} {r.requests:5d}{flag}",
        flush=True,
    )


SIZES = (10_000, 100_000, 1_000_000)


def growth(sizes: list[int], medians: list[float]) -> str:
    """How a route's median grows with the store, from the smallest size to the largest: the
    exponent k of median ~ size^k, read as flat (k < 0.15), linear (k >= 0.7) or between."""
    k = math.log(medians[-1] / medians[0]) / math.log(sizes[-1] / sizes[0])
    word = "flat" if k < 0.15 else "linear" if k >= 0.7 else "sublinear"
    return f"{word} (k={k:.2f})"


def growth_report(runs: list[dict]) -> str:
    """The medians of every route at each size, side by side, and how each grows."""
    sizes = [run["memories"] for run in runs]
    by_label = [{r["label"]: r for r in run["routes"]} for run in runs]
    labels = [r["label"] for r in runs[0]["routes"]]
    heading = " | ".join(f"{size:,}" for size in sizes)
    lines = [
        f"# Growth with the store: {', '.join(f'{size:,}' for size in sizes)} memories",
        "",
        "Medians in ms (each size's own file has p95, the bare SQL and the plans). Growth: "
        "the exponent k of median ~ size^k from the smallest store to the largest; flat "
        "below 0.15, linear from 0.7.",
        "",
        "Load average (1, 5, 15 min) before each size: "
        + "; ".join(f"{run['memories']:,}: {run['load_before']}" for run in runs),
        "",
        f"| route | {heading} | growth |",
        "|---|" + "---:|" * len(sizes) + "---|",
    ]
    for label in labels:
        medians = [runs_routes[label]["median_ms"] for runs_routes in by_label]
        cells = " | ".join(f"{m:.2f}" for m in medians)
        lines.append(f"| {label} | {cells} | {growth(sizes, medians)} |")
    clients = runs[0]["throughput"]["clients"]
    rps = " | ".join(f"{run['throughput']['rps']:.0f}" for run in runs)
    lines.append(f"| `/v1/memories` req/s, {clients} clients | {rps} | |")
    floor = " | ".join(f"{run['floor_throughput']['rps']:.0f}" for run in runs)
    lines.append(f"| the Django floor (bench/floor.py) req/s, {clients} clients | {floor} | |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data-dir", type=Path, help="default: var/bench/<memories>-<seed>/")
    parser.add_argument("--port", type=int, default=8701)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--requests", type=int, default=200, help="at most, per route")
    parser.add_argument("--seconds", type=float, default=8.0, help="at most, per route")
    parser.add_argument("--warmup", type=int, default=6)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rps-seconds", type=float, default=10.0)
    parser.add_argument("--only", help="run the routes whose label holds this text")
    parser.add_argument("--engine", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("MEMADMIN_DATABASE_URL", ""),
        help="--engine postgres: the database to fill and serve (default MEMADMIN_DATABASE_URL)",
    )
    parser.add_argument("--out", type=Path, help="the results' path without suffix")
    options = parser.parse_args()
    if options.engine == "postgres" and not options.database_url:
        parser.error("--engine postgres needs --database-url (or MEMADMIN_DATABASE_URL)")
    if len(options.memories) == 1:
        return run_size(options, options.memories[0])
    # One process per size: Django is set up once a process, on one store.
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    passed = list(_passed_on(sys.argv[1:]))
    status, runs = 0, []
    for size in sorted(options.memories):
        out = OUT / f"{stamp}-{size}"
        command = [sys.executable, __file__, *passed, "--memories", str(size), "--out", str(out)]
        if options.data_dir:
            command += ["--data-dir", str(options.data_dir / f"{size}-{options.seed}")]
        status |= subprocess.run(command, check=False).returncode
        runs.append(json.loads(out.with_suffix(".json").read_text()))
    report = growth_report(runs)
    (OUT / f"{stamp}-growth.md").write_text(report)
    print("\n" + report + f"\nWrote {OUT / stamp}-growth.md")
    return status


def _passed_on(args: list[str]):
    """The arguments but --memories and its sizes, --out and --data-dir, for each size's run."""
    skipping = False
    for arg in args:
        if arg in ("--memories", "--out", "--data-dir"):
            skipping = True
            continue
        if skipping and not arg.startswith("--"):
            continue
        skipping = False
        yield arg


def run_size(options, memories: int) -> int:
    """Every route on a store of `memories`; the results in bench/out (or --out)."""
    options.memories = memories
    url = options.database_url if options.engine == "postgres" else ""

    store = generate.ensure_store(options.memories, options.data_dir, options.seed, url)
    from django.conf import settings

    facts = prepare_store()
    chosen = [r for r in routes(facts) if not options.only or options.only in r.label]
    run = {
        "memories": options.memories,
        "store": _without_password(url) if url else str(store),
        "started": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "workers": options.workers,
        "conn_max_age": settings.DATABASES["default"]["CONN_MAX_AGE"],
        "engine": options.engine,
        "cpus": os.cpu_count(),
        "load_before": [round(x, 2) for x in os.getloadavg()],
        "max_requests": options.requests,
        "max_seconds": options.seconds,
        "warmup": options.warmup,
    }
    database = settings.DATABASES["default"]
    bare = BarePostgres(url, database) if url else BareSQLite(store, database)
    run[bare.engine] = bare.version
    measure_rps = throughput_ab if shutil.which("ab") else throughput
    server = Server(options.port, store.parent, options.workers, url)
    results = []
    try:
        print(f"{options.memories:,} memories in {run['store']}, load average {run['load_before']}")
        print(
            f"{'route':<34} {'median':>8} {'p95':>8} {'bare':>8} {'ratio':>6} {'target':>8} "
            f"{'reqs':>5}   (ms)"
        )
        for route in chosen:
            result = measure(
                route,
                facts,
                server,
                bare,
                requests=options.requests,
                seconds=options.seconds,
                warmup=options.warmup,
            )
            results.append(result)
            print_row(result)
        detail = next((r for r in results if r.label == "memory detail"), None)
        if detail is not None:
            floor = Server(options.port + 1, store.parent, options.workers, url, floor=True)
            try:
                run["detail_floor"] = floor_latency(server, floor, detail, facts, options)
            finally:
                floor.stop()
        api_list = Route("/v1 list", "/v1/memories", api=True)
        run["throughput"] = measure_rps(
            server,
            api_list.path,
            request_headers(api_list, facts),
            clients=options.clients,
            seconds=options.rps_seconds,
            cap=50_000,
        )
    finally:
        server.stop()
        bare.close()
    floor = Server(options.port + 1, store.parent, options.workers, url, floor=True)
    try:
        run["floor_throughput"] = measure_rps(
            floor,
            "/v1/memories",
            {"Host": "127.0.0.1"},
            clients=options.clients,
            seconds=options.rps_seconds,
            cap=50_000,
        )
    finally:
        floor.stop()
    run["load_after"] = [round(x, 2) for x in os.getloadavg()]
    rps, floor_rps = run["throughput"], run["floor_throughput"]
    if "detail_floor" in run:
        print(
            f"\nmemory detail {run['detail_floor']['page_median_ms']:.2f} ms, its floor "
            f"{run['detail_floor']['median_ms']:.2f} ms: {run['detail_floor']['ratio']:.2f}x; "
            f"server CPU per request {run['detail_floor']['page_cpu_ms']:.2f} / "
            f"{run['detail_floor']['cpu_ms']:.2f} ms: {run['detail_floor']['cpu_ratio']:.2f}x"
        )
    print(
        f"\n{rps['path']} under {rps['clients']} clients: {rps['rps']:.0f} requests/s, "
        f"statuses {rps['statuses']}; the Django floor (bench/floor.py) "
        f"{floor_rps['rps']:.0f}; load average {run['load_after']}"
    )
    OUT.mkdir(parents=True, exist_ok=True)
    out = options.out or OUT / dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    data = {
        **run,
        "routes": [
            {**asdict(r), "main_statement": r.main.sql if r.main else None} for r in results
        ],
    }
    out.with_suffix(".json").write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str))
    out.with_suffix(".md").write_text(markdown(run, results))
    print(f"Wrote {out}.json and .md")
    missed = [r.label for r in results if not r.meets]
    scanned = [r.label for r in results if r.full_scans]
    if missed:
        print("Missed the target: " + ", ".join(missed))
    if scanned:
        print("Scan the whole memories table: " + ", ".join(scanned))
    return 1 if missed or scanned else 0


if __name__ == "__main__":
    sys.exit(main())
