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
  // Labels are drawn at one size on screen whatever the zoom; which nodes get one is decided
  // again at each zoom and pan (placeLabels), the nodes that matter first, none overlapping.
  const LABEL_PX = 11;
  const LABEL_MARGIN_PX = 3; // between a node and its label
  // Kept clear around a label: cytoscape counts its outline and a few pixels more in its box.
  const LABEL_PAD_PX = 6;
  const LABEL_MAIN_PX = 13; // the selected node's and the centre's
  const LABEL_MAX_PX = 220; // a longer label is cut short with an ellipsis
  const LABELS_MAX = 250;
  const FONT_FAMILY = "Helvetica Neue, Helvetica, Arial, sans-serif";
  // A canvas is as tall as its picture needs: between these, the stylesheet's height the most.
  const CANVAS_MIN_PX = 160;
  const CANVAS_PAD_PX = 24;

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
      data: {
        ...node,
        size: nodeSize(node),
        labelFont: LABEL_PX,
        labelX: 0,
        labelY: LABEL_MARGIN_PX,
        labelV: "bottom",
        labelH: "center",
        labelOutline: 2,
        labelMax: LABEL_MAX_PX,
      },
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
          label: "",
          "font-family": FONT_FAMILY,
          color: c.text,
          "text-outline-color": c.surface,
          "border-width": 1,
          "border-color": c.surface,
        },
      },
      {
        // Sizes in the graph's units, set for the zoom (placeLabels): the same on screen.
        selector: "node.labelled, node.focus, node:selected",
        style: {
          label: "data(label)",
          "font-size": "data(labelFont)",
          "text-valign": "data(labelV)",
          "text-halign": "data(labelH)",
          "text-margin-x": "data(labelX)",
          "text-margin-y": "data(labelY)",
          "text-outline-width": "data(labelOutline)",
          "text-wrap": "ellipsis",
          "text-max-width": "data(labelMax)",
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
        style: { "border-width": 4, "border-color": c.text, "font-weight": "bold", "z-index": 9 },
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
        // The node pointed at is labelled over the others, larger, on its own background.
        selector: "node.focus",
        style: {
          "font-size": "data(focusFont)",
          "font-weight": "bold",
          "z-index": 10,
          "text-background-color": c.surface,
          "text-background-opacity": 0.9,
          "text-background-padding": 2,
        },
      },
      { selector: "node:selected", style: { "font-weight": "bold", "z-index": 10 } },
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
        // Its starting places drawn in a box of the cluster's own size, not the canvas's:
        // the same layout on any screen.
        boundingBox: { x1: 0, y1: 0, w: 60 * Math.sqrt(ids.length), h: 60 * Math.sqrt(ids.length) },
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
  }

  // The canvas as tall as the picture fitted to its width needs (at most the stylesheet's
  // height, at least CANVAS_MIN_PX: a one-node graph gets a small one), the picture centred
  // below the line describing the node pointed at. A few nodes are not drawn huge.
  function sizeCanvas(cy, holder, hover) {
    const box = cy.nodes().boundingBox({ includeLabels: false });
    const tallest = holder.clientHeight;
    const width = holder.clientWidth;
    const top = (hover ? hover.offsetTop + hover.offsetHeight : 0) + CANVAS_PAD_PX / 2;
    const bottom = LABEL_MARGIN_PX + 2 * LABEL_PX + CANVAS_PAD_PX;
    // Room for the outermost labels, less of it on a narrow screen.
    const side = CANVAS_PAD_PX + Math.min(LABEL_MAX_PX / 4, width / 20);
    const zoom = Math.min(
      FIT_ZOOM_MAX,
      Math.max(width - 2 * side, 1) / Math.max(box.w, 1),
      Math.max(tallest - top - bottom, 1) / Math.max(box.h, 1),
    );
    const height = Math.max(CANVAS_MIN_PX, Math.min(tallest, Math.ceil(box.h * zoom + top + bottom)));
    holder.classList.add("is-sized");
    holder.style.height = `${height}px`;
    cy.resize();
    cy.viewport({
      zoom,
      pan: {
        x: (width - box.w * zoom) / 2 - box.x1 * zoom,
        y: top + (height - top - bottom - box.h * zoom) / 2 - box.y1 * zoom,
      },
    });
  }

  // The order nodes are offered a label in: the selected node and the graph's centre, their
  // neighbours, then the most cited (references in), the most connected among equals.
  function labelOrder(cy, data) {
    const cited = new Map();
    for (const edge of data.edges) {
      if (edge.source !== edge.target) cited.set(edge.target, (cited.get(edge.target) || 0) + 1);
    }
    // Ties go by label: the same store is labelled the same whatever order its nodes came in.
    const byLabel = (a, b) => {
      const [x, y] = [String(a.data("label")), String(b.data("label"))];
      return x < y ? -1 : x > y ? 1 : 0;
    };
    const rank = (a, b) =>
      (cited.get(b.id()) || 0) - (cited.get(a.id()) || 0) ||
      b.data("degree") - a.data("degree") ||
      byLabel(a, b);
    const first = cy.nodes(".centre, :selected");
    const near = first.neighborhood("node").difference(first);
    const rest = cy.nodes().difference(first).difference(near);
    return [...first.toArray(), ...near.toArray().sort(rank), ...rest.toArray().sort(rank)];
  }

  const measurer = document.createElement("canvas").getContext("2d");

  // A label's width on screen at `px`, as cytoscape measures it (the same font).
  function labelWidth(node, px, bold) {
    const key = `labelWidth${px}${bold ? "b" : ""}`;
    let width = node.scratch(key);
    if (width === undefined) {
      measurer.font = `normal ${bold ? "bold" : "normal"} ${px}px ${FONT_FAMILY}`;
      width = Math.min(measurer.measureText(String(node.data("label"))).width, LABEL_MAX_PX);
      node.scratch(key, width);
    }
    return width;
  }

  const overlaps = (a, b) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;

  // Where a label may go beside its node, the first that is free: below, right, left, above.
  // Each gives the label's box on screen from the node's centre (x, y), its radius r, the
  // label's width w and height h, and the label's place as cytoscape is told it.
  const PLACES = [
    { v: "bottom", h: "center", box: (x, y, r, w, h) => [x - w / 2, y + r, x + w / 2, y + r + h] },
    { v: "center", h: "right", box: (x, y, r, w, h) => [x + r, y - h / 2, x + r + w, y + h / 2] },
    { v: "center", h: "left", box: (x, y, r, w, h) => [x - r - w, y - h / 2, x - r, y + h / 2] },
    { v: "top", h: "center", box: (x, y, r, w, h) => [x - w / 2, y - r - h, x + w / 2, y - r] },
  ];
  const MARGINS = { bottom: [0, 1], right: [1, 0], left: [-1, 0], top: [0, -1] };

  // Label the nodes that matter most, in `order`, each at the first place beside it where it
  // is on screen and overlaps no label already placed; a node with no such place is left
  // unlabelled at this zoom.
  function placeLabels(cy, order) {
    const zoom = cy.zoom();
    const width = cy.width();
    const height = cy.height();
    const taken = [];
    const chosen = [];
    for (const node of order) {
      if (chosen.length >= LABELS_MAX) break;
      const main = node.selected() || node.hasClass("centre");
      const px = main ? LABEL_MAIN_PX : LABEL_PX;
      const at = node.renderedPosition();
      const r = (node.data("size") * zoom) / 2 + LABEL_MARGIN_PX - LABEL_PAD_PX;
      const w = labelWidth(node, px, main) + 2 * LABEL_PAD_PX;
      const h = px * 1.25 + 2 * LABEL_PAD_PX;
      for (const place of PLACES) {
        const [x1, y1, x2, y2] = place.box(at.x, at.y, r, w, h);
        const box = { x1, y1, x2, y2 };
        if (x1 < 0 || x2 > width || y1 < 0 || y2 > height) continue;
        if (taken.some((other) => overlaps(box, other))) continue;
        taken.push(box);
        chosen.push([node, px, place]);
        break;
      }
    }
    cy.batch(() => {
      cy.nodes(".labelled").removeClass("labelled");
      for (const [node, px, place] of chosen) {
        const [mx, my] = MARGINS[place.v === "center" ? place.h : place.v];
        node.data({
          labelFont: px / zoom,
          labelX: (mx * LABEL_MARGIN_PX) / zoom,
          labelY: (my * LABEL_MARGIN_PX) / zoom,
          labelV: place.v,
          labelH: place.h,
          labelOutline: 2 / zoom,
          labelMax: LABEL_MAX_PX / zoom,
        });
        node.addClass("labelled");
      }
    });
  }

  function keepLabelled(cy, data) {
    let order = labelOrder(cy, data);
    let pending = false;
    const relabel = () => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        placeLabels(cy, order);
      });
    };
    placeLabels(cy, order);
    cy.on("viewport resize", relabel);
    cy.on("select unselect", "node", () => {
      order = labelOrder(cy, data);
      relabel();
    });
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
    sizeCanvas(cy, holder, hover);
    keepLabelled(cy, data);
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
