// The backlink graphs: every element with data-graph-url is drawn with cytoscape.js from the
// JSON that address answers. A static file: the CSP forbids inline script.
"use strict";

(() => {
  // Past this many nodes: no arrows, straight "haystack" edges and cheaper redraws while
  // panning and zooming, so thousands of nodes stay responsive.
  const LARGE = 400;
  // In a picture of up to LARGE nodes, a cluster up to this size is laid out by force (cose);
  // any other as a radial tree, which costs little however large it is.
  const FORCE_LAYOUT_MAX = 150;
  const SHAPES = { name: "diamond", path: "rectangle", url: "hexagon", id: "triangle" };
  const FIT_ZOOM_MAX = 1.6;
  const FOUND_ZOOM = 1.5; // a found node is shown at least this close, its neighbours labelled

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
          // Labels appear once zoomed in far enough for them to part (10 px drawn at 1.2x);
          // further out, the node pointed at or found is the one labelled.
          "min-zoomed-font-size": 12,
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
      {
        selector: "node.centre",
        style: {
          "border-width": 4,
          "border-color": c.text,
          "font-weight": "bold",
          "z-index": 9,
          "text-background-color": c.surface,
          "text-background-opacity": 0.9,
          "text-background-padding": 2,
        },
      },
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
      {
        selector: "node.focus, node:selected",
        style: {
          "font-size": "data(focusFont)",
          "min-zoomed-font-size": 0,
          "font-weight": "bold",
          "z-index": 10,
          "text-background-color": c.surface,
          "text-background-opacity": 0.9,
          "text-background-padding": 2,
        },
      },
      { selector: "node:selected", style: { "border-width": 4, "border-color": c.cross } },
    ];
    for (const [kind, shape] of Object.entries(SHAPES)) {
      rules.push({ selector: `node.kind-${kind}`, style: { shape } });
    }
    return rules;
  }

  // A cluster as a radial tree from its most connected node: each node on a ring by its
  // hops from there, its descendants in its own slice of the circle, wider for more of them.
  // Linear in the cluster's size, where a force layout of 1,500 nodes takes seconds.
  function radial(ids, neighbours) {
    const degree = (id) => neighbours.get(id).length;
    const root = ids.reduce((best, id) => (degree(id) > degree(best) ? id : best), ids[0]);
    const depth = new Map([[root, 0]]);
    const children = new Map();
    const order = [root];
    for (let i = 0; i < order.length; i += 1) {
      const kids = [];
      for (const other of [...neighbours.get(order[i])].sort((a, b) => degree(b) - degree(a))) {
        if (depth.has(other)) continue;
        depth.set(other, depth.get(order[i]) + 1);
        kids.push(other);
        order.push(other);
      }
      children.set(order[i], kids);
    }
    const weight = new Map();
    for (let i = order.length - 1; i >= 0; i -= 1) {
      const kids = children.get(order[i]);
      weight.set(order[i], kids.length ? kids.reduce((sum, kid) => sum + weight.get(kid), 0) : 1);
    }
    const perRing = [];
    for (const id of order) perRing[depth.get(id)] = (perRing[depth.get(id)] || 0) + 1;
    const radius = [0];
    for (let ring = 1; ring < perRing.length; ring += 1) {
      radius[ring] = Math.max(radius[ring - 1] + 70, (perRing[ring] * 16) / (2 * Math.PI));
    }
    const slice = new Map([[root, [0, 2 * Math.PI]]]);
    const at = new Map();
    for (const id of order) {
      const [from, to] = slice.get(id);
      const middle = (from + to) / 2;
      at.set(id, { x: radius[depth.get(id)] * Math.cos(middle), y: radius[depth.get(id)] * Math.sin(middle) });
      let start = from;
      for (const kid of children.get(id)) {
        const span = ((to - from) * weight.get(kid)) / weight.get(id);
        slice.set(kid, [start, start + span]);
        start += span;
      }
    }
    return at;
  }

  // The same numbers from the same seed (mulberry32), so a layout drawn twice is the same.
  function seeded(seed) {
    let state = seed >>> 0;
    return () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  function seedOf(ids) {
    let hash = 2166136261;
    for (const char of ids.join("\n")) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
    return hash >>> 0;
  }

  // A small cluster of a small picture, laid out by force (cytoscape's cose). Cose draws its
  // starting places and some of its moves from Math.random: seeded from the cluster's own
  // node ids for the layout's run (synchronous without animation), the same store is drawn
  // the same way on every load.
  function force(cy, ids) {
    const nodes = cy.collection(ids.map((id) => cy.getElementById(id)));
    const random = Math.random;
    Math.random = seeded(seedOf(ids));
    try {
      nodes.union(nodes.edgesWith(nodes)).layout({
        name: "cose",
        animate: false,
        fit: false,
        randomize: true,
        idealEdgeLength: 45,
        nodeRepulsion: 6000,
        numIter: 400,
      }).run();
    } finally {
      Math.random = random;
    }
    return new Map(ids.map((id) => [id, { ...cy.getElementById(id).position() }]));
  }

  // Every connected cluster (numbered by the server, 0 the largest) is laid out on its own
  // and the clusters are packed in rows, largest first.
  function arrange(cy, data) {
    const clusters = [];
    const neighbours = new Map();
    for (const node of data.nodes) {
      (clusters[node.cluster] ||= []).push(node.id);
      neighbours.set(node.id, []);
    }
    for (const edge of data.edges) {
      neighbours.get(edge.source).push(edge.target);
      if (edge.source !== edge.target) neighbours.get(edge.target).push(edge.source);
    }
    const small = data.nodes.length <= LARGE;
    const placed = clusters.filter(Boolean).map((ids) => {
      let at;
      if (ids.length <= 3) {
        at = new Map(ids.map((id, i) => [id, { x: i * 50, y: 0 }]));
      } else if (small && ids.length <= FORCE_LAYOUT_MAX) {
        at = force(cy, ids);
      } else {
        at = radial(ids, neighbours);
      }
      const xs = [...at.values()].map((p) => p.x);
      const ys = [...at.values()].map((p) => p.y);
      const box = { x1: Math.min(...xs), y1: Math.min(...ys), w: Math.max(...xs) - Math.min(...xs), h: Math.max(...ys) - Math.min(...ys) };
      return { at, box };
    });
    const gap = 60;
    const area = placed.reduce((sum, { box }) => sum + (box.w + gap) * (box.h + gap), 0);
    const rowWidth = Math.max(Math.sqrt(area) * 1.3, placed.length ? placed[0].box.w : 0);
    const final = new Map();
    let x = 0;
    let y = 0;
    let rowHeight = 0;
    for (const { at, box } of placed) {
      if (x > 0 && x + box.w > rowWidth) {
        x = 0;
        y += rowHeight + gap;
        rowHeight = 0;
      }
      for (const [id, p] of at) final.set(id, { x: p.x - box.x1 + x, y: p.y - box.y1 + y });
      x += box.w + gap;
      rowHeight = Math.max(rowHeight, box.h);
    }
    cy.nodes().positions((node) => final.get(node.id()));
    cy.fit(undefined, 20);
    // A few nodes fitted to a large canvas would be drawn huge.
    if (cy.zoom() > FIT_ZOOM_MAX) {
      cy.zoom(FIT_ZOOM_MAX);
      cy.center();
    }
  }

  // The label of a node pointed at or found, readable at any zoom.
  function focusLabel(cy, nodes) {
    nodes.data("focusFont", 13 / cy.zoom());
  }

  // The node a search names: its label exactly, then ignoring case, then starting with the
  // text, then containing it; in the server's order, the most connected first within a kind.
  function find(cy, text) {
    const wanted = text.trim();
    const lower = wanted.toLowerCase();
    if (!wanted) return null;
    const labelled = cy.nodes().map((node) => [node, String(node.data("label"))]);
    const tests = [
      (label) => label === wanted,
      (label) => label.toLowerCase() === lower,
      (label) => label.toLowerCase().startsWith(lower),
      (label) => label.toLowerCase().includes(lower),
    ];
    for (const test of tests) {
      const hit = labelled.find(([, label]) => test(label));
      if (hit) return hit[0];
    }
    return null;
  }

  function searchable(cy, holder, form, hover) {
    const input = form.querySelector("input[type=search]");
    const said = form.querySelector("[data-graph-search-result]");
    const names = form.querySelector("datalist");
    if (names) {
      names.replaceChildren(...cy.nodes().map((node) => {
        const option = document.createElement("option");
        option.value = node.data("label");
        return option;
      }));
    }
    form.hidden = false;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const node = find(cy, input.value);
      if (!node) {
        said.textContent = `No node of this graph is named or contains "${input.value.trim()}".`;
        return;
      }
      cy.nodes(":selected").unselect();
      node.select();
      // Its own centre in the middle (cy.center would take its label into the box).
      const zoom = Math.max(cy.zoom(), FOUND_ZOOM);
      const at = node.position();
      cy.viewport({ zoom, pan: { x: cy.width() / 2 - at.x * zoom, y: cy.height() / 2 - at.y * zoom } });
      focusLabel(cy, node);
      holder.dataset.graphFound = node.id();
      said.textContent = `Centred on ${node.data("label")}.`;
      if (hover) hover.textContent = describe(node.data());
    });
  }

  function destination(holder, node) {
    if (node.kind === "memory") return node.url;
    return holder.dataset.referencingUrl + encodeURIComponent(node.target);
  }

  function describe(node) {
    if (node.kind === "outside") return "A memory outside your reach: you hold no grant on its tier.";
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
    arrange(cy, data);
    cy.on("tap", "node", (event) => {
      window.location.assign(destination(holder, event.target.data()));
    });
    cy.on("mouseover", "node", (event) => {
      if (hover) hover.textContent = describe(event.target.data());
      focusLabel(cy, event.target);
      event.target.addClass("focus");
      holder.classList.add("pointing");
    });
    cy.on("mouseout", "node", (event) => {
      event.target.removeClass("focus");
      holder.classList.remove("pointing");
    });
    cy.on("zoom", () => focusLabel(cy, cy.nodes(".focus, :selected")));
    const search = container.querySelector("[data-graph-search]");
    if (search) searchable(cy, holder, search, hover);
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
