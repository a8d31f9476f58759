"""Live pages across app servers: two gunicorn servers over one store (PostgreSQL, or one
SQLite file), a page open on one, an agent writing through /v1 on the other. The write shows
on the page without a reload: the list's row in place (a row the operator is editing is
kept and marked), the memory's page says it changed, the agent view is drawn again."""

import pytest

from tests.conftest import PASSWORD
from tests.reliability.conftest import Served, create_boss

pytestmark = pytest.mark.browser
WAIT_MS = 20_000


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    env = {"MEMADMIN_SECRET_KEY": "one key for every app server " * 3}
    stores = tmp_path_factory.mktemp("live")
    first = Served(stores / "first", workers=1, pages=True, env=env)
    second = Served(stores / "second", workers=1, shares=first, pages=True, env=env)
    create_boss(first.data_dir, PASSWORD)
    yield first, second
    logs = [first.stop(), second.stop()]
    assert not [log for log in logs if "Traceback" in log], logs


@pytest.fixture
def page(chromium, servers):
    """A page signed in on the second server, its console watched."""
    _, second = servers
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.base = f"http://127.0.0.1:{second.port}"
    page.console_errors = errors
    page.goto(page.base + "/sign-in/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(page.base + "/")
    yield page
    context.close()
    assert not errors, errors


def _put(server, name, **fields):
    answer = server.request("PUT", f"/v1/memories/{name}?project=", fields)
    assert answer.status in (200, 201), answer.body


def _row(page, name):
    return page.locator("tbody[id^=memory-]", has=page.locator("th a", has_text=name))


def test_the_list_on_one_server_shows_a_write_through_the_other(servers, page):
    first, _ = servers
    _put(first, "list-alpha", description="alpha as it was", priority=5)
    _put(first, "list-beta", description="beta as it was", priority=6)
    page.goto(page.base + "/memories/")
    page.wait_for_selector('#live[data-state="live"]')
    edited = _row(page, "list-beta").locator("input[name=priority]")
    edited.fill("9")  # typed, not sent: the operator is editing this row

    _put(first, "list-alpha", description="alpha changed by an agent")
    page.wait_for_selector("text=alpha changed by an agent")
    _put(first, "list-beta", description="beta changed by an agent")
    mark = _row(page, "list-beta").locator("tr.live-mark")
    mark.wait_for()
    assert "just now; your edit is kept" in mark.inner_text()
    assert edited.input_value() == "9"
    assert "beta as it was" in _row(page, "list-beta").inner_text()
    assert page.locator("#live").inner_text() == "live"


def test_a_memory_page_says_it_changed_since_it_was_opened(servers, page):
    first, _ = servers
    _put(first, "page-gamma", description="gamma as it was")
    page.goto(page.base + "/memories/page-gamma/?project=")
    page.wait_for_selector('#live[data-state="live"]')
    _put(first, "page-other", description="another memory")
    _put(first, "page-gamma", description="gamma changed by an agent")
    note = page.locator("#live-note")
    note.wait_for()
    assert "since you opened this page" in note.inner_text()
    assert "/history/revisions/" in note.locator("a").first.get_attribute("href")


def test_the_agent_view_is_drawn_again(servers, page):
    first, _ = servers
    page.goto(page.base + "/memories/_agent/")
    page.wait_for_selector('#live[data-state="live"]')
    _put(first, "agent-delta", description="a fact the agent now sees in its index")
    page.wait_for_selector("#tier >> text=a fact the agent now sees in its index")


def test_the_overview_and_a_memorys_history_are_drawn_again(servers, page):
    first, _ = servers
    _put(first, "history-eps", description="eps as it was")
    page.goto(page.base + "/memories/history-eps/history/?project=")
    page.wait_for_selector('#live[data-state="live"]')
    revisions = page.locator("#revisions tbody tr, #revisions li, #revisions article")
    before = revisions.count()
    _put(first, "history-eps", description="eps changed by an agent")
    page.wait_for_function(
        "n => document.querySelectorAll('#revisions tbody tr, #revisions li, #revisions article')"
        ".length > n",
        arg=before,
    )
    page.goto(page.base + "/")
    page.wait_for_selector('#live[data-state="live"]')
    total = page.locator("#overview .page-head p").inner_text()
    _put(first, "overview-zeta", description="one more memory")
    page.wait_for_function(
        "t => document.querySelector('#overview .page-head p').textContent.trim() !== t",
        arg=total.strip(),
    )


def test_a_page_whose_stream_cannot_open_polls_and_says_so(servers, page):
    """The stream refused at the network (a proxy that drops it, say): the page says it polls,
    and a poll brings what changed."""
    first, _ = servers
    page.route(
        "**/live/events?*",
        lambda route: route.continue_() if "once=1" in route.request.url else route.abort(),
    )
    _put(first, "poll-eta", description="eta as it was")
    page.goto(page.base + "/memories/")
    page.wait_for_selector('#live[data-state="polling"]', timeout=30_000)
    assert page.locator("#live").inner_text() == "polling every 30 s"
    _put(first, "poll-eta", description="eta changed while polling")
    page.wait_for_selector("text=eta changed while polling", timeout=45_000)
    assert page.locator("#live").get_attribute("data-state") == "polling"
    # Chromium's lines for the streams refused on purpose.
    page.console_errors[:] = [e for e in page.console_errors if "ERR_FAILED" not in e]
