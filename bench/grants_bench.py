"""What a grant costs the reads it narrows: the list, search and facets, for the whole store
and for one project's grant, per request, in process (Django's test client on a generated
store), as CPU time (bench/cpu_time.py: it moves much less with the machine's load than the
time a request takes) and wall time, medians of --requests requests taken in turn.

    .venv/bin/python bench/grants_bench.py --memories 100000 --out grants.json

Principals: an admin of the whole store (what every account was before grants) and an
operator granted one project (generate.PROJECTS[0]), by session on the pages; on /v1 a
token of each. Run on a checkout without grants, only the first two are measured: that is
today's figure to hold the grant's against.
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402


def _routes() -> list[tuple[str, str, bool]]:
    """(label, path, through /v1)."""
    common = urlencode({"q": generate.COMMON_WORD})
    rare = urlencode({"q": generate.RARE_WORD})
    return [
        ("list page", "/memories/", False),
        ("list page (htmx)", "/memories/?sort=index", False),
        ("search page, common word", f"/memories/?{common}", False),
        ("search page, rare word", f"/memories/?{rare}", False),
        ("facets", "/memories/_facets/", False),
        ("facets, a tag", "/memories/_facets/?tag=infra", False),
        ("/v1 list", "/v1/memories", True),
        ("/v1 search, common word", f"/v1/memories?{common}", True),
        ("/v1 search, rare word", f"/v1/memories?{rare}", True),
    ]


def _principals() -> dict[str, tuple]:
    """label -> (client, bearer token)."""
    from django.contrib.auth.models import Group, User
    from django.test import Client

    from memadmin.accounts import tokens

    def principal(username: str, setup) -> tuple:
        user, _ = User.objects.get_or_create(username=username)
        setup(user)
        client = Client(HTTP_HOST="127.0.0.1")
        client.force_login(user)
        return client, tokens.create_token(user, "read", "grants bench")[1]

    found = {
        "whole store": principal(
            "bench-whole", lambda u: u.groups.add(Group.objects.get(name="admin"))
        )
    }
    try:
        from memadmin.accounts import grants
    except ImportError:
        return found  # a checkout from before grants: today's figures alone
    project = generate.PROJECTS[0]

    def one_project(user):
        user.groups.clear()
        grants.grant(None, user, "operator", project)

    found[f"one project ({project})"] = principal("bench-project", one_project)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--requests", type=int, default=15)
    parser.add_argument("--only", help="only the routes whose label holds this")
    parser.add_argument("--out", type=Path)
    options = parser.parse_args()
    generate.ensure_store(options.memories, options.data_dir, options.seed)
    principals = _principals()
    results = {"memories": options.memories, "load_before": os.getloadavg(), "routes": {}}
    for label, path, api in _routes():
        if options.only and options.only not in label:
            continue
        cpu = {name: [] for name in principals}
        wall = {name: [] for name in principals}
        counts = {}
        for number in range(options.requests + 2):
            for name, (client, token) in principals.items():
                headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if api else {}
                if "htmx" in label:
                    headers["HTTP_HX_REQUEST"] = "true"
                started_cpu, started = time.process_time(), time.perf_counter()
                response = client.get(path, **headers)
                spent_cpu, spent = time.process_time() - started_cpu, time.perf_counter() - started
                if response.status_code != 200:
                    raise SystemExit(f"{label}, {name}: {response.status_code}")
                if api:
                    counts[name] = response.json().get("count")
                if number >= 2:
                    cpu[name].append(spent_cpu * 1000)
                    wall[name].append(spent * 1000)
        results["routes"][label] = {
            name: {
                "cpu_ms": round(statistics.median(cpu[name]), 2),
                "wall_ms": round(statistics.median(wall[name]), 2),
                "count": counts.get(name),
            }
            for name in principals
        }
        print(
            f"{label:<28} "
            + "  ".join(
                f"{name}: cpu {statistics.median(cpu[name]):7.2f} wall "
                f"{statistics.median(wall[name]):7.2f}"
                for name in principals
            ),
            flush=True,
        )
    results["load_after"] = os.getloadavg()
    print(f"load average {results['load_before']} before, {results['load_after']} after")
    if options.out:
        options.out.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
