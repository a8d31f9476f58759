// memadmin's few behaviours beyond htmx. Loaded as a static file: the CSP forbids inline script.
"use strict";

document.documentElement.classList.add("js");

function showFlash(text) {
  const area = document.getElementById("flash");
  if (!area) return;
  const message = document.createElement("p");
  message.className = "flash flash-error";
  message.setAttribute("role", "alert");
  message.textContent = text;
  area.replaceChildren(message);
}

// A 5xx, or no answer at all: htmx swaps nothing, so say so where messages appear.
document.addEventListener("htmx:responseError", (event) => {
  const status = event.detail.xhr ? event.detail.xhr.status : 0;
  showFlash(`The server failed to answer that request (HTTP ${status}); nothing on this page changed. Try again.`);
});
document.addEventListener("htmx:sendError", () => {
  showFlash("The server could not be reached; nothing on this page changed. Check the connection and try again.");
});

// Screen readers hear that a region is being redrawn (the bar at the top shows it to eyes).
document.addEventListener("htmx:beforeRequest", (event) => {
  const target = event.detail.target;
  if (target) target.setAttribute("aria-busy", "true");
});
document.addEventListener("htmx:afterRequest", (event) => {
  const target = event.detail.target;
  if (target) target.removeAttribute("aria-busy");
});

// The main menu: one group open at a time, Escape or a click elsewhere closes it, and on
// narrow screens the Menu button folds the whole bar (without script it stays unfolded).
const menuGroups = () => document.querySelectorAll(".site-nav details");
document.addEventListener("click", (event) => {
  const toggle = event.target.closest(".nav-toggle");
  if (toggle) {
    const open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(open));
    document.getElementById(toggle.getAttribute("aria-controls")).classList.toggle("is-open", open);
    return;
  }
  // A summary's click (Enter on it is one too) opens its group: close the others.
  const within = event.target.closest(".site-nav details");
  for (const group of menuGroups()) if (group !== within) group.open = false;
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  for (const group of menuGroups()) {
    if (!group.open) continue;
    group.open = false;
    group.querySelector("summary").focus();
  }
});

// The row checkboxes of the list and their "select every row on this page" box.
document.addEventListener("change", (event) => {
  const box = event.target;
  if (box.matches("[data-select-all]")) {
    for (const row of document.querySelectorAll('input[name="id"][form="bulk"]')) {
      row.checked = box.checked;
    }
  }
});

// Enter in an inline edit sends it once: without this the browser's implicit submission and
// the change event would each send it.
document.addEventListener("keydown", (event) => {
  const input = event.target;
  if (event.key !== "Enter" || !input.closest || !input.closest("form.inline-edit")) return;
  event.preventDefault();
  input.closest("form").requestSubmit();
});

// The bulk bar shows the value input its chosen action needs, and only that one.
function syncBulkInputs() {
  const action = document.querySelector("[data-bulk-action]");
  if (!action) return;
  for (const holder of document.querySelectorAll("[data-bulk-for]")) {
    const wanted = holder.dataset.bulkFor.split(" ").includes(action.value);
    holder.hidden = !wanted;
    for (const input of holder.querySelectorAll("input, select")) input.disabled = !wanted;
  }
}
document.addEventListener("change", (event) => {
  if (event.target.matches("[data-bulk-action]")) syncBulkInputs();
});
document.addEventListener("DOMContentLoaded", syncBulkInputs);
document.addEventListener("htmx:afterSettle", syncBulkInputs);

// Copy buttons: data-copy names the element whose text goes to the clipboard.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const source = document.querySelector(button.dataset.copy);
  if (!source) return;
  const label = button.textContent;
  try {
    await navigator.clipboard.writeText(source.textContent);
    button.textContent = "Copied";
  } catch {
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    button.textContent = "Selected: press Ctrl+C";
  }
  setTimeout(() => { button.textContent = label; }, 2000);
});

// The search box keeps one empty box for a synonym: a search typed and sent by htmx redraws
// only the results, so the box the full page would draw after the filled ones is added here.
function ensureSynonymBox() {
  const inputs = document.querySelectorAll("#filters .search-input");
  if (!inputs.length || [...inputs].some((input) => input.value.trim() === "")) return;
  const last = inputs[inputs.length - 1];
  const number = inputs.length + 1;
  const or = document.createElement("span");
  or.className = "muted";
  or.setAttribute("aria-hidden", "true");
  or.textContent = "or";
  const label = document.createElement("label");
  label.className = "visually-hidden";
  label.htmlFor = `f-q-${number}`;
  label.textContent = "or, a synonym";
  const box = last.cloneNode(false);
  box.id = `f-q-${number}`;
  box.value = "";
  box.placeholder = "a synonym";
  last.after(or, label, box);
}
document.addEventListener("htmx:afterSettle", (event) => {
  if (event.detail.target && event.detail.target.id === "results") ensureSynonymBox();
});

