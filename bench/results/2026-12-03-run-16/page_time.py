"""Each address given, asked 40 times through Django's test client after 5, as the benchmark's
admin (its pages signed in, /v1 with a read token made for the run): the median and the least
time in ms, the status and the size of the answer.

Run with MEMADMIN_DATA_DIR set to a bench store that `bench/run.py` has prepared and the
checkout on PYTHONPATH:

    page_time.py /hygiene/dangling/ "/v1/hygiene?section=dangling" /hygiene/
"""

import os
import statistics
import sys
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.test import Client  # noqa: E402

from memadmin.accounts import tokens  # noqa: E402

WARM, TIMED = 5, 40


def timed(client: Client, url: str, headers: dict) -> None:
    for _ in range(WARM):
        client.get(url, **headers)
    times = []
    for _ in range(TIMED):
        start = time.perf_counter()
        response = client.get(url, **headers)
        times.append((time.perf_counter() - start) * 1000)
    print(
        f"{url:40s} median {statistics.median(times):6.1f} ms  min {min(times):6.1f}"
        f"  {response.status_code} {len(response.content)}"
    )


def main(urls: list[str]) -> None:
    user = User.objects.get(username="bench")
    pages = Client(HTTP_HOST="127.0.0.1")
    pages.force_login(user)
    token = tokens.create_token(user, "read", "timing")[1]
    api = Client(HTTP_HOST="127.0.0.1")
    for url in urls:
        if url.startswith("/v1"):
            timed(api, url, {"HTTP_AUTHORIZATION": f"Bearer {token}"})
        else:
            timed(pages, url, {})


if __name__ == "__main__":
    main(sys.argv[1:])
