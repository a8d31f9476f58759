"""The graphs in Chromium: the store-wide graph drawn from its JSON, a click on a node through
to its memory, whose page draws its own neighbourhood; no script error, no CSP violation."""

import re

import pytest

from memories.writes import doors
from projects import writes as project_doors

pytestmark = pytest.mark.browser


@pytest.fixture
def store(transactional_db):
    project_doors.add("webdev")
    doors.write(
        "deploy-host", description="Production deploys go to host-7", load="inline", body="h"
    )
    doors.write(
        "runbook", description="The deploy runbook", references=["deploy-host", "docs/x.md"]
    )
    doors.write("pnpm", project="webdev", description="Uses pnpm", references=["deploy-host"])
    for number in range(20):
        doors.write(
            f"note-{number:02d}",
            description=f"note {number}",
            references=[f"note-{number + 1:02d}"],
        )


def watch(page) -> list[str]:
    """Console errors (a CSP violation is one) as they happen."""
    seen: list[str] = []
    page.on("console", lambda message: message.type == "error" and seen.append(message.text))
    return seen


def node_point(page, holder: str, label: str) -> tuple[float, float]:
    """Where a node is drawn in the window, from the graph its element keeps.

    The canvas is centred in the window first (its bottom edge is below the fold at 1280 x
    900, where a node could not be clicked), and cytoscape told it moved (it reads the
    canvas's place again on a scroll event, which may come after the click).
    """
    page.locator(holder).evaluate(
        "(element) => { element.scrollIntoView({block: 'center'}); element.graph.resize(); }"
    )
    box = page.locator(holder).bounding_box()
    point = page.locator(holder).evaluate(
        "(element, label) => { const node = element.graph.nodes().filter("
        "(n) => n.data('label') === label)[0]; return node.renderedPosition(); }",
        label,
    )
    return box["x"] + point["x"], box["y"] + point["y"]


def summary(page, text: str) -> None:
    """Wait until the graph drawn says `text` of itself."""
    page.wait_for_function(
        "(text) => document.querySelector('[data-graph-summary]').textContent === text", arg=text
    )


def test_the_store_wide_graph_opens_a_memory_by_click(sign_in, store, live_server):
    page = sign_in("auditor")
    errors = watch(page)
    page.goto(live_server.url + "/graph/")
    page.wait_for_selector("#graph [data-graph-state=drawn]")
    assert page.inner_text("[data-graph-summary]") == "25 nodes and 23 references."
    x, y = node_point(page, "#graph .graph-canvas", "deploy-host")
    page.mouse.move(x, y)
    # A function, not an expression: Playwright polls an expression with eval(), which the
    # page's CSP refuses whenever the first check does not already hold.
    page.wait_for_function(
        "() => document.querySelector('[data-graph-hover]').textContent.startsWith('deploy-host')"
    )
    page.mouse.click(x, y)
    page.wait_for_url(re.compile(r"/memories/deploy-host/\?project=$"))
    assert page.inner_text("h1") == "deploy-host"
    page.locator("#memory-graph").scroll_into_view_if_needed()  # it loads once in view
    page.wait_for_selector("#memory-graph [data-graph-state=drawn]")
    assert page.inner_text("#memory-graph [data-graph-summary]") == "3 nodes and 2 references."
    assert not errors and not page.errors


def test_filters_redraw_and_a_dangling_target_lists_who_cites_it(sign_in, store, live_server):
    page = sign_in("auditor")
    errors = watch(page)
    page.goto(live_server.url + "/graph/")
    page.wait_for_selector("#graph [data-graph-state=drawn]")
    page.select_option("#g-project", "webdev")
    page.wait_for_url(re.compile(r"/graph/\?project=webdev$"))
    summary(page, "2 nodes and 1 reference.")
    page.select_option("#g-project", "*")
    page.wait_for_url(re.compile(r"/graph/$"))
    summary(page, "25 nodes and 23 references.")
    x, y = node_point(page, "#graph .graph-canvas", "docs/x.md")
    page.mouse.click(x, y)
    page.wait_for_url(re.compile(r"/memories/\?referencing=docs%2Fx\.md$"))
    assert "runbook" in page.inner_text("tbody.memory-row")
    assert not errors and not page.errors


