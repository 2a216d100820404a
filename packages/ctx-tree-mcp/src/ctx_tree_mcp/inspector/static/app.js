// ctx-tree inspector: plain JavaScript over the JSON API (docs/inspector.md). Nothing is
// fetched from anywhere but this server; every request carries the run's token.
"use strict";

const TOKEN = new URLSearchParams(location.search).get("token") || "";
const KINDS = ["session", "file_chunk", "tool_output", "note", "summary", "observation",
  "web_chunk", "prompt", "thinking", "response"];
const STATUSES = ["pending", "live", "stale", "superseded", "pruned"];
const STATUS_COLORS = { pending: "#b8860b", live: "#2e8b57", stale: "#c0562b",
  superseded: "#7b68a6", pruned: "#8a8f94" };
const POLL_MS = 1500;

// seen: ids already shown in the spine, so a refresh can mark the new ones.
const state = { tab: "spine", node: null, expanded: new Map(), version: null, charts: {}, seen: new Set() };

// -- helpers ---------------------------------------------------------------------------------
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "data") Object.assign(e.dataset, v);
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}
const $ = (sel) => document.querySelector(sel);

async function api(path, params) {
  const url = new URL("api/" + path, location.href);
  url.search = "";
  for (const [k, v] of Object.entries(params || {})) {
    for (const item of [].concat(v)) if (item !== "" && item !== null && item !== undefined) url.searchParams.append(k, item);
  }
  const res = await fetch(url, { headers: { "X-Ctx-Tree-Token": TOKEN }, cache: "no-store" });
  const body = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

function when(ms) {
  if (!ms) return "";
  const d = new Date(ms), p = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
function num(n) {
  n = Number(n || 0);
  if (n >= 1e6) return (n / 1e6).toFixed(1) + "M";
  if (n >= 1e4) return (n / 1e3).toFixed(0) + "k";
  if (n >= 1e3) return (n / 1e3).toFixed(1) + "k";
  return String(n);
}
// The end of a long label (file name, lines, symbol) says more than its start.
const tail = (s, n) => (s.length > n ? "…" + s.slice(s.length - n + 1) : s);
const clip = (s, n = 240) => (s.length > n ? s.slice(0, n - 1) + "…" : s);
const badge = (status) => el("span", { class: `badge s-${status}` }, status);
function nodeLink(row, text) {
  return el("a", { class: "node-link", data: { id: row.id }, onclick: (ev) => { ev.stopPropagation(); openNode(row.id); } },
    text || row.label || row.id);
}
function showError(where, err) {
  where.replaceChildren(el("p", { class: "error" }, String(err.message || err)));
}

// A listing row: kind, label, status, size (tokens), time.
function rowEl(row, opts) {
  const o = opts || {};
  let label = row.label || row.id;
  if (o.nested && row.kind === "file_chunk") {
    // under its file root a chunk needs only "file.py:10-20 symbol"
    const colon = label.indexOf(":");
    label = label.slice(label.lastIndexOf("/", colon < 0 ? label.length : colon) + 1);
  }
  const cells = [
    el("span", { class: "kind" }, row.kind),
    el("span", { class: "label", title: row.label }, row.withheld ? "(withheld: file now on the denylist) " : "", tail(label, 44)),
    el("span", {}, badge(row.status)),
    el("span", { class: "size", title: `${row.chars} characters stored${row.truncated ? `, cut from ${row.original_bytes} bytes` : ""}` },
      `${num(row.tokens)} tok${row.truncated ? " ✂" : ""}`),
    el("span", { class: "time", title: `created ${when(row.created_at)}, updated ${when(row.updated_at)}` }, when(row.created_at).slice(5, 16)),
  ];
  if (o.twisty) cells.unshift(o.twisty);
  const div = el("div", { class: "row" + (row.id === state.node ? " sel" : ""), data: { id: row.id }, onclick: () => openNode(row.id) }, cells);
  if (o.snippet) div.append(el("div", { class: "snippet" }, o.snippet));
  return div;
}

// -- spine -----------------------------------------------------------------------------------
function spineFilters() {
  return { kind: $("#f-kind").value, status: $("#f-status").value };
}

// One expandable level: rows of `parent` ("" for the roots), a "more" button for the next page.
async function renderLevel(container, parent, opts) {
  const o = opts || {};
  const order = o.order || "newest";
  const limit = Math.min(200, Math.max(50, o.shown || 0));
  const params = { parent, order, limit, ...(parent ? spineFilters() : {}) };
  let page;
  try { page = await api("children", params); } catch (err) { showError(container, err); return; }
  const fresh = o.refresh ? page.rows.filter((r) => !state.seen.has(r.id)).map((r) => r.id) : [];
  for (const r of page.rows) state.seen.add(r.id);
  const items = page.rows.map((row) => nodeItem(row, fresh.includes(row.id)));
  container.replaceChildren(...items);
  if (!page.rows.length) container.append(el("div", { class: "muted more" }, parent ? "no nodes match the filters" : "the store is empty"));
  addMore(container, page.next, params);
  for (const item of items) {
    const id = item.dataset.id;
    if (state.expanded.has(id)) expand(item, true);
  }
}

function addMore(container, next, params) {
  if (!next) return;
  const btn = el("button", { class: "more", onclick: async () => {
    btn.disabled = true;
    const page = await api("children", { ...params, after: next });
    btn.remove();
    for (const row of page.rows) { state.seen.add(row.id); container.append(nodeItem(row, false)); }
    addMore(container, page.next, params);
  } }, "more…");
  container.append(btn);
}

function nodeItem(row, fresh) {
  const item = el("div", { class: "node", data: { id: row.id } });
  const twisty = el("button", { class: "twisty", title: row.has_children ? "expand" : "",
    onclick: (ev) => { ev.stopPropagation(); if (row.has_children) toggle(item); } }, row.has_children ? "▸" : "·");
  const r = rowEl(row, { twisty, nested: !!row.parent_id });
  if (fresh) r.classList.add("fresh");
  item.append(r);
  item.dataset.kind = row.kind;
  return item;
}

function toggle(item) {
  const id = item.dataset.id;
  if (state.expanded.has(id)) {
    state.expanded.delete(id);
    item.querySelector(":scope > .children")?.remove();
    item.querySelector(":scope > .row .twisty").textContent = "▸";
  } else {
    state.expanded.set(id, true);
    expand(item, false);
  }
}

function expand(item, refresh) {
  let box = item.querySelector(":scope > .children");
  const shown = box ? box.querySelectorAll(":scope > .node").length : 0;
  if (!box) { box = el("div", { class: "children" }); item.append(box); }
  item.querySelector(":scope > .row .twisty").textContent = "▾";
  // A session lists its newest captures first; a file root its chunks in file order.
  const order = item.dataset.kind === "session" ? "newest" : "spine";
  return renderLevel(box, item.dataset.id, { order, shown, refresh });
}

function loadSpine(refresh) { return renderLevel($("#spine"), "", { refresh, shown: $("#spine").querySelectorAll(":scope > .node").length }); }

// -- node ------------------------------------------------------------------------------------
async function openNode(id, keepScroll) {
  state.node = id;
  document.querySelectorAll(".row.sel").forEach((r) => r.classList.remove("sel"));
  document.querySelectorAll(`.row[data-id="${CSS.escape(id)}"]`).forEach((r) => r.classList.add("sel"));
  const aside = $("#node");
  const top = aside.scrollTop;
  let n;
  try { n = await api("node/" + encodeURIComponent(id)); } catch (err) { showError(aside, err); return; }
  const meta = el("dl", {},
    ...[["id", n.id], ["kind", n.kind], ["status", n.status], ["source", n.source_uri || ""],
      ["size", `${n.chars} chars (${n.tokens} tokens)${n.truncated ? `, cut from ${n.original_bytes} bytes` : ""}`],
      ["created", when(n.created_at)], ["updated", when(n.updated_at)], ["children", n.children],
      ...Object.entries(n.metadata || {}).map(([k, v]) => [k, clip(typeof v === "object" ? JSON.stringify(v) : String(v))])]
      .flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
  const edges = n.edges.length ? el("div", { class: "scroll" }, el("table", { class: "grid", id: "edges" },
    el("thead", {}, el("tr", {}, el("th", {}, "way"), el("th", {}, "kind"), el("th", {}, "node"))),
    el("tbody", {}, n.edges.map((e) => el("tr", { data: { direction: e.direction, kind: e.kind, other: e.other_id } },
      el("td", {}, e.direction === "out" ? "→ out" : "← in"), el("td", {}, e.kind),
      el("td", {}, e.other ? nodeLink(e.other) : `${e.other_id} (gone)`))))))
    : el("p", { class: "muted", id: "edges" }, "no edges");
  const crumbs = el("div", { class: "crumbs", id: "path" }, n.path.map((r) => nodeLink(r)));
  aside.replaceChildren(...[
    el("h2", {}, n.label || n.id), el("div", {}, badge(n.status), " ", el("span", { class: "muted" }, n.kind),
      " ", el("button", { onclick: () => composeFrom(n.id) }, "compose from here")),
    el("h3", {}, "Content"),
    n.withheld ? el("p", { class: "muted" }, "withheld: the file is now on the denylist")
      : el("pre", { id: "content" }, n.content || "(empty)"),
    n.content_cut ? el("p", { class: "muted" }, `${n.content_cut} more characters not shown`) : null,
    el("h3", {}, "Path to root"), crumbs,
    el("h3", {}, `Edges (${n.edges.length})`), edges,
    el("h3", {}, `Neighbours (${n.neighbors.length})`), graph(n),
    el("h3", {}, "Metadata"), meta].filter(Boolean));
  if (keepScroll) aside.scrollTop = top;
}

// The node in the middle, its one-hop neighbours on a circle, each line labelled by how it
// is linked (parent, child, <edge kind>:out / :in).
function graph(n) {
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("class", "graph");
  svg.setAttribute("viewBox", "0 0 600 300");
  const mk = (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const cx = 300, cy = 150, nb = n.neighbors, count = nb.length;
  const short = (s) => tail(s, 24);
  // Many neighbours: only the lateral ones (edges, parent) get a caption; hover names the rest.
  const captioned = (r) => count <= 12 || r.via !== "child";
  nb.forEach((r, i) => {
    const a = (2 * Math.PI * i) / Math.max(1, count) - Math.PI / 2;
    const x = cx + Math.cos(a) * 230, y = cy + Math.sin(a) * 110;
    svg.append(mk("line", { x1: cx, y1: cy, x2: x, y2: y }));
    if (captioned(r)) svg.append(mk("text", { class: "via", x: (cx + x) / 2, y: (cy + y) / 2, "text-anchor": "middle" }, r.via));
  });
  nb.forEach((r, i) => {
    const a = (2 * Math.PI * i) / Math.max(1, count) - Math.PI / 2;
    const x = cx + Math.cos(a) * 230, y = cy + Math.sin(a) * 110;
    const g = mk("g", { class: "nb", "data-id": r.id });
    g.append(mk("title", {}, `${r.kind} ${r.label}`));
    g.append(mk("circle", { cx: x, cy: y, r: 7, fill: STATUS_COLORS[r.status] || "#888" }));
    if (captioned(r)) g.append(mk("text", { x, y: y + (y < cy ? -12 : 18), "text-anchor": "middle" }, short(r.label || r.kind)));
    g.addEventListener("click", () => openNode(r.id));
    svg.append(g);
  });
  const c = mk("g", { class: "center" });
  c.append(mk("circle", { cx, cy, r: 10, fill: STATUS_COLORS[n.status] || "#888" }));
  c.append(mk("text", { x: cx, y: cy + 24, "text-anchor": "middle" }, short(n.label || n.kind)));
  svg.append(c);
  return svg;
}

// -- search ----------------------------------------------------------------------------------
async function runSearch() {
  const q = $("#q").value.trim();
  const out = $("#search-results");
  if (!q) { out.replaceChildren(); return; }
  try {
    const res = await api("search", { q, limit: 50, mode: $("#q-mode").value });
    $("#search-mode").textContent = `${res.hits.length} hits · ${res.mode}`;
    $("#search-notes").textContent = res.notes.join(" · ");
    out.replaceChildren(...res.hits.map((h) => rowEl(h, { snippet: h.snippet.replace(/\s+/g, " ") })));
    if (!res.hits.length) out.append(el("p", { class: "muted" }, "no hits"));
  } catch (err) { showError(out, err); }
}

// -- recent ----------------------------------------------------------------------------------
async function loadRecent() {
  const out = $("#recent");
  let page;
  try { page = await api("recent", { limit: 100, hours: 48 }); } catch (err) { showError(out, err); return; }
  const rows = [];
  let group = "";
  const appendRows = (list) => {
    for (const r of list) {
      const hour = when(r.created_at).slice(0, 13) + ":00";
      if (hour !== group) { group = hour; rows.push(el("div", { class: "group" }, hour)); }
      rows.push(rowEl(r));
    }
  };
  appendRows(page.rows);
  out.replaceChildren(...rows);
  let next = page.next;
  const more = () => {
    if (!next) return;
    const btn = el("button", { class: "more", onclick: async () => {
      const p = await api("recent", { limit: 100, after: next });
      btn.remove(); next = p.next;
      const before = rows.length; appendRows(p.rows); out.append(...rows.slice(before)); more();
    } }, "older…");
    out.append(btn);
  };
  more();
  chart("activity", "bar", {
    labels: page.activity.map(([t]) => when(t).slice(5, 13) + "h"),
    datasets: [{ label: "nodes captured per hour (last 48 h)", data: page.activity.map(([, c]) => c), backgroundColor: "#2f6fb3" }],
  });
}

// -- walkers ---------------------------------------------------------------------------------
async function loadWalkers() {
  let res;
  try { res = await api("walkers", { limit: 500 }); } catch (err) { showError($("#walker-note"), err); return; }
  $("#walker-now").replaceChildren(...STATUSES.map((s) => el("div", { class: "chip" }, el("b", {}, num(res.now[s] || 0)), badge(s))));
  const runs = res.runs.slice().reverse();
  chart("walkers", "line", {
    labels: runs.map((r) => when(r.finished_at).slice(5)),
    datasets: STATUSES.map((s) => ({ label: s, data: runs.map((r) => r.status_counts[s] || 0), borderColor: STATUS_COLORS[s], backgroundColor: STATUS_COLORS[s], pointRadius: 2, tension: 0.2 })),
  }, { scales: { y: { beginAtZero: true } } });
  $("#walker-note").textContent = res.runs.length
    ? "Node counts by status after each recorded walker run (a run is recorded when it changed something)."
    : "No walker run has changed anything yet (runs are recorded when they promote, drop, mark stale, prune or delete nodes).";
  $("#walker-runs tbody").replaceChildren(...res.runs.slice(0, 50).map((r) => el("tr", {},
    el("td", {}, when(r.finished_at)), el("td", {}, r.walker),
    el("td", {}, r.summary), el("td", { class: "num" }, `${r.finished_at - r.started_at} ms`))));
}

// -- savings ---------------------------------------------------------------------------------
async function loadSavings() {
  let res;
  try { res = await api("savings", { days: 30 }); } catch (err) { showError($("#savings-totals"), err); return; }
  const t = res.totals;
  const share = t.tokens_source ? Math.round((100 * t.tokens_served) / t.tokens_source) : null;
  $("#savings-totals").replaceChildren(
    el("div", { class: "chip" }, el("b", {}, num(t.tokens_served)), "tokens served (all time)"),
    el("div", { class: "chip" }, el("b", {}, num(t.tokens_source)), "tokens of the sources"),
    el("div", { class: "chip" }, el("b", {}, share === null ? "–" : share + "%"), "served / sources"));
  const pair = (rows, key) => ({
    labels: rows.map((r) => r[key]),
    datasets: [
      { label: "tokens served", data: rows.map((r) => r.tokens_served || 0), backgroundColor: "#2f6fb3" },
      { label: "tokens of the sources", data: rows.map((r) => r.tokens_source || 0), backgroundColor: "#c9ced3" },
    ],
  });
  chart("days", "bar", pair(res.days, "day"), { plugins: { title: { display: true, text: `per day since ${res.since}` } } });
  chart("tools", "bar", pair(res.tools, "tool"), { plugins: { title: { display: true, text: "per tool, same days" } } });
}

function chart(name, type, data, options) {
  if (!window.Chart) return;
  const old = state.charts[name];
  if (old) { old.data = data; old.update("none"); return; }
  state.charts[name] = new window.Chart($("#chart-" + name), {
    type, data,
    options: { animation: false, maintainAspectRatio: false, responsive: true, ...(options || {}) },
  });
}

// -- compose ---------------------------------------------------------------------------------
function composeFrom(id) {
  $("#c-seeds").value = id;
  switchTab("compose");
  runCompose();
}

async function runCompose() {
  const out = $("#compose-out");
  const seeds = $("#c-seeds").value.split(/[\s,]+/).filter(Boolean);
  try {
    const res = await api("compose", { seed: seeds, query: $("#c-query").value, budget: $("#c-budget").value, depth: $("#c-depth").value });
    const line = (r, what, extra) => el("tr", { data: { id: r.id, what } },
      el("td", {}, what), el("td", {}, r.kind ? nodeLink(r) : r.id), el("td", { class: "num" }, r.score.toFixed(3)),
      el("td", { class: "num" }, num(r.cost)), el("td", {}, extra || ""));
    const rows = [
      ...res.included.map((r) => line(r, "included")),
      ...(res.truncated ? [line(res.truncated, "truncated", `kept ${res.truncated.kept} of ${res.truncated.cost} tokens`)] : []),
      ...res.dropped.map((r) => line(r, "dropped", r.reason)),
    ];
    out.replaceChildren(
      el("p", {}, `${res.included.length} included, ${res.truncated ? 1 : 0} truncated, ${res.dropped.length} dropped · `,
        `${num(res.used)} of ${num(res.budget)} tokens`, res.capped ? " · candidates capped" : ""),
      el("table", { class: "grid", id: "manifest" },
        el("thead", {}, el("tr", {}, ...["", "node", "score", "tokens", ""].map((h) => el("th", {}, h)))),
        el("tbody", {}, rows)));
  } catch (err) { showError(out, err); }
}

// -- tabs, refresh ---------------------------------------------------------------------------
const loaders = { spine: () => loadSpine(true), search: runSearch, recent: loadRecent, walkers: loadWalkers, savings: loadSavings, compose: () => null };

function switchTab(tab) {
  state.tab = tab;
  document.querySelectorAll("#tabs button").forEach((b) => b.classList.toggle("on", b.dataset.tab === tab));
  document.querySelectorAll(".view").forEach((v) => v.classList.toggle("on", v.id === "view-" + tab));
  if (tab !== "spine" && tab !== "compose") loaders[tab]();
}

async function loadSummary() {
  const s = await api("summary");
  state.version = s.version;
  $("#store").replaceChildren(el("b", {}, s.root), `  ·  ${num(s.nodes)} nodes · ${(s.size_bytes / 1e6).toFixed(1)} MB · `, el("span", { title: s.store }, s.store));
  $("#store").title = s.store;
  return s;
}

async function poll() {
  try {
    const v = await api("version");
    $("#live").classList.remove("error");
    if (v.version !== state.version) {
      state.version = v.version;
      await loadSummary();
      await loaders[state.tab]();
      if (state.node) await openNode(state.node, true);
      $("#live-text").textContent = "updated " + when(Date.now()).slice(11);
    }
  } catch (err) {
    $("#live").classList.add("error");
    $("#live-text").textContent = "not reachable";
  }
  setTimeout(poll, POLL_MS);
}

function init() {
  for (const k of KINDS) $("#f-kind").append(el("option", { value: k }, k));
  for (const s of STATUSES) $("#f-status").append(el("option", { value: s }, s));
  $("#f-kind").addEventListener("change", () => loadSpine(false));
  $("#f-status").addEventListener("change", () => loadSpine(false));
  document.querySelectorAll("#tabs button").forEach((b) => b.addEventListener("click", () => switchTab(b.dataset.tab)));
  $("#search-form").addEventListener("submit", (ev) => { ev.preventDefault(); runSearch(); });
  $("#compose-form").addEventListener("submit", (ev) => { ev.preventDefault(); runCompose(); });
  loadSummary().then(() => loadSpine(false)).then(() => { document.body.dataset.ready = "1"; setTimeout(poll, POLL_MS); })
    .catch((err) => showError($("#spine"), err));
}

document.addEventListener("DOMContentLoaded", init);