// A refused bulk action changes nothing, so the bar comes back as it was sent (the scope, the
// action and its value, the rows selected), ready to be corrected and sent again; the list
// redrawn around it would otherwise reset them.
// getAttribute: the form's `id` property is its controls named "id", the row checkboxes.
const sentByBulkBar = (event) => {
  const config = event.detail.requestConfig;
  return Boolean(config && config.elt && config.elt.getAttribute("id") === "bulk");
};
let bulkSent = null;
document.addEventListener("htmx:beforeRequest", (event) => {
  if (!sentByBulkBar(event)) return;
  const form = event.detail.requestConfig.elt;
  bulkSent = {
    scope: form.querySelector('input[name="scope"]:checked')?.value,
    controls: [...form.querySelectorAll(".bulk-controls [id]")].map((input) => [input.id, input.value]),
    ids: [...document.querySelectorAll('input[name="id"][form="bulk"]:checked')].map((box) => box.value),
  };
});
document.addEventListener("htmx:afterSettle", (event) => {
  const sent = bulkSent;
  if (!sent || !sentByBulkBar(event)) return;
  bulkSent = null;
  const form = document.getElementById("bulk");
  if (!form || !event.detail.xhr || event.detail.xhr.status < 400) return;
  const scope = form.querySelector(`input[name="scope"][value="${sent.scope}"]`);
  if (scope) scope.checked = true;
  for (const [id, value] of sent.controls) {
    const input = document.getElementById(id);
    if (input && form.contains(input)) input.value = value;
  }
  for (const box of document.querySelectorAll('input[name="id"][form="bulk"]')) {
    box.checked = sent.ids.includes(box.value);
  }
  syncBulkInputs();
});

// A field with a length limit shows how much of it is used, and says so past it (the form
// refuses it then; the browser is not let to cut a paste short: forms.CountedCharField).
function countChars(field) {
  let counter = field.parentElement.querySelector(".char-count");
  if (!counter) {
    counter = document.createElement("p");
    counter.className = "help char-count";
    counter.setAttribute("aria-live", "polite");
    field.insertAdjacentElement("afterend", counter);
  }
  const limit = Number(field.dataset.maxChars);
  const used = field.value.length;
  counter.textContent = used > limit
    ? `${used} characters: ${used - limit} over the limit of ${limit}`
    : `${used} of ${limit} characters`;
  counter.classList.toggle("over", used > limit);
}
document.addEventListener("input", (event) => {
  if (event.target.matches && event.target.matches("[data-max-chars]")) countChars(event.target);
});
function countAll() {
  for (const field of document.querySelectorAll("[data-max-chars]")) countChars(field);
}
document.addEventListener("DOMContentLoaded", countAll);
document.addEventListener("htmx:afterSettle", countAll);

// The bulk bar counts the rows it would act on: those ticked, or every match when so scoped.
function countSelected() {
  const counter = document.querySelector("[data-bulk-count]");
  if (!counter) return;
  const selected = document.querySelectorAll('input[name="id"][form="bulk"]:checked').length;
  const matching = document.querySelector('#bulk input[name="scope"][value="matching"]');
  counter.textContent = matching && matching.checked
    ? "every match"
    : `${selected} selected`;
  counter.classList.toggle("has-selection", selected > 0 || Boolean(matching && matching.checked));
}
document.addEventListener("change", (event) => {
  if (event.target.matches('input[form="bulk"], [data-select-all], #bulk input[name="scope"]')) {
    countSelected();
  }
});
document.addEventListener("DOMContentLoaded", countSelected);
document.addEventListener("htmx:afterSettle", countSelected);

// A long cell clamped to a few lines gets a "more" button, only where its text goes on.
function offerMore(root) {
  for (const cell of root.querySelectorAll(".clamp")) {
    const toggle = cell.nextElementSibling && cell.nextElementSibling.matches(".clamp-toggle")
      ? cell.nextElementSibling
      : null;
    if (cell.classList.contains("is-open")) continue;
    const cut = cell.scrollHeight > cell.clientHeight + 1;
    if (cut && !toggle) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "clamp-toggle";
      button.textContent = "more";
      button.setAttribute("aria-expanded", "false");
      cell.after(button);
    } else if (!cut && toggle) {
      toggle.remove();
    }
  }
}
document.addEventListener("click", (event) => {
  const button = event.target.closest(".clamp-toggle");
  if (!button) return;
  const cell = button.previousElementSibling;
  const open = cell.classList.toggle("is-open");
  button.textContent = open ? "less" : "more";
  button.setAttribute("aria-expanded", String(open));
});
document.addEventListener("DOMContentLoaded", () => offerMore(document));
document.addEventListener("htmx:afterSettle", () => offerMore(document));
let offerTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(offerTimer);
  offerTimer = setTimeout(() => offerMore(document), 150);
});

// Unticking a column hides it at once; htmx keeps the choice with the account meanwhile.
document.addEventListener("change", (event) => {
  const form = event.target.closest("[data-columns]");
  if (!form) return;
  const hidden = [...form.querySelectorAll('input[name="show"]')]
    .filter((box) => !box.checked)
    .map((box) => box.value);
  for (const table of document.querySelectorAll("table.memories")) {
    table.dataset.hidden = hidden.join(" ");
  }
  const summary = form.closest("details").querySelector("summary");
  summary.textContent = "Columns";
  if (hidden.length) {
    const note = document.createElement("span");
    note.className = "muted";
    note.textContent = ` (${hidden.length} hidden)`;
    summary.append(note);
  }
  offerMore(document);
});
