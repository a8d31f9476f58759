// The backlink graphs: every element with data-graph-url is drawn with cytoscape.js from the
// JSON that address answers. A static file: the CSP forbids inline script.
"use strict";

(() => {
  // Past this many nodes: no arrows, straight "haystack" edges and cheaper redraws while
  // panning and zooming, so thousands of nodes stay responsive.
  const LARGE = 400;
  // A cluster up to this size is laid out by force (cose); a larger one in rings by degree,
  // which costs little however large it is.
  const FORCE_LAYOUT_MAX = 150;
  const SHAPES = { name: "diamond", path: "rectangle", url: "hexagon", id: "triangle" };

  function colours() {
    const css = getComputedStyle(document.documentElement);
    const read = (name) => css.getPropertyValue(name).trim();
    return {
      text: read("--text"),
      surface: read("--surface"),
      border: read("--border"),
      inline: read("--accent"),
      index: read("--ok"),
      search: read("--muted"),
      dangling: read("--danger"),
      cross: read("--warn"),
    };
  }

  function nodeSize(node) {
    if (node.kind !== "memory") return 16;
    return Math.min(14 + 7 * Math.log2(1 + node.read_count), 64);
  }

  function elements(data) {
    const nodes = data.nodes.map((node) => ({
      group: "nodes",
      data: { ...node, size: nodeSize(node) },
      classes: [
        node.kind === "memory" ? `memory load-${node.load}` : `dangling kind-${node.kind}`,
        node.expired ? "expired" : "",
        node.in_scope === false ? "outside" : "",
        node.id === data.centre ? "centre" : "",
      ].join(" "),
    }));
    const edges = data.edges.map((edge) => ({
      group: "edges",
      data: edge,
      classes: edge.cross_tier ? "cross" : "",
    }));
    return nodes.concat(edges);
  }

  function style(c, large) {
    const rules = [
      {
        selector: "node",
        style: {
          width: "data(size)",
          height: "data(size)",
          label: "data(label)",
          "font-size": 10,
          color: c.text,
          "text-valign": "bottom",
          "text-margin-y": 3,
          "min-zoomed-font-size": 9,
          "text-outline-width": 2,
          "text-outline-color": c.surface,
          "border-width": 1,
          "border-color": c.surface,
        },
      },
      { selector: "node.load-inline", style: { "background-color": c.inline } },
      { selector: "node.load-index", style: { "background-color": c.index } },
      { selector: "node.load-search", style: { "background-color": c.search } },
      {
        selector: "node.dangling",
        style: {
          "background-color": c.surface,
          "border-color": c.dangling,
          "border-width": 2,
          "border-style": "dashed",
        },
      },
      { selector: "node.expired", style: { opacity: 0.35 } },
      {
        selector: "node.outside",
        style: { "background-opacity": 0.15, "border-width": 3, "border-color": c.search },
      },
      { selector: "node.centre", style: { "border-width": 4, "border-color": c.text } },
      {
        selector: "edge",
        style: {
          width: 1,
          "line-color": c.border,
          "curve-style": large ? "haystack" : "straight",
          "target-arrow-shape": large ? "none" : "triangle",
          "target-arrow-color": c.border,
          "arrow-scale": 0.8,
        },
      },
      {
        selector: "edge.cross",
        style: {
          width: 1.5,
          "line-color": c.cross,
          "line-style": "dashed",
          "target-arrow-color": c.cross,
        },
      },
      { selector: "node:active, node:selected", style: { "overlay-opacity": 0.15 } },
    ];
    for (const [kind, shape] of Object.entries(SHAPES)) {
      rules.push({ selector: `node.kind-${kind}`, style: { shape } });
    }
    return rules;
  }

  // Each connected cluster is laid out on its own and the clusters are packed in rows,
  // largest first: one force layout over thousands of nodes would take minutes.
  function arrange(cy) {
    const clusters = cy.elements().components().sort((a, b) => b.nodes().length - a.nodes().length);
    const boxes = clusters.map((cluster) => {
      const count = cluster.nodes().length;
      let options;
      if (count <= 3) {
        options = { name: "grid", rows: 1 };
      } else if (count <= FORCE_LAYOUT_MAX) {
        options = { name: "cose", randomize: true, idealEdgeLength: 45, nodeRepulsion: 6000, numIter: 400 };
      } else {
        options = {
          name: "concentric",
          concentric: (node) => node.degree(),
          levelWidth: () => 1,
          minNodeSpacing: 6,
        };
      }
      cluster.layout({ ...options, animate: false, fit: false, boundingBox: { x1: 0, y1: 0, w: 40 * Math.sqrt(count) + 40, h: 40 * Math.sqrt(count) + 40 } }).run();
      return { cluster, box: cluster.nodes().boundingBox() };
    });
    const area = boxes.reduce((sum, { box }) => sum + (box.w + 40) * (box.h + 40), 0);
    const rowWidth = Math.max(Math.sqrt(area) * 1.3, boxes.length ? boxes[0].box.w : 0);
    let x = 0;
    let y = 0;
    let rowHeight = 0;
    for (const { cluster, box } of boxes) {
      if (x > 0 && x + box.w > rowWidth) {
        x = 0;
        y += rowHeight + 40;
        rowHeight = 0;
      }
      const dx = x - box.x1;
      const dy = y - box.y1;
      cluster.nodes().positions((node) => ({ x: node.position("x") + dx, y: node.position("y") + dy }));
      x += box.w + 40;
      rowHeight = Math.max(rowHeight, box.h);
    }
    cy.fit(undefined, 20);
  }

  function destination(holder, node) {
    if (node.kind === "memory") {
      const page = holder.dataset.memoryUrl.replace("__NAME__", encodeURIComponent(node.name));
      return `${page}?project=${encodeURIComponent(node.project ?? "")}`;
    }
    return holder.dataset.referencingUrl + encodeURIComponent(node.target);
  }

  function describe(node) {
    if (node.kind !== "memory") {
      return `${node.target}: a ${node.kind} no memory holds, cited ${node.degree} time${node.degree === 1 ? "" : "s"}. Click to list who cites it.`;
    }
    const state = [node.tier, node.load, `priority ${node.priority}`, `read ${node.read_count} time${node.read_count === 1 ? "" : "s"}`];
    if (node.expired) state.push("expired");
    return `${node.name} (${state.join(", ")}): ${node.description}`;
  }

  async function draw(holder) {
    const box = holder.closest(".graph-box") || holder.parentElement;
    const container = box.parentElement;
    const summary = container.querySelector("[data-graph-summary]");
    const hover = container.querySelector("[data-graph-hover]");
    holder.dataset.graphState = "loading";
    let data;
    try {
      const response = await fetch(holder.dataset.graphUrl, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      data = await response.json();
      if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
    } catch (problem) {
      holder.dataset.graphState = "failed";
      if (summary) summary.textContent = `The graph could not be loaded: ${problem.message}`;
      return;
    }
    if (summary) summary.textContent = data.summary;
    const large = data.nodes.length > LARGE;
    const cy = cytoscape({
      container: holder,
      elements: elements(data),
      style: style(colours(), large),
      layout: { name: "preset" },
      minZoom: 0.02,
      maxZoom: 4,
      textureOnViewport: large,
      hideEdgesOnViewport: large,
      pixelRatio: large ? 1 : "auto",
      boxSelectionEnabled: false,
    });
    arrange(cy);
    cy.on("tap", "node", (event) => {
      window.location.assign(destination(holder, event.target.data()));
    });
    cy.on("mouseover", "node", (event) => {
      if (hover) hover.textContent = describe(event.target.data());
      holder.classList.add("pointing");
    });
    cy.on("mouseout", "node", () => holder.classList.remove("pointing"));
    // The drawn graph stays reachable from its element, for the console and the browser tests.
    holder.graph = cy;
    holder.dataset.graphState = "drawn";
  }

  function drawAll(root) {
    for (const holder of root.querySelectorAll("[data-graph-url]")) {
      if (!holder.dataset.graphState) draw(holder);
    }
  }

  // A graph swapped out by htmx lets go of its window listeners.
  document.addEventListener("htmx:beforeCleanupElement", (event) => {
    if (event.target.graph) event.target.graph.destroy();
  });
  document.addEventListener("DOMContentLoaded", () => drawAll(document));
  document.addEventListener("htmx:afterSettle", (event) => drawAll(event.target));
})();
