"""Time the backlink graph in Chromium: from opening the page to the graph drawn, and how long
a zoom and a pan take to draw once it is there.

    .venv/bin/python bench/insights_browser.py --data-dir bench/out/stores/10k --port 8502

Serves the store with gunicorn on 127.0.0.1:PORT (an auditor made in the store on first
run), opens each address in Debian's chromium through Playwright, and prints the median of
--runs loads: the whole wait until the graph is drawn, the JSON's share of it, and the
time to draw a zoom and a pan (two animation frames after each).
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
USER, PASSWORD = "bench-auditor", "a long enough bench password"

# Zoom or pan the drawn graph, then wait two frames: the time until it is on screen.
MOVE = """async ([selector, how]) => {
  const cy = document.querySelector(selector).graph;
  const started = performance.now();
  if (how === "zoom") cy.zoom({level: cy.zoom() * 2, renderedPosition: {x: 300, y: 300}});
  else cy.panBy({x: 200, y: 120});
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  return performance.now() - started;
}"""


def prepare(data_dir: Path) -> None:
    os.environ["MEMADMIN_DATA_DIR"] = str(data_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command

    from memadmin.accounts import roles

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    user, _ = User.objects.get_or_create(username=USER)
    user.set_password(PASSWORD)
    user.save()
    user.groups.add(Group.objects.get(name=roles.AUDITOR))


def serve(data_dir: Path, port: int) -> subprocess.Popen:
    server = subprocess.Popen(
        [
            str(ROOT / ".venv/bin/gunicorn"),
            "memadmin.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
            "--timeout",
            "120",
        ],
        cwd=ROOT,
        env={**os.environ, "MEMADMIN_DATA_DIR": str(data_dir)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/sign-in/", timeout=1)
            return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("gunicorn did not start")


def measure(page, url: str, selector: str, runs: int) -> str:
    loads, fetches, zooms, pans = [], [], [], []
    summary = ""
    for _ in range(runs + 1):
        started = time.perf_counter()
        page.goto(url)
        page.wait_for_selector(f"{selector}[data-graph-state=drawn]", timeout=300_000)
        loads.append((time.perf_counter() - started) * 1000)
        fetches.append(
            page.evaluate(
                "() => { const r = performance.getEntriesByType('resource')"
                ".filter((e) => e.name.includes('/data/')).pop();"
                " return r ? r.responseEnd - r.startTime : 0; }"
            )
        )
        zooms.append(page.evaluate(MOVE, [selector, "zoom"]))
        pans.append(page.evaluate(MOVE, [selector, "pan"]))
        summary = page.inner_text("[data-graph-summary]")
    median = statistics.median
    return (
        f"{median(loads[1:]):8.0f} ms to drawn ({median(fetches[1:]):6.0f} ms the JSON), "
        f"zoom {median(zooms[1:]):5.0f} ms, pan {median(pans[1:]):5.0f} ms  {summary[:70]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--port", type=int, default=8502)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    data_dir = args.data_dir.resolve()
    prepare(data_dir)
    from playwright.sync_api import sync_playwright

    from bench.insights import most_cited

    hub = most_cited()
    server = serve(data_dir, args.port)
    base = f"http://127.0.0.1:{args.port}"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(base + "/sign-in/")
            page.fill("#id_username", USER)
            page.fill("#id_password", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_load_state("networkidle")
            cases = [
                ("/graph/ (1,500 nodes)", "/graph/", "#graph .graph-canvas"),
                ("/graph/?limit=5000", "/graph/?limit=5000", "#graph .graph-canvas"),
                ("/graph/?limit=10000", "/graph/?limit=10000", "#graph .graph-canvas"),
                (
                    f"the most cited memory, {hub.name}, depth 2",
                    f"/graph/around/{hub.name}/?project={hub.project_name or ''}&depth=2",
                    "#memory-graph .graph-canvas",
                ),
            ]
            for label, path, selector in cases:
                print(f"{label:<46} {measure(page, base + path, selector, args.runs)}", flush=True)
            browser.close()
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
