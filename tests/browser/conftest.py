"""The browser suite: Debian's chromium driven by Playwright against a live server on
127.0.0.1, signed in through the sign-in page as a person would."""

import os
from pathlib import Path

import pytest

from tests.conftest import PASSWORD, make_user

CHROMIUM = "/usr/bin/chromium"
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
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# Chromium's own line for a response of status 4xx: a refusal the page then shows, as
# designed. Every other console error (a script's, htmx's, a CSP violation, a 5xx) fails
# the test that met it (sign_in).
REFUSED = "Failed to load resource: the server responded with a status of 4"


@pytest.fixture(scope="session")
def live_server():
    """pytest-django's live server, bound to 127.0.0.1 on a port the system picks free (or,
    with MEMADMIN_TEST_PORT set, that port for the first xdist worker, the next for the
    second, and so on)."""
    from pytest_django.live_server_helper import LiveServer

    port = 0
    if os.environ.get("MEMADMIN_TEST_PORT"):
        worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
        port = int(os.environ["MEMADMIN_TEST_PORT"]) + int(worker.removeprefix("gw") or 0)
    server = LiveServer(f"127.0.0.1:{port}")
    yield server
    server.stop()
    # The pages' streams and the change feed's connection end with the server, before the
    # test database is dropped.
    from memadmin.live.feed import FEED

    FEED.close_all()


@pytest.fixture(scope="module")
def chromium():
    """One Chromium for a module's tests.

    Playwright's sync API keeps an event loop running in this thread while it is started, so
    Django would take the ORM calls the tests make between browser steps (ordinary blocking
    calls all the same) for calls from async code. The permission to make them lasts as long
    as Playwright does, and no longer: other tests, and processes they start, never see it.
    """
    from playwright.sync_api import sync_playwright

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            yield browser
            browser.close()


@pytest.fixture
def sign_in(chromium, live_server, transactional_db):
    """A new browser context signed in as a new user of the role; returns its page."""
    contexts, pages = [], []

    def _sign_in(role: str = "operator", *, width: int = 1280, username: str | None = None):
        user = make_user(username or f"{role}-{len(contexts)}", role)
        context = chromium.new_context(viewport={"width": width, "height": 900})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        page.on(
            "console",
            lambda message: (
                message.type == "error"
                and not message.text.startswith(REFUSED)
                and page.console_errors.append(f"{page.url}: {message.text}")
            ),
        )
        page.console_errors = []
        pages.append(page)
        page.goto(live_server.url + "/memories/")
        assert "/sign-in/" in page.url
        page.fill("#id_username", user.username)
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(live_server.url + "/memories/")
        return page

    yield _sign_in
    for context in contexts:
        context.close()
    errors = [error for page in pages for error in page.console_errors]
    assert not errors, f"console errors on the pages visited: {errors}"
