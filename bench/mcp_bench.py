"""What an MCP tool call costs beside the /v1 route (or page) doing the same, under gunicorn.

    .venv/bin/python bench/mcp_bench.py --memories 10000 --requests 200

On the generated store of bench/run.py (bench/generate.py), served the way bench/run.py
serves it (gunicorn memadmin.wsgi, 2 sync workers, 127.0.0.1), each pair below is timed
alternately, request for request, so a busy machine slows both alike: a tool call as one
JSON-RPC POST to /mcp (what a stateless client sends per call, without the handshake) and
its counterpart. Prints the median and p95 of each and the load average before and after;
writes bench/out/mcp-<timestamp>.json.
"""

import argparse
import datetime as dt
import http.client
import json
import os
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import quote, urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402
import run  # noqa: E402

ACCEPT = "application/json, text/event-stream"


def _request(port: int, method: str, path: str, headers: dict, body: bytes | None = None):
    started = time.perf_counter()
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        con.request(method, path, body=body, headers=headers)
        response = con.getresponse()
        data = response.read()
    finally:
        con.close()
    if response.status != 200:
        raise SystemExit(f"{method} {path} answered {response.status}: {data[:300]!r}")
    return data, time.perf_counter() - started


def pairs(facts: dict) -> list[tuple[str, tuple, tuple]]:
    """(label, the MCP call as (project, method, params), the counterpart as (method, path))."""
    cited, project = facts["cited"], facts["cited_project"]
    read_path = f"/v1/memories/{quote(cited)}/read?" + urlencode({"project": project})
    return [
        (
            "search 'deploy' (global tier)",
            (None, "tools/call", {"name": "memory_search", "arguments": {"queries": ["deploy"]}}),
            ("GET", "/v1/memories?" + urlencode({"q": "deploy", "project": "", "limit": 20})),
        ),
        (
            "listing (global tier)",
            (None, "tools/call", {"name": "memory_search", "arguments": {}}),
            ("GET", "/v1/memories?project=&limit=20"),
        ),
        (
            "the agent's read",
            (project or None, "tools/call", {"name": "memory_read", "arguments": {"name": cited}}),
            ("POST", read_path),
        ),
        (
            "memory://index / the tier page",
            (facts["project"], "resources/read", {"uri": "memory://index"}),
            ("PAGE", "/memories/_agent/?" + urlencode({"project": facts["project"]})),
        ),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--port", type=int, default=8702)
    parser.add_argument("--requests", type=int, default=200)
    options = parser.parse_args()

    store = generate.ensure_store(options.memories, options.data_dir, options.seed)
    facts = run.prepare_store()
    token = {"Host": "127.0.0.1", "Authorization": f"Bearer {facts['token']}"}
    page = {"Host": "127.0.0.1", "Cookie": f"sessionid={facts['session']}"}
    load_before = [round(x, 2) for x in os.getloadavg()]
    server = run.Server(options.port, store.parent, 2)
    results = []
    try:
        print(f"{options.memories:,} memories, load average {load_before}")
        for label, (project, method, params), (verb, path) in pairs(facts):
            mcp_path = "/mcp" + ("" if project is None else "?" + urlencode({"project": project}))
            message = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
            mcp_headers = {**token, "Accept": ACCEPT, "Content-Type": "application/json"}
            other = page if verb == "PAGE" else token
            timings = {"mcp": [], "other": []}
            for i in range(options.requests + 5):
                answer, mcp_seconds = _request(
                    options.port, "POST", mcp_path, mcp_headers, message.encode()
                )
                if json.loads(answer).get("result", {}).get("isError"):
                    raise SystemExit(f"{label}: the tool refused: {answer[:300]!r}")
                _, other_seconds = _request(options.port, verb.replace("PAGE", "GET"), path, other)
                if i >= 5:  # the first few warm the workers
                    timings["mcp"].append(mcp_seconds * 1000)
                    timings["other"].append(other_seconds * 1000)
            row = {"label": label, "mcp_path": mcp_path, "other": f"{verb} {path}"}
            for key, samples in timings.items():
                samples.sort()
                row[f"{key}_median_ms"] = round(statistics.median(samples), 2)
                row[f"{key}_p95_ms"] = round(samples[int(len(samples) * 0.95) - 1], 2)
            results.append(row)
            print(
                f"{label:<32} mcp {row['mcp_median_ms']:7.2f} ms (p95 {row['mcp_p95_ms']:7.2f})"
                f"   {verb} {row['other_median_ms']:7.2f} ms (p95 {row['other_p95_ms']:7.2f})"
            )
    finally:
        server.stop()
    load_after = [round(x, 2) for x in os.getloadavg()]
    print(f"load average after {load_after}")
    run.OUT.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = run.OUT / f"mcp-{stamp}.json"
    out.write_text(
        json.dumps(
            {
                "memories": options.memories,
                "requests": options.requests,
                "load_before": load_before,
                "load_after": load_after,
                "results": results,
            },
            indent=2,
        )
    )
    print(f"Wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