def test_the_table_view_by_keyboard(sign_in, store, live_server):
    page = sign_in("auditor")
    page.goto(live_server.url + "/graph/")
    page.get_by_role("link", name="Table").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(".graph-table")
    row = page.locator(".graph-table tbody tr").filter(has=page.locator("th", has_text="pnpm"))
    assert "cross-tier" in row.inner_text()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_audit_pages_fit_the_screen(sign_in, store, live_server, width):
    page = sign_in("operator", width=width)
    for path in [
        "/graph/",
        "/graph/?view=table",
        "/budget/",
        "/hygiene/",
        "/hygiene/unverified/",
        "/hygiene/dangling/",
        "/graph/around/runbook/?project=",
    ]:
        page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
        scroll, client = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert scroll <= client, (path, scroll, client)
    assert not page.errors


def test_the_histogram_labels_are_readable(sign_in, store, live_server):
    page = sign_in("auditor")
    page.goto(live_server.url + "/budget/")
    ticks = page.locator(".chart-histogram .chart-tick, .chart-histogram .chart-axis-label")
    heights = [box["height"] for box in (t.bounding_box() for t in ticks.all())]
    assert heights and min(heights) >= 10, heights


def positions(page) -> dict:
    return page.locator("#graph .graph-canvas").evaluate(
        "(element) => Object.fromEntries(element.graph.nodes().map((n) => "
        "[n.data('label'), [Math.round(n.position('x')), Math.round(n.position('y'))]]))"
    )


def test_an_auditors_graph_search_centres_the_node(sign_in, store, live_server):
    page = sign_in("auditor")
    errors = watch(page)
    page.goto(live_server.url + "/graph/")
    page.wait_for_selector("#graph [data-graph-state=drawn]")
    first = positions(page)
    # Labels wait for a zoom that parts them; the whole store fitted is too far out here.
    zoom = page.locator("#graph .graph-canvas").evaluate("(element) => element.graph.zoom()")
    page.get_by_label("Find a node").fill("note-13")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('#graph .graph-canvas').dataset.graphFound"
    )
    found = page.locator("#graph .graph-canvas").evaluate(
        "(element) => { const cy = element.graph; const node = cy.$(':selected');"
        " return {label: node.data('label'), x: node.renderedPosition('x'),"
        " y: node.renderedPosition('y'), width: cy.width(), height: cy.height(),"
        " zoom: cy.zoom(), font: node.renderedStyle('font-size')}; }"
    )
    assert found["label"] == "note-13"
    assert abs(found["x"] - found["width"] / 2) < 2 and abs(found["y"] - found["height"] / 2) < 2
    assert found["zoom"] >= max(zoom, 1.5)
    assert float(found["font"].removesuffix("px")) >= 12  # its label is drawn, readable
    assert page.inner_text("[data-graph-search-result]") == "Centred on note-13."
    assert page.inner_text("[data-graph-hover]").startswith("note-13 (global")
    # A part of a name finds it too; a name no node has says so.
    page.get_by_label("Find a node").fill("DEPLOY-H")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('[data-graph-search-result]').textContent"
        " === 'Centred on deploy-host.'"
    )
    page.get_by_label("Find a node").fill("nothing-like-it")
    page.keyboard.press("Enter")
    assert "No node of this graph" in page.inner_text("[data-graph-search-result]")
    # The same store is laid out the same way on every load.
    page.reload()
    page.wait_for_selector("#graph [data-graph-state=drawn]")
    assert positions(page) == first
    assert not errors and not page.errors
