/* srbf results explorer: the two pictures SR readers expect, as the report draws them
 * (srbf.report.pictures): median R² against median formula size with the Pareto front, and the
 * per-problem distributions of R² and log10 FVU. Medians, intervals, the front, box statistics,
 * clipped values and offsets come from the build; this file only lays them out. */
"use strict";

const PICTURE_NAMES = { r2_validation: "R² on validation points", log10_fvu_validation: "log10 FVU on validation points" };

/* Accuracy & size: one point per method, both 95 % intervals as lines, the front joined. */
VIEWS.pareto = async function (body) {
  const scope = await currentScope();
  body.append(h("h2", {}, "Accuracy & size"));
  const table = rows(scope.pareto || { columns: [], data: [] });
  const placed = table.filter((r) => r.placed === true);
  if (!placed.length) {
    body.append(h("p", { class: "note" }, "No method has both an R² and a formula size here (the scores need "
      + "r2_validation and token_count_prediction)."));
    return;
  }
  const traces = [];
  for (const r of placed) {
    const c = color(scope, r.method);
    const [x, y] = [num(r.size), num(r.accuracy)];
    const intervals = [[[num(r.size_low), num(r.size_high)], [y, y]], [[x, x], [num(r.accuracy_low), num(r.accuracy_high)]]];
    for (const [xs, ys] of intervals) {
      traces.push({ type: "scatter", mode: "lines", x: xs, y: ys, line: { color: c, width: 1.5 }, opacity: 0.6,
        showlegend: false, hoverinfo: "skip", legendgroup: r.method });
    }
    traces.push({
      type: "scatter", mode: "markers+text", name: legendName(scope, r.method), legendgroup: r.method,
      x: [x], y: [y], text: [esc(r.method)], textposition: "top right", textfont: { color: c, size: 11 },
      marker: { color: c, size: 12, symbol: r.on_front === true ? "circle" : "circle-open", opacity: r.low_share ? 0.5 : 1,
        line: { color: c, width: 2 } },
      hovertext: [[`<b>${esc(r.method)}</b> (${esc(provenanceOf(scope, r.method))}), budget ${num(r.budget)}`,
        `median R² ${esc(fixed(r.accuracy, 4))} [${esc(fixed(r.accuracy_low, 4))}, ${esc(fixed(r.accuracy_high, 4))}]`,
        `median size ${esc(fixed(r.size, 1))} tokens [${esc(fixed(r.size_low, 1))}, ${esc(fixed(r.size_high, 1))}]`,
        `n = ${num(r.n_accuracy)} of ${num(r.n_universe)} problems`, r.on_front === true ? "on the Pareto front" : "dominated",
        ...(r.low_share ? ["† fewer than 90 % of problems behind it"] : [])].join("<br>")],
      hoverinfo: "text",
    });
  }
  const front = placed.filter((r) => r.on_front === true).sort((a, b) => num(a.size) - num(b.size) || num(a.accuracy) - num(b.accuracy));
  if (front.length > 1) { // a step: each front method holds its accuracy until the next, larger one
    const xs = [], ys = [];
    front.forEach((r, i) => {
      if (i) { xs.push(num(r.size)); ys.push(num(front[i - 1].accuracy)); }
      xs.push(num(r.size)); ys.push(num(r.accuracy));
    });
    traces.push({ type: "scatter", mode: "lines", name: "Pareto front", x: xs, y: ys,
      line: { color: cssVar("--muted"), dash: "dot", width: 1.5 }, hoverinfo: "skip" });
  }
  const positive = placed.every((r) => num(r.size_low) > 0);
  const layout = plotLayout("median formula size, tokens (token_count_prediction)", "median R² on validation points", positive);
  layout.ariaLabel = "median R² against median formula size with the Pareto front";
  newPlot(body, traces, layout);
  const missing = table.filter((r) => r.placed !== true);
  const floor = scope.picture_limits.r2_validation.value;
  body.append(h("p", { class: "note" },
    "Up and to the left is better. Each method at its own largest complete budget; one value per problem, draws averaged; ",
    "the lines are 95 % bootstrap intervals of the two medians (problems resampled). Filled points joined by the dotted step ",
    "are the Pareto front: no other method is at least as accurate and as short, better in one. Faded points rest on fewer ",
    `than 90 % of the problems (a failed fit has no R² or size). R² below ${floor} counts as ${floor}.`,
    missing.length ? ` Not placed: ${missing.map((r) => `${r.method} (${r.note})`).join("; ")}.` : ""));
  body.append(h("div", { class: "scroll" }, h("table", { class: "pareto" },
    h("thead", {}, h("tr", {}, ["method", "budget", "median R² [95 %]", "median size [95 %]", "problems", "front"].map((t) => h("th", {}, t)))),
    h("tbody", {}, table.map((r) => h("tr", {}, h("td", { class: "method" }, r.method, ` (${provenanceOf(scope, r.method)})`),
      h("td", { class: "num" }, fixed(r.budget, 0)),
      h("td", { class: "num" }, `${fixed(r.accuracy, 4)} [${fixed(r.accuracy_low, 4)}, ${fixed(r.accuracy_high, 4)}]`),
      h("td", { class: "num" }, `${fixed(r.size, 1)} [${fixed(r.size_low, 1)}, ${fixed(r.size_high, 1)}]`),
      h("td", { class: "num" }, `${num(r.n_accuracy)} of ${num(r.n_universe)}`),
      h("td", {}, r.placed === true ? (r.on_front === true ? "on the front" : "dominated") : `not placed: ${r.note}`)))))));
};

