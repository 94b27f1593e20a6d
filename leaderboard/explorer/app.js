/* srbf results explorer: the URL state, DOM helpers, navigation (boot.js loads the data).
 *
 * Every number shown was computed by srbf before the page was built (srbf.site.analysis): this file
 * only selects, orders by the precomputed orders and formats. Every string from the data goes into
 * the page as text (h() below never parses HTML); plot labels go through esc(). */
"use strict";

/* Column-oriented tables ({columns, data}) as arrays of objects, converted once. */
const ROWS = new WeakMap();
function rows(table) {
  if (!table || !table.columns) return [];
  if (!ROWS.has(table)) {
    ROWS.set(table, table.data.map((r) => Object.fromEntries(table.columns.map((c, i) => [c, r[i]]))));
  }
  return ROWS.get(table);
}

/* An element: h("td", {class: "num", onclick: f}, "text", child). Children are text or nodes, never HTML. */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/* Text for plotly, which reads a few HTML tags in labels: entities keep data strings literal. */
function esc(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&#34;").replace(/'/g, "&#39;");
}

/* Numbers as stored: NaN and infinities arrive as the strings "NaN", "Infinity", "-Infinity". */
function num(value) {
  if (value === null || value === undefined || value === "NaN") return NaN;
  if (value === "Infinity") return Infinity;
  if (value === "-Infinity") return -Infinity;
  return Number(value);
}
function fixed(value, decimals) {
  const v = num(value);
  if (Number.isNaN(v)) return "—";
  if (!Number.isFinite(v)) return v > 0 ? "∞" : "−∞";
  return v.toFixed(Math.max(0, Math.min(12, decimals | 0)));
}
function seconds(value) {
  const v = num(value);
  if (!Number.isFinite(v)) return "—";
  return v >= 100 ? `${Math.round(v)} s` : `${Number(v.toPrecision(3))} s`;
}

/* ---- the state of every control, in the URL's fragment (works from file:// too) ---- */
const DEFAULTS = {
  view: "curves", c: "0", set: "0", metric: "", x: "seconds", t: "", base: "", mark: "", pin: "",
  raw: "0", sub: "delta", problem: "", theme: "",
};
const state = { ...DEFAULTS };

function readState() {
  const params = new URLSearchParams(location.hash.slice(1));
  for (const key of Object.keys(DEFAULTS)) state[key] = params.has(key) ? params.get(key) : DEFAULTS[key];
}
function writeState() {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(state)) if (value !== DEFAULTS[key]) params.set(key, value);
  history.replaceState(null, "", `#${params.toString()}`);
}
function setState(patch) {
  Object.assign(state, patch);
  writeState();
  render();
}

/* ---- one colour per method, the same in every view and in the report's figures: the build assigns
 * them (srbf.stats.figure_style: Okabe-Ito, then Tableau 10, in sorted order) in manifest.colors ---- */
function color(scope, method) {
  const colors = (SRBF.data.manifest && SRBF.data.manifest.colors) || {};
  if (colors[method]) return colors[method];
  const i = Math.max(0, scope.methods.indexOf(method)); // not in the build's list: a hue of its own
  return `hsl(${Math.round(((i * 0.381966 + 0.07) % 1) * 360)}, 65%, 45%)`;
}

/* Is a row (leaderboard, cell, rank) read at this mark? Each method's largest budget has no x. */
function atMark(row, mark) {
  if (!mark || row.axis !== mark.axis) return false;
  if (mark.axis === "max_budget") return true;
  return num(mark.axis === "time" ? row.time : row.budget) === num(mark.x);
}

/* Which reading the report used, and whether the mark shown is part of it. */
function readingNote(scope, label) {
  const reading = scope.reading;
  if (!reading) return document.createTextNode("");
  const mark = scope.marks.find((m) => m.label === label);
  const ours = !mark || mark.reading === "report";
  return h("p", { class: ours ? "banner declared reading" : "banner reading" },
    `The report reads these results at ${reading.label} (${reading.chosen === "data" ? "chosen from the data" : "as asked"}: `
    + `${reading.reason}). `, ours ? "This mark is the report's reading."
      : `This mark belongs to the other reading, offered beside it (${scope.other_reading.label}); the report does not quote it.`);
}
function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

/* ---- what every view shares ---- */
function condition() {
  const conditions = SRBF.data.manifest.conditions;
  return conditions[Math.min(conditions.length - 1, Math.max(0, parseInt(state.c, 10) || 0))];
}
function scopeIndex() {
  const scopes = condition().scopes;
  const j = parseInt(state.set, 10) || 0;
  return j >= 0 && j < scopes.length ? j : 0;
}
function scopeName() {
  return condition().scopes[scopeIndex()];
}
async function currentScope() {
  return load(`${condition().key}-s${scopeIndex()}`);
}
async function currentPaired() {
  return load(`${condition().key}-s${scopeIndex()}-paired`);
}
async function currentCondition() {
  return load(condition().key);
}
function metricOf(scope, allowed) {
  const choices = allowed || scope.metrics;
  return choices.includes(state.metric) ? state.metric : choices[0];
}
function provenanceOf(scope, method) {
  return scope.provenance[method] || "unlabelled";
}
function conditionLabel(c) {
  return c.condition || "the only condition";
}

