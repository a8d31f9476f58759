"""Latency of /v1 routes against a running server: median and p95 over N calls each.

.venv/bin/python bench/api.py http://127.0.0.1:8000 TOKEN [N]
"""

import statistics
import sys
import time
import urllib.request

ROUTES = [
    "/v1/openapi.json",
    "/v1/memories",
    "/v1/memories?project=infra",
    "/v1/memories?unverified=90d&expired=false",
    "/v1/memories?referencing=deploy-host",
    "/v1/memories?offset=200",
    "/v1/memories/deploy-host",
    "/v1/projects",
    "/v1/budget",
]


def main(base: str, token: str, count: int) -> None:
    for route in ROUTES:
        timings = []
        for _ in range(count):
            request = urllib.request.Request(base + route)
            request.add_header("Authorization", f"Bearer {token}")
            start = time.perf_counter()
            with urllib.request.urlopen(request) as response:
                response.read()
            timings.append((time.perf_counter() - start) * 1000)
        timings.sort()
        p95 = timings[int(len(timings) * 0.95) - 1]
        print(f"{route:48} median {statistics.median(timings):6.2f} ms   p95 {p95:6.2f} ms")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 200)