/* Distributions: per metric, one row per method: its box (quartiles, median, whiskers) and its problems. */
VIEWS.distributions = async function (body) {
  const scope = await currentScope();
  body.append(h("h2", {}, "Distributions"));
  const boxes = rows(scope.distribution_boxes || { columns: [], data: [] });
  const metrics = Object.keys(PICTURE_NAMES).filter((m) => boxes.some((b) => b.metric === m));
  if (!metrics.length) {
    body.append(h("p", { class: "note" }, "No R² or log10 FVU values here."));
    return;
  }
  const metric = metrics.includes(state.metric) ? state.metric : metrics[0];
  body.append(h("div", { class: "controls" }, choice("Metric", "metric", metrics.map((m) => [m, PICTURE_NAMES[m]]), metric)));
  const points = rows(scope.distribution_points).filter((p) => p.metric === metric);
  const methods = scope.methods;
  const limit = scope.picture_limits[metric];
  const traces = [], shapes = [];
  const fg = cssVar("--fg");
  methods.forEach((method, i) => {
    const box = boxes.find((b) => b.metric === metric && b.method === method);
    if (!box || !num(box.n)) return;
    const [q1, median, q3] = [num(box.q1), num(box.median), num(box.q3)];
    shapes.push({ type: "rect", x0: q1, x1: q3, y0: i - 0.3, y1: i + 0.3, fillcolor: "rgba(0,0,0,0)", opacity: 1,
      line: { color: fg, width: 1.2 } });
    shapes.push({ type: "line", x0: median, x1: median, y0: i - 0.3, y1: i + 0.3, line: { color: fg, width: 2.5 } });
    shapes.push({ type: "line", x0: num(box.whisker_low), x1: q1, y0: i, y1: i, line: { color: fg, width: 1 } });
    shapes.push({ type: "line", x0: q3, x1: num(box.whisker_high), y0: i, y1: i, line: { color: fg, width: 1 } });
    const mine = points.filter((p) => p.method === method && Number.isFinite(num(p.shown)));
    const c = color(scope, method);
    traces.push({
      type: "scatter", mode: "markers", name: legendName(scope, method), x: mine.map((p) => num(p.shown)),
      y: mine.map((p) => i + num(p.jitter)),
      marker: { color: c, size: mine.map((p) => (p.clipped ? 9 : 6)), opacity: 0.8,
        symbol: mine.map((p) => (p.clipped ? "diamond-open" : "circle")), line: { color: c, width: 1.5 } },
      hovertext: mine.map((p) => [`<b>${esc(method)}</b>: ${esc(p.catalog)} ${esc(p.problem_id)}`,
        `${esc(metric)} = ${esc(fixed(p.value, 4))}${p.clipped ? ` (drawn at the ${esc(p.clipped)} ${limit.value})` : ""}`].join("<br>")),
      hoverinfo: "text",
    });
  });
  shapes.push({ type: "line", x0: limit.value, x1: limit.value, y0: -0.5, y1: methods.length - 0.5,
    line: { color: cssVar("--muted"), width: 1, dash: "dot" } });
  const better = metric === "r2_validation" ? "right" : "left";
  const layout = plotLayout(`${PICTURE_NAMES[metric]} (${better} is better; ${limit.side} ${limit.value})`, "", false);
  layout.yaxis.tickvals = methods.map((_, i) => i);
  layout.yaxis.ticktext = methods.map(esc);
  layout.yaxis.range = [methods.length - 0.5, -0.5];
  layout.yaxis.zeroline = false;
  layout.margin = { l: 110, r: 12, t: 10, b: 48 };
  layout.shapes = shapes;
  layout.showlegend = false;
  layout.height = 120 + 46 * methods.length;
  layout.ariaLabel = `per-problem distribution of ${metric}`;
  newPlot(body, traces, layout);
  const here = boxes.filter((b) => b.metric === metric);
  const sum = (key) => here.reduce((total, b) => total + num(b[key]), 0);
  body.append(h("p", { class: "note" },
    "One point per problem and method (draws averaged), each method at its own largest complete budget. The box spans the ",
    "middle half of the problems, the thick line is the median, the whiskers reach the furthest problem within 1.5 box ",
    `lengths. Values beyond the dotted ${limit.side} at ${limit.value} (a formula that blew up included) are drawn at it as `,
    `hollow diamonds: ${sum("n_clipped")} of ${sum("n_universe")}; ${sum("n_missing")} missing (no usable fit on any draw, `,
    "so no value: failed fits are missing here as in every diagnostic)."));
  body.append(h("div", { class: "scroll" }, h("table", {},
    h("thead", {}, h("tr", {}, ["method", "median", "quartiles", "values", "clipped", "missing"].map((t) => h("th", {}, t)))),
    h("tbody", {}, here.map((b) => h("tr", {}, h("td", { class: "method" }, b.method),
      h("td", { class: "num" }, fixed(b.median, 3)), h("td", { class: "num" }, `${fixed(b.q1, 3)} – ${fixed(b.q3, 3)}`),
      h("td", { class: "num" }, `${num(b.n)} of ${num(b.n_universe)}`), h("td", { class: "num" }, num(b.n_clipped)),
      h("td", { class: "num" }, num(b.n_missing))))))));
};