/* A labelled <select> bound to one state key. */
function choice(label, key, options, current, extra) {
  const select = h("select", { "aria-label": label, onchange: (e) => setState({ [key]: e.target.value, ...(extra || {}) }) },
    options.map(([value, text]) => h("option", { value, selected: String(value) === String(current) }, text)));
  return h("label", {}, `${label} `, select);
}

const VIEWS = {};
let renderCount = 0;

async function render() {
  const ticket = ++renderCount;
  document.documentElement.dataset.theme = state.theme || document.documentElement.dataset.theme || "light";
  document.getElementById("theme").textContent =
    document.documentElement.dataset.theme === "dark" ? "Light theme" : "Dark theme";
  for (const button of document.querySelectorAll("nav button")) {
    if (button.dataset.view === state.view) button.setAttribute("aria-current", "page");
    else button.removeAttribute("aria-current");
  }
  renderGlobalControls();
  const view = VIEWS[state.view] ? state.view : "curves";
  const body = h("div", { class: `view-${view}` });
  try {
    await VIEWS[view](body);
  } catch (error) {
    body.replaceChildren(h("p", { class: "banner" }, `This view could not be drawn: ${error.message}`));
  }
  if (ticket !== renderCount) return; // a newer render started meanwhile
  const main = document.getElementById("view");
  for (const plot of main.querySelectorAll(".js-plotly-plot")) Plotly.purge(plot);
  main.replaceChildren(body);
  for (const draw of body.drawers || []) draw();
  main.dataset.ready = view;
}

/* Plots are drawn once their container is in the page (plotly measures it). */
function later(container, draw) {
  container.drawers = container.drawers || [];
  container.drawers.push(draw);
}

function renderGlobalControls() {
  const manifest = SRBF.data.manifest;
  const conditionSelect = document.getElementById("condition");
  conditionSelect.replaceChildren(...manifest.conditions.map((c, i) =>
    h("option", { value: i, selected: i === (parseInt(state.c, 10) || 0) }, conditionLabel(c))));
  conditionSelect.disabled = manifest.conditions.length < 2;
  const scopeSelect = document.getElementById("scope");
  scopeSelect.replaceChildren(...condition().scopes.map((s, j) =>
    h("option", { value: j, selected: j === scopeIndex() }, s)));
  scopeSelect.disabled = condition().scopes.length < 2;
}

function footer() {
  const m = SRBF.data.manifest;
  document.getElementById("footer").replaceChildren(
    `Built by srbf ${m.srbf} on ${m.built} from ${m.predictions} scored predictions`,
    m.source ? ` (${m.source})` : "", `; values: ${m.statistic === "meta"
      ? "sets combined with random-effects weights" : "expression-level bootstrap"}, 95 % intervals.`,
    m.time_axis ? ` Note: ${m.time_axis}.` : "");
}

/* fn after the browser has painted what is in the page (a hidden tab paints nothing: a timer then). */
function afterPaint(fn) {
  let done = false;
  const once = () => { if (!done) { done = true; fn(); } };
  requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, 200);
}

/* plotly.js, asked for only once the first view is on screen: the browser needs about two seconds
 * of one core to parse and run its 4.8 MB, and the views draw sketches of their plots meanwhile. */
function loadPlotly() {
  const script = h("script", { src: "plotly.min.js" });
  script.onload = upgradePlots;
  script.onerror = () => document.getElementById("footer").prepend(h("p", { class: "banner" },
    "plotly.min.js could not be loaded: the plots are static sketches, without hover or zoom."));
  document.head.append(script);
}

function start() {
  readState();
  document.querySelectorAll("nav button").forEach((button) =>
    button.addEventListener("click", () => setState({ view: button.dataset.view })));
  document.getElementById("theme").addEventListener("click", () =>
    setState({ theme: document.documentElement.dataset.theme === "dark" ? "light" : "dark" }));
  document.getElementById("condition").addEventListener("change", (e) => setState({ c: e.target.value, set: "0", pin: "", problem: "" }));
  document.getElementById("scope").addEventListener("change", (e) => setState({ set: e.target.value, pin: "", problem: "" }));
  window.addEventListener("hashchange", () => { readState(); render(); });
  load("manifest").then(() => { footer(); return render().then(() => afterPaint(loadPlotly)); }, (error) => {
    document.getElementById("view").replaceChildren(h("p", { class: "banner" }, error.message));
  });
}

document.addEventListener("DOMContentLoaded", start);
