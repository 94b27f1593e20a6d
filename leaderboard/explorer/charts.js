/* srbf results explorer: the plotted views (Curves, the Delta curves of Paired, Ranks).
 * Values, intervals, statuses and groups are read from the build's data; nothing is estimated here. */
"use strict";

function plotLayout(xTitle, yTitle, xLog) {
  const fg = cssVar("--fg"), line = cssVar("--line");
  return {
    paper_bgcolor: cssVar("--bg"), plot_bgcolor: cssVar("--bg"), font: { color: fg, size: 12 },
    margin: { l: 56, r: 12, t: 10, b: 48 }, hovermode: "closest",
    xaxis: { title: { text: esc(xTitle) }, type: xLog ? "log" : "linear", gridcolor: line, zerolinecolor: line },
    yaxis: { title: { text: esc(yTitle) }, gridcolor: line, zerolinecolor: line },
    legend: { orientation: "h", y: -0.25, x: 0 },
  };
}

function newPlot(container, traces, layout) {
  const div = h("div", { class: layout.height ? "plot short" : "plot", role: "img", "aria-label": layout.ariaLabel || "plot" });
  container.append(div);
  delete layout.ariaLabel;
  div.figure = { traces, layout };
  later(container, () => drawPlot(div));
  return div;
}

/* plotly's chart once plotly.js is loaded; until then the same figure as a sketch (sketch.js), which
 * upgradePlots() replaces when plotly arrives. data-drawn says which one the div holds. */
function drawPlot(div) {
  const { traces, layout } = div.figure;
  if (!window.Plotly) {
    sketch(div, traces, layout);
    div.dataset.drawn = "sketch";
    return;
  }
  div.replaceChildren();
  Plotly.newPlot(div, traces, layout, { responsive: true, displaylogo: false }).then(() => { div.dataset.drawn = "plotly"; });
}

function upgradePlots() {
  for (const div of document.querySelectorAll('.plot[data-drawn="sketch"]')) drawPlot(div);
}

function legendName(scope, method) {
  return `${esc(method)} (${esc(provenanceOf(scope, method))})`;
}

function band(x, low, high, rgb, group) {
  const keep = x.map((_, i) => Number.isFinite(low[i]) && Number.isFinite(high[i]));
  const xs = x.filter((_, i) => keep[i]);
  if (xs.length < 2) return null;
  return {
    x: xs.concat(xs.slice().reverse()),
    y: low.filter((_, i) => keep[i]).concat(high.filter((_, i) => keep[i]).reverse()),
    fill: "toself", fillcolor: rgb + "2e", line: { width: 0 }, hoverinfo: "skip", showlegend: false,
    legendgroup: group, type: "scatter", mode: "lines",
  };
}

function pointSymbol(row) {
  if (row.axis === "time" && row.status === "interpolated") return "diamond-open";
  if (row.status === "max_tested") return "triangle-right-open";
  return row.low_share ? "circle-open" : "circle";
}

function hoverText(scope, row, metric) {
  const flags = [];
  if (row.low_share) flags.push("† fewer than 90 % of problems behind it");
  if (row.status === "max_tested") flags.push("‡ max tested: carried forward, a lower bound");
  if (row.axis === "time" && row.status === "interpolated") flags.push("interpolated in log time");
  const where = row.axis === "time" ? `at ${seconds(row.time)}` : `budget ${num(row.budget)}, ${seconds(row.seconds)} per problem`;
  return [`<b>${esc(row.method)}</b> (${esc(provenanceOf(scope, row.method))})`, esc(where),
    `${esc(metric)}: ${esc(row.shown)}`, `n = ${num(row.n_problems)} of ${num(row.n_universe)} problems`,
    ...flags.map(esc)].join("<br>");
}

