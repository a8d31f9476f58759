"""The graphs' labels and canvases in Chromium: the nodes that matter labelled at each zoom
and no two labels overlapping (as cytoscape itself measures them), a canvas as tall as its
picture, and the same layout for the same store whatever the screen."""

import pytest

from memories.writes import doors

pytestmark = pytest.mark.browser

CANVAS = "#graph .graph-canvas"

# After the zoom or the selection given, the labels placed again (on the next frame), then
# each labelled node's label box on screen as cytoscape measures it.
LABEL_BOXES = """async (element, change) => {
  const cy = element.graph;
  if (change.zoom) cy.zoom({ level: cy.zoom() * change.zoom, renderedPosition: {
    x: cy.width() / 2, y: cy.height() / 2 } });
  if (change.select) cy.nodes().filter((n) => n.data("label") === change.select).select();
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  return cy.nodes(".labelled").map((node) => {
    const box = node.renderedBoundingBox({ includeNodes: false, includeEdges: false,
      includeLabels: true, includeOverlays: false });
    return { label: node.data("label"), x1: box.x1, x2: box.x2, y1: box.y1, y2: box.y2 };
  });
}"""


@pytest.fixture
def store(transactional_db):
    doors.write("deploy-host", description="Production deploys go to host-7")
    for number in range(30):
        doors.write(
            f"a-rather-long-memory-name-{number:02d}",
            description=f"note {number}",
            references=["deploy-host", f"a-rather-long-memory-name-{(number + 1) % 30:02d}"],
        )
    doors.write("lonely", description="Cites nothing, cited by nothing")


def drawn(page, url: str, holder: str = CANVAS):
    page.goto(url)
    page.wait_for_selector(f"{holder}[data-graph-state=drawn]")
    return page.locator(holder)


def overlapping(boxes: list[dict]) -> list[tuple[str, str]]:
    return [
        (a["label"], b["label"])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a["x1"] < b["x2"] and b["x1"] < a["x2"] and a["y1"] < b["y2"] and b["y1"] < a["y2"]
    ]


@pytest.mark.parametrize("width", [1280, 390])
def test_the_labels_that_matter_never_overlap(sign_in, store, live_server, width):
    page = sign_in("auditor", width=width)
    canvas = drawn(page, live_server.url + "/graph/")
    fitted = canvas.evaluate(LABEL_BOXES, {})
    labels = [box["label"] for box in fitted]
    # The most cited node is labelled at the zoom the whole store is seen at; not every
    # node is (their labels would overlap), and none overlaps another.
    assert "deploy-host" in labels
    assert 0 < len(labels) < 31
    assert overlapping(fitted) == []
    closer = canvas.evaluate(LABEL_BOXES, {"zoom": 3})
    assert closer and overlapping(closer) == []
    # Far out, where a few labels fit, a node selected is labelled before any other.
    far = canvas.evaluate(LABEL_BOXES, {"zoom": 1 / 30})
    assert "deploy-host" in {box["label"] for box in far}
    assert "a-rather-long-memory-name-17" not in {box["label"] for box in far}
    chosen = canvas.evaluate(LABEL_BOXES, {"select": "a-rather-long-memory-name-17"})
    assert "a-rather-long-memory-name-17" in {box["label"] for box in chosen}
    assert overlapping(chosen) == []


def test_a_memorys_neighbourhood_labels_it_and_its_neighbours(sign_in, store, live_server):
    page = sign_in("auditor")
    url = live_server.url + "/graph/around/a-rather-long-memory-name-05/?project=&depth=1"
    boxes = drawn(page, url, "#memory-graph .graph-canvas").evaluate(LABEL_BOXES, {})
    # Each long name finds a free place beside its node (below, right, left or above).
    assert {box["label"] for box in boxes} == {
        "a-rather-long-memory-name-05",
        "deploy-host",
        "a-rather-long-memory-name-04",
        "a-rather-long-memory-name-06",
    }
    assert overlapping(boxes) == []


def canvas_height(page, url: str) -> float:
    return drawn(page, url, "#memory-graph .graph-canvas").bounding_box()["height"]


@pytest.mark.parametrize("width", [1280, 390])
def test_a_canvas_is_as_tall_as_its_picture(sign_in, store, live_server, width):
    page = sign_in("auditor", width=width)
    lonely = canvas_height(page, live_server.url + "/graph/around/lonely/?project=")
    assert lonely <= 200
    hub = canvas_height(page, live_server.url + "/graph/around/deploy-host/?project=&depth=2")
    assert hub > lonely + 100


POSITIONS = """(element) => Object.fromEntries(element.graph.nodes().map((n) =>
  [n.data("label"), [n.position("x").toFixed(3), n.position("y").toFixed(3)]]))"""


def test_the_same_store_is_laid_out_the_same_on_any_screen(sign_in, store, live_server):
    wide = drawn(sign_in("auditor"), live_server.url + "/graph/").evaluate(POSITIONS)
    narrow_page = sign_in("auditor", width=390)
    narrow = drawn(narrow_page, live_server.url + "/graph/").evaluate(POSITIONS)
    assert len(wide) == 31 and wide == narrow
    narrow_page.reload()
    narrow_page.wait_for_selector(f"{CANVAS}[data-graph-state=drawn]")
    assert narrow_page.locator(CANVAS).evaluate(POSITIONS) == wide
