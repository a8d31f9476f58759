// Live pages: the store's changes, made anywhere (another app server, an agent over /v1 or
// MCP), shown as they commit. A page that follows them draws #live (templatetags/live.py);
// its stream is /live/events, an EventSource that resumes from its last event id. When the
// stream cannot be held, the page polls every 30 seconds and says so.
(() => {
  const indicator = document.getElementById("live");
  if (!indicator || !window.EventSource) return;
  const POLL_MS = 30000;
  const SETTLE_MS = 30;  // changes arriving together are drawn together
  const follow = indicator.dataset.liveFollow;
  const streamUrl = new URL(indicator.dataset.liveUrl, location.href);
  let last = Number(streamUrl.searchParams.get("after") || 0);
  let source = null;
  let failures = 0;
  let pollTimer = null;
  let pending = [];
  let settleTimer = null;

  function show(state, words, title) {
    indicator.dataset.state = state;
    indicator.textContent = words;
    indicator.title = title;
  }

  function urlAfter(extra) {
    const url = new URL(streamUrl);
    url.searchParams.set("after", String(last));
    for (const [key, value] of Object.entries(extra || {})) url.searchParams.set(key, value);
    return url;
  }

  function connect() {
    if (source) source.close();
    source = new EventSource(urlAfter());
    source.addEventListener("open", () => {
      failures = 0;
      stopPolling();
      show("live", "live", "Changes made elsewhere appear here as they happen");
    });
    source.addEventListener("change", (event) => {
      last = Number(event.lastEventId) || last;
      receive([JSON.parse(event.data)]);
    });
    source.addEventListener("reset", (event) => {
      last = Number(event.lastEventId) || last;
      receive([{ kind: "reset" }]);
    });
    source.addEventListener("error", () => {
      if (pollTimer) {
        // polling already: this try at the stream failed too, the next poll tries again
        source.close();
        source = null;
        return;
      }
      failures += 1;
      if (source.readyState === EventSource.CLOSED || failures >= 3) {
        source.close();
        source = null;
        startPolling();
      } else {
        show("connecting", "reconnecting…", "The live stream dropped; reconnecting");
      }
    });
  }

  function startPolling() {
    show("polling", "polling every 30 s", "The live stream is down: the page checks for changes every 30 seconds");
    if (!pollTimer) pollTimer = setInterval(poll, POLL_MS);
  }

  function stopPolling() {
    if (pollTimer) clearInterval(pollTimer);
    pollTimer = null;
  }

  // One poll: what came since the last event, as the stream would have sent it, then
  // another try at the stream.
  async function poll() {
    try {
      const answer = await fetch(urlAfter({ once: "1" }), { credentials: "same-origin" });
      if (!answer.ok) return;
      const changes = [];
      for (const block of (await answer.text()).split("\n\n")) {
        const fields = {};
        for (const line of block.split("\n")) {
          const at = line.indexOf(":");
          if (at > 0) fields[line.slice(0, at)] = line.slice(at + 1).trimStart();
        }
        if (fields.id) last = Number(fields.id) || last;
        if (fields.event === "change") changes.push(JSON.parse(fields.data));
        if (fields.event === "reset") changes.push({ kind: "reset" });
      }
      if (changes.length) receive(changes);
      failures = 0;
      connect();
    } catch {
      // the server is away: the next poll tries again
    }
  }

  // A row this page has just written through its own inline edit shows that write already
  // (drawn from its answer, marked saved): its change coming back is not drawn over it.
  const OWN_MS = 5000;
  const ownWrites = new Map();
  // Noted as it is sent: its change may come back on the stream before its answer does.
  document.addEventListener("htmx:beforeRequest", (event) => {
    const form = event.detail.elt;
    if (!form.matches || !form.matches("form.inline-edit")) return;
    const target = (form.getAttribute("hx-target") || "").match(/^#memory-(\d+)$/);
    if (target) ownWrites.set(Number(target[1]), Date.now());
  });
  function ownWrite(change) {
    const at = ownWrites.get(change.memory_id);
    return at !== undefined && Date.now() - at < OWN_MS && change.door === "page";
  }
  // The list drawn again by this page (a bulk action, its undo, a filter): what changed
  // meanwhile is in what it draws, so a burst of changes then is not fetched row by row.
  let resultsAskedAt = 0;
  document.addEventListener("htmx:beforeRequest", (event) => {
    const target = event.detail.target;
    if (target && target.id === "results") resultsAskedAt = Date.now();
  });
  const MANY_ROWS = 20;  // past this, a notice to reload rather than a request a row

  function receive(changes) {
    pending.push(...changes);
    clearTimeout(settleTimer);
    settleTimer = setTimeout(() => {
      const batch = pending;
      pending = [];
      apply(batch).catch(() => {});
    }, SETTLE_MS);
  }

  async function apply(batch) {
    if (follow === "memory") return noteOnMemory(batch);
    if (follow === "list") return swapRows(batch);
    if (follow === "region") return redrawRegion();
  }

  // A page drawn again where it shows what changed: its region, as the page's own URL draws
  // it now (the whole page is asked for, so any page can follow without a fragment of its own).
  async function redrawRegion() {
    const region = document.querySelector(indicator.dataset.liveRegion);
    if (!region) return;
    const answer = await fetch(location.href, { credentials: "same-origin" });
    if (!answer.ok) throw new Error(`status ${answer.status}`);
    const page = new DOMParser().parseFromString(await answer.text(), "text/html");
    const drawn = page.querySelector(indicator.dataset.liveRegion);
    if (!drawn) return;
    region.replaceChildren(...drawn.childNodes);
    if (window.htmx) window.htmx.process(region);
  }

  function revisionLink(change) {
    const link = document.createElement("a");
    link.href = change.revision ? `${indicator.dataset.liveHistory}revisions/${change.revision}/` : indicator.dataset.liveHistory;
    link.textContent = change.kind === "delete" ? "see it" : "compare";
    return link;
  }

  function byWhom(change) {
    const verb = { delete: "Deleted", move: "Moved" }[change.kind] || "Changed";
    return `${verb} by ${change.actor} just now`;
  }

  // A memory's page: a notice that it changed since it was opened, with the change's diff.
  function noteOnMemory(batch) {
    const id = Number(indicator.dataset.liveMemory);
    const mine = batch.filter((change) => change.memory_id === id);
    if (!mine.length) return;
    const change = mine[mine.length - 1];
    const flash = document.getElementById("flash");
    let note = document.getElementById("live-note");
    if (!note) {
      note = document.createElement("div");
      note.id = "live-note";
      note.className = "flash flash-warning live-note";
      note.setAttribute("role", "status");
      flash.append(note);
    }
    note.replaceChildren(`${byWhom(change)}, since you opened this page: `, revisionLink(change), " · ");
    const reload = document.createElement("a");
    reload.href = location.href;
    reload.textContent = "reload";
    note.append(reload);
  }

  // An inline edit under way: a field focused or holding a value not yet sent.
  function beingEdited(row) {
    if (row.contains(document.activeElement) && document.activeElement.matches("input, select")) return true;
    for (const input of row.querySelectorAll("input[type=number]")) {
      if (input.value !== input.defaultValue) return true;
    }
    for (const option of row.querySelectorAll("option")) {
      if (option.selected !== option.defaultSelected) return true;
    }
    return false;
  }

  function mark(row, change, words) {
    row.classList.add("live-changed");
    let line = row.querySelector("tr.live-mark");
    if (!line) {
      line = document.createElement("tr");
      line.className = "live-mark";
      line.innerHTML = '<td colspan="12" role="status"></td>';
      row.append(line);
    }
    line.firstElementChild.replaceChildren(words, " ", revisionLink(change));
  }

  // The row of a memory as the list draws it now, with the band bars (null: not there).
  async function rowNow(change) {
    const url = new URL(`${indicator.dataset.liveRows}${encodeURIComponent(change.name)}/row/`, location.href);
    url.searchParams.set("project", change.project || "");
    const answer = await fetch(url, { credentials: "same-origin", headers: { "HX-Request": "true" } });
    if (answer.status === 404) return null;
    if (!answer.ok) throw new Error(`status ${answer.status}`);
    const holder = document.createElement("template");
    holder.innerHTML = await answer.text();
    return holder.content;
  }

  // The list: each changed row drawn again in place; a row being edited is left as it is
  // and marked, as is one deleted or moved out of reach; a memory the list does not show yet
  // is counted in a notice that redraws the list.
  async function swapRows(batch) {
    if (batch.some((change) => change.kind === "reset" || change.kind.startsWith("project-"))) {
      return notice("The store changed a lot since this page was drawn.");
    }
    const latest = new Map();
    for (const change of batch) if (change.memory_id) latest.set(change.memory_id, change);
    for (const [id, change] of latest) if (ownWrite(change)) latest.delete(id);
    if (latest.size > MANY_ROWS) {
      if (Date.now() - resultsAskedAt < OWN_MS) return;
      return notice(`${latest.size} memories changed since this list was drawn.`);
    }
    let unseen = 0;
    await Promise.all([...latest].map(async ([id, change]) => {
      const row = document.getElementById(`memory-${id}`);
      // A row with a request of its own under way is drawn by its answer.
      if (row && (row.classList.contains("htmx-request") || row.querySelector(".htmx-request"))) return;
      const gone = change.kind === "delete" || change.kind === "purge";
      if (!row) {
        if (!gone) unseen += 1;
        return;
      }
      if (beingEdited(row)) return mark(row, change, `${byWhom(change)}; your edit is kept.`);
      if (gone) return mark(row, change, `${byWhom(change)}.`);
      const drawn = await rowNow(change);
      const fresh = drawn && drawn.getElementById(`memory-${id}`);
      if (!fresh) return mark(row, change, `${byWhom(change)}; it is no longer here.`);
      fresh.classList.add("live-fresh");
      row.replaceWith(fresh);
      if (window.htmx) window.htmx.process(fresh);
      const bands = drawn.getElementById("budget");  // the band bars, drawn with the row
      if (bands && document.getElementById("budget")) {
        bands.removeAttribute("hx-swap-oob");
        document.getElementById("budget").replaceWith(bands);
      }
    }));
    if (unseen) notice(`${unseen} ${unseen === 1 ? "memory" : "memories"} changed that this list does not show yet.`);
  }

  function notice(words) {
    const region = document.querySelector(indicator.dataset.liveRegion);
    let note = document.getElementById("live-note");
    if (!note) {
      note = document.createElement("p");
      note.id = "live-note";
      note.className = "flash flash-info live-note";
      note.setAttribute("role", "status");
      region.before(note);
    }
    const reload = document.createElement("a");
    reload.href = location.href;
    reload.textContent = "Show the list as it is now";
    note.replaceChildren(`${words} `, reload);
  }

  connect();
})();