/* Curves: a metric against budget or seconds (this condition), or against support size or noise (across conditions). */
VIEWS.curves = async function (body) {
  const scope = await currentScope();
  const metric = metricOf(scope);
  const manifest = SRBF.data.manifest;
  const axes = [["seconds", "seconds per problem"], ["budget", "budget (one panel per unit)"]];
  const varies = (key) => new Set(manifest.conditions.map((c) => c[key])).size > 1;
  if (varies("n_support")) axes.push(["n_support", "support size (points)"]);
  if (varies("noise")) axes.push(["noise", "noise level σ (relative label noise)"]);
  const x = axes.some(([k]) => k === state.x) ? state.x : "seconds";
  body.append(h("h2", {}, "Curves"),
    h("div", { class: "controls" }, choice("Metric", "metric", scope.metrics.map((m) => [m, m]), metric),
      choice("Against", "x", axes, x)));
  const info = scope.metric_info[metric];
  const direction = info.better ? `${info.better} is better` : "no direction";
  const yLabel = `${metric} (${direction})`;
  let withheld = 0;
  const note = () => h("p", { class: "note" },
    "Lines: each method's value with its 95 % band. Solid points are measured budgets; hollow circles rest on ",
    "fewer than 90 % of the problems (†); hollow diamonds are read at a time mark, interpolated in log time; ",
    "triangles are max tested (‡: the method's dearest budget is below the mark, its value carried forward). ",
    x === "budget" ? "Budgets count different things for different methods: one panel per unit, as in the report. " : "",
    x === "n_support" || x === "noise" ? "Across conditions each point is the method's largest complete budget. " : "",
    withheld ? `${withheld} value(s) withheld: some problem had no finished draw yet (incomplete).` : "");
  if (x === "seconds" || x === "budget") {
    const all = rows(scope.curves).filter((r) => r.metric === metric && (r.axis === "budget" || (x === "seconds" && r.axis === "time")));
    const xOf = (r) => (x === "budget" ? num(r.budget) : r.axis === "time" ? num(r.time) : num(r.seconds));
    const traceOf = (method) => {
      let points = all.filter((r) => r.method === method && r.status !== "n/a");
      withheld += points.filter((r) => !r.complete).length;
      points = points.filter((r) => r.complete && Number.isFinite(num(r.estimate)) && Number.isFinite(xOf(r)));
      points.sort((a, b) => xOf(a) - xOf(b));
      const c = color(scope, method);
      const xs = points.map(xOf);
      const b = band(xs, points.map((r) => num(r.ci_low)), points.map((r) => num(r.ci_high)), c, method);
      if (!points.length) return [];
      return (b ? [b] : []).concat([{
        type: "scatter", mode: "lines+markers+text", name: legendName(scope, method), legendgroup: method,
        x: xs, y: points.map((r) => num(r.estimate)), line: { color: c },
        marker: { color: c, size: 9, symbol: points.map(pointSymbol), line: { color: c, width: 2 } },
        text: points.map((r, i) => (r.status === "max_tested" && i === points.length - 1 ? "max tested" : "")),
        textposition: "top left",
        textfont: { color: c, size: 10 }, hovertext: points.map((r) => hoverText(scope, r, metric)), hoverinfo: "text",
      }]);
    };
    // seconds: every method on one axis; budget: one panel per unit (methods whose budgets count the same thing)
    const panels = new Map();
    for (const method of scope.methods) {
      const unit = (scope.budget_units || {})[method];
      const key = x === "seconds" ? "seconds" : unit ? `unit:${unit}` : `own:${method}`;
      if (!panels.has(key)) {
        panels.set(key, { methods: [], label: x === "seconds" ? "seconds per problem, s (median of usable fits)"
          : `budget: ${unit || `${method}'s own unit`}` });
      }
      panels.get(key).methods.push(method);
    }
    let drawn = 0;
    for (const panel of panels.values()) {
      const traces = panel.methods.flatMap(traceOf);
      if (!traces.length) continue;
      const layout = plotLayout(panel.label, yLabel, true);
      layout.ariaLabel = `${metric} against ${panel.label}`;
      if (panels.size > 1) body.append(h("h3", { class: "panel" }, panel.label, " (", panel.methods.join(", "), ")"));
      newPlot(body, traces, layout);
      drawn += 1;
    }
    if (!drawn) body.append(h("p", { class: "note" }, "No complete value of this metric to draw."));
    body.append(note());
    return;
  }
  const traces = [];
  const scopes = await Promise.all(manifest.conditions.map((c) =>
    load(`${c.key}-s${Math.min(scopeIndex(), c.scopes.length - 1)}`)));
  for (const method of scope.methods) {
    const points = [];
    scopes.forEach((s, i) => {
      const measured = rows(s.curves).filter((r) => r.metric === metric && r.method === method && r.axis === "budget" && r.complete);
      if (!measured.length) return;
      const last = measured.reduce((a, b) => (num(b.budget) > num(a.budget) ? b : a));
      points.push({ ...last, xv: manifest.conditions[i][x] });
    });
    points.sort((a, b) => a.xv - b.xv);
    if (!points.length) continue;
    const c = color(scope, method);
    const b = band(points.map((p) => p.xv), points.map((p) => num(p.ci_low)), points.map((p) => num(p.ci_high)), c, method);
    if (b) traces.push(b);
    traces.push({
      type: "scatter", mode: "lines+markers", name: legendName(scope, method), legendgroup: method,
      x: points.map((p) => p.xv), y: points.map((p) => num(p.estimate)), line: { color: c },
      marker: { color: c, size: 9, symbol: points.map(pointSymbol), line: { color: c, width: 2 } },
      hovertext: points.map((p) => hoverText(scope, p, metric)), hoverinfo: "text",
    });
  }
  const xLabel = axes.find(([k]) => k === x)[1];
  const layout = plotLayout(xLabel, yLabel, false);
  layout.ariaLabel = `${metric} against ${xLabel}`;
  newPlot(body, traces, layout);
  body.append(note());
};

/* Delta curves: every method minus the baseline over time, declared marks (verdicts) and in-between reads. */
function deltaCurves(body, scope, paired, metric, baseline) {
  const declared = rows(paired.cells).filter((r) => r.metric === metric && r.method_b === baseline && r.axis === "time");
  const between = rows(paired.between_cells).filter((r) => r.metric === metric && r.method_b === baseline);
  const traces = [];
  const zero = { type: "scatter", mode: "lines", x: [], y: [], showlegend: false, hoverinfo: "skip",
    line: { color: cssVar("--muted"), dash: "dot", width: 1 } };
  for (const method of scope.methods.filter((m) => m !== baseline)) {
    const points = declared.concat(between)
      .filter((r) => r.method_a === method && r.verdict !== "n/a" && Number.isFinite(num(r.delta)))
      .sort((a, b) => num(a.time) - num(b.time));
    if (!points.length) continue;
    const isDeclared = (r) => declared.includes(r);
    const c = color(scope, method);
    const xs = points.map((r) => num(r.time));
    zero.x.push(...xs);
    const b = band(xs, points.map((r) => num(r.ci_low)), points.map((r) => num(r.ci_high)), c, method);
    if (b) traces.push(b);
    traces.push({
      type: "scatter", mode: "lines+markers", name: legendName(scope, method), legendgroup: method,
      x: xs, y: points.map((r) => num(r.delta)), line: { color: c },
      marker: { color: c, size: points.map((r) => (isDeclared(r) ? 10 : 5)),
        symbol: points.map((r) => (isDeclared(r) ? "circle" : "circle-open")) },
      hovertext: points.map((r) => [
        `<b>${esc(method)}</b> − ${esc(baseline)} at ${esc(seconds(r.time))}`,
        `Δ = ${esc(r.delta_shown)}, margin ±${esc(fixed(r.margin, r.decimals))}`,
        isDeclared(r) ? `verdict: ${esc(r.verdict)}${r.verdict_note ? ` (${esc(r.verdict_note)})` : ""}`
          : "in-between read: descriptive, no verdict",
        `${esc(provenanceOf(scope, method))}; ${r.status_a} vs ${r.status_b}`].join("<br>")),
      hoverinfo: "text",
    });
  }
  if (zero.x.length) {
    zero.x = [Math.min(...zero.x), Math.max(...zero.x)];
    zero.y = [0, 0];
    traces.push(zero);
  }
  const layout = plotLayout("seconds per problem, s", `Δ ${metric} (method − ${baseline})`, true);
  layout.ariaLabel = `Delta of ${metric} against ${baseline}`;
  if (!traces.length) {
    body.append(h("p", { class: "note" }, "No comparison with this baseline on this metric."));
    return;
  }
  newPlot(body, traces, layout);
  body.append(h("p", { class: "note" },
    "Δ = method − baseline, per problem, combined across sets, with its 95 % band. Large points are the declared ",
    "marks, where verdicts are issued; small hollow points are in-between reads of the same analysis, descriptive only."));
}

/* Ranks: mean ranks on one axis, groups shaded when the Friedman test rejects. */
VIEWS.ranks = async function (body) {
  const scope = await currentScope();
  const ranked = scope.metrics.filter((m) => scope.metric_info[m].ranked);
  body.append(h("h2", {}, "Ranks"));
  if (!ranked.length || !scope.ranks.data.length) {
    body.append(h("p", { class: "note" }, "No ranked metric has ranks here."));
    return;
  }
  const preferred = ranked.includes(scope.rank_metric) ? scope.rank_metric : ranked[0];
  const metric = ranked.includes(state.metric) ? state.metric : preferred;
  const marks = scope.marks.map((m) => m.label);
  const mark = marks.includes(state.mark) ? state.mark : (scope.headline || marks[0]);
  const markInfo = scope.marks.find((m) => m.label === mark);
  body.append(h("div", { class: "controls" }, choice("Metric", "metric", ranked.map((m) => [m, m]), metric),
    choice("At", "mark", marks.map((m) => [m, m]), mark),
    h("span", { class: metric === scope.rank_metric ? "badge primary" : "badge" },
      metric === scope.rank_metric ? "primary ranking" : "exploratory")));
  body.append(readingNote(scope, mark));
  const here = rows(scope.ranks).filter((r) => r.metric === metric && atMark(r, markInfo))
    .sort((a, b) => num(a.mean_rank) - num(b.mean_rank));
  if (!here.length) {
    body.append(h("p", { class: "note" }, "No ranks at this mark (fewer than two methods can run there)."));
    return;
  }
  const first = here[0];
  const significant = first.significant === true;
  const traces = [];
  const shapes = [];
  // the CD diagram's bars, as the build computed them (srbf.stats.ranks.cd_groups, the report's): each bar
  // joins the methods of one group, however many groups a method belongs to (a / ab / b: two bars)
  const bars = significant ? ((scope.rank_groups || []).find((g) => g.metric === metric && atMark(g, markInfo)) || { groups: [] }).groups : [];
  const rankOf = new Map(here.map((r) => [r.method, num(r.mean_rank)]));
  bars.forEach((members, g) => {
    const ranks = members.map((m) => rankOf.get(m)).filter(Number.isFinite);
    if (ranks.length < 2) return;
    shapes.push({ type: "rect", x0: Math.min(...ranks) - 0.05, x1: Math.max(...ranks) + 0.05, y0: -0.6 - g * 0.25,
      y1: -0.45 - g * 0.25, fillcolor: cssVar("--fg"), opacity: 0.55, line: { width: 0 }, name: `group ${g + 1}: ${members.join(", ")}` });
  });
  if (significant) { // the critical difference as a scale bar above the dots
    const cd = num(first.cd);
    shapes.push({ type: "line", x0: 1, x1: 1 + cd, y0: 1.05, y1: 1.05, line: { color: cssVar("--fg"), width: 3 } });
    traces.push({ type: "scatter", mode: "text", x: [1 + cd / 2], y: [1.15], text: [`CD = ${fixed(cd, 2)}`],
      hoverinfo: "skip", showlegend: false, textfont: { color: cssVar("--fg") } });
  }
  here.forEach((r, i) => {
    const c = color(scope, r.method);
    traces.push({ type: "scatter", mode: "markers+text", x: [num(r.mean_rank)], y: [i % 2 ? 0.35 : 0.7],
      name: legendName(scope, r.method), text: [esc(r.method)], textposition: "top center", textfont: { color: c },
      marker: { color: c, size: 11, symbol: r.status === "max_tested" ? "circle-open" : "circle", line: { color: c, width: 2 } },
      hovertext: [`<b>${esc(r.method)}</b> (${esc(provenanceOf(scope, r.method))})<br>mean rank ${fixed(r.mean_rank, 2)}`
        + `<br>${esc(r.status)}${r.groups ? `<br>groups ${esc(r.groups)}` : ""}`], hoverinfo: "text" });
  });
  const layout = plotLayout("mean rank (1 = best)", "", false);
  layout.xaxis.range = [num(first.k) + 0.5, 0.5];
  layout.xaxis.dtick = 1;
  layout.yaxis = { visible: false, range: [-0.7 - Math.max(0, bars.length - 1) * 0.25, 1.25] };
  layout.shapes = shapes;
  layout.showlegend = false;
  layout.height = 240 + 20 * shapes.length;
  layout.ariaLabel = `mean ranks on ${metric}`;
  newPlot(body, traces, layout);
  body.append(h("p", { class: significant ? "banner declared" : "banner" }, first.summary,
    significant ? ` Bars join the methods of each group (${bars.length} group${bars.length === 1 ? "" : "s"}); a method may belong to several.`
      : " Neither the critical difference nor groups are drawn."));
  body.append(h("div", { class: "scroll" }, h("table", {},
    h("thead", {}, h("tr", {}, h("th", {}, "method"), h("th", {}, "mean rank"), h("th", {}, "groups"), h("th", {}, "status"))),
    h("tbody", {}, here.map((r) => h("tr", {}, h("td", { class: "method" }, r.method, ` (${provenanceOf(scope, r.method)})`),
      h("td", { class: "num" }, fixed(r.mean_rank, 2)), h("td", {}, r.groups || "—"), h("td", {}, r.status)))))));
};
