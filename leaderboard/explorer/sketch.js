/* srbf results explorer: a plot drawn as plain SVG from the same traces and layout plotly.js gets,
 * so the first view appears before the browser has parsed plotly.min.js (4.8 MB, about two seconds
 * of one core). Only what the views use is drawn: scatter lines, filled bands, markers (circle,
 * diamond, triangle; "-open" hollow), text labels, linear and log axes (named ticks: tickvals and
 * ticktext), rect and line shapes, and the legend. No hover, zoom or export: charts.js swaps in plotly's chart as soon as plotly loads.
 * Every label arrives as plotly text (entities, see esc() in app.js) and goes into the page as text. */
"use strict";

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) if (value !== undefined && value !== null) el.setAttribute(key, value);
  if (text !== undefined) el.textContent = text;
  return el;
}

/* Plotly text back to plain text: the entities esc() writes, &amp; last. */
function plain(text) {
  return String(text ?? "").replace(/&#39;/g, "'").replace(/&#34;/g, '"').replace(/&gt;/g, ">")
    .replace(/&lt;/g, "<").replace(/&amp;/g, "&");
}

const each = (value, i) => (Array.isArray(value) ? value[i] : value);

/* Tick values: whole decades on a log axis spanning more than one, else 1-2-5 steps (or dtick). */
function ticks(lo, hi, log, dtick) {
  const [a, b] = lo < hi ? [lo, hi] : [hi, lo];
  if (log && b - a >= 1) {
    const step = Math.max(1, Math.ceil((b - a) / 6));
    const out = [];
    for (let k = Math.ceil(a); k <= b + 1e-9; k += step) out.push(k);
    return out;
  }
  let step = dtick;
  if (!step) {
    const raw = (b - a) / 6 || 1, p = 10 ** Math.floor(Math.log10(raw));
    step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw);
  }
  const out = [];
  for (let v = Math.ceil(a / step - 1e-9) * step; v <= b + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return out;
}

function tickLabel(v, log) {
  const value = log ? 10 ** v : v;
  if (value !== 0 && (Math.abs(value) >= 1e5 || Math.abs(value) < 1e-3)) return value.toExponential(0).replace("e+", "e");
  return String(Number(value.toPrecision(6)));
}

/* One axis: the data range (with 5 % padding) unless the layout fixes it, on a log10 scale if asked. */
function axis(spec, values) {
  const log = spec.type === "log";
  const tf = log ? (v) => (v > 0 ? Math.log10(v) : NaN) : (v) => v;
  let range = spec.range ? spec.range.map(Number) : null;
  if (!range) {
    const finite = values.map(tf).filter(Number.isFinite);
    let lo = finite.length ? Math.min(...finite) : 0, hi = finite.length ? Math.max(...finite) : 1;
    if (lo === hi) { lo -= 0.5; hi += 0.5; }
    const pad = (hi - lo) * 0.05;
    range = [lo - pad, hi + pad];
  } else if (log) {
    range = range.map(Math.log10);
  }
  const given = Array.isArray(spec.tickvals); // categories on a numeric axis: the views name each position
  return { log, tf, range, ticks: given ? spec.tickvals.map((v) => (log ? Math.log10(v) : v)) : ticks(range[0], range[1], log, spec.dtick),
    labels: given ? spec.ticktext || spec.tickvals : null, visible: spec.visible !== false };
}

function markerShape(symbol, x, y, size) {
  const r = size / 2;
  if (symbol.startsWith("diamond")) return svg("path", { d: `M${x},${y - r}L${x + r},${y}L${x},${y + r}L${x - r},${y}Z` });
  if (symbol.startsWith("triangle-right")) return svg("path", { d: `M${x + r},${y}L${x - r},${y - r}L${x - r},${y + r}Z` });
  return svg("circle", { cx: x, cy: y, r });
}

/* Draws the figure into div (replacing what it holds). */
function sketch(div, traces, layout) {
  const named = traces.some((t) => t.name && t.showlegend !== false) && layout.showlegend !== false;
  const width = Math.max(200, div.clientWidth || 600);
  const height = layout.height || Math.max(200, (div.clientHeight || 340) - (named ? 40 : 0)); // plotly fills the div
  const margin = { l: 56, r: 12, t: 10, b: 48, ...(layout.margin || {}) };
  const bg = layout.paper_bgcolor || "transparent", fg = (layout.font && layout.font.color) || "currentColor";
  const font = (layout.font && layout.font.size) || 12;
  const xs = [], ys = [];
  for (const t of traces) { xs.push(...(t.x || []).map(Number)); ys.push(...(t.y || []).map(Number)); }
  for (const s of layout.shapes || []) { xs.push(s.x0, s.x1); ys.push(s.y0, s.y1); }
  const xa = axis(layout.xaxis || {}, xs), ya = axis(layout.yaxis || {}, ys);
  const [x0, x1] = [margin.l, width - margin.r], [y0, y1] = [height - margin.b, margin.t];
  const px = (v) => x0 + ((xa.tf(Number(v)) - xa.range[0]) / (xa.range[1] - xa.range[0])) * (x1 - x0);
  const py = (v) => y0 + ((ya.tf(Number(v)) - ya.range[0]) / (ya.range[1] - ya.range[0])) * (y1 - y0);
  const root = svg("svg", { class: "sketch", viewBox: `0 0 ${width} ${height}`, width: "100%", height,
    "font-size": font, fill: fg, "aria-hidden": "true" });
  root.append(svg("rect", { width, height, fill: bg }));
  const grid = (layout.xaxis && layout.xaxis.gridcolor) || "#ddd";
  for (const [a, along] of [[xa, "x"], [ya, "y"]]) {
    if (!a.visible) continue;
    a.ticks.forEach((k, n) => {
      const v = a.log ? 10 ** k : k, p = along === "x" ? px(v) : py(v);
      const label = a.labels ? plain(a.labels[n]) : tickLabel(k, a.log);
      if (along === "x") {
        root.append(svg("line", { x1: p, x2: p, y1: y0, y2: y1, stroke: grid }),
          svg("text", { x: p, y: y0 + font + 4, "text-anchor": "middle" }, label));
      } else {
        root.append(svg("line", { x1: x0, x2: x1, y1: p, y2: p, stroke: grid }),
          svg("text", { x: x0 - 6, y: p + font / 3, "text-anchor": "end" }, label));
      }
    });
  }
  const title = (spec) => plain(spec && spec.title && spec.title.text);
  if (xa.visible) root.append(svg("text", { x: (x0 + x1) / 2, y: height - 8, "text-anchor": "middle" }, title(layout.xaxis)));
  if (ya.visible) {
    root.append(svg("text", { x: 0, y: 0, "text-anchor": "middle", transform: `translate(14 ${(y0 + y1) / 2}) rotate(-90)` },
      title(layout.yaxis)));
  }
  for (const s of layout.shapes || []) {
    if (s.type === "rect") {
      root.append(svg("rect", { x: Math.min(px(s.x0), px(s.x1)), y: Math.min(py(s.y0), py(s.y1)),
        width: Math.abs(px(s.x1) - px(s.x0)), height: Math.abs(py(s.y1) - py(s.y0)), fill: s.fillcolor, opacity: s.opacity,
        stroke: s.line && s.line.width ? s.line.color : null, "stroke-width": s.line && s.line.width }));
    } else if (s.type === "line") {
      root.append(svg("line", { x1: px(s.x0), x2: px(s.x1), y1: py(s.y0), y2: py(s.y1),
        stroke: s.line && s.line.color, "stroke-width": s.line && s.line.width,
        "stroke-dasharray": s.line && s.line.dash === "dot" ? "2 3" : null }));
    }
  }
  const legend = [];
  traces.forEach((t, n) => {
    const mode = t.mode || "lines", points = (t.x || []).map((x, i) => [px(x), py(t.y[i]), i])
      .filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
    const color = (t.line && t.line.color) || (t.marker && t.marker.color) || fg;
    const path = points.map(([x, y], i) => `${i ? "L" : "M"}${x.toFixed(1)},${y.toFixed(1)}`).join("");
    if (t.fill === "toself" && points.length) root.append(svg("path", { d: `${path}Z`, fill: t.fillcolor, stroke: "none" }));
    else if (mode.includes("lines") && points.length > 1) {
      root.append(svg("path", { d: path, fill: "none", stroke: color, "stroke-width": (t.line && t.line.width) || 2,
        "stroke-dasharray": t.line && t.line.dash === "dot" ? "2 3" : null, "data-trace": n }));
    }
    if (mode.includes("markers")) {
      for (const [x, y, i] of points) {
        const symbol = String(each(t.marker.symbol, i) || "circle"), shape = markerShape(symbol, x, y, each(t.marker.size, i) || 6);
        shape.setAttribute("fill", symbol.endsWith("-open") ? bg : each(t.marker.color, i) || color);
        shape.setAttribute("stroke", color);
        shape.setAttribute("stroke-width", (t.marker.line && t.marker.line.width) || 1);
        root.append(shape);
      }
    }
    if (mode.includes("text")) {
      const fill = (t.textfont && t.textfont.color) || color;
      for (const [x, y, i] of points) {
        const label = plain(each(t.text, i));
        if (!label) continue;
        const where = String(t.textposition || "middle center");
        const anchor = where.endsWith("left") ? "end" : where.endsWith("right") ? "start" : "middle";
        root.append(svg("text", { x, y: where.startsWith("top") ? y - 8 : y + font / 3, "text-anchor": anchor, fill }, label));
      }
    }
    if (named && t.name && t.showlegend !== false) legend.push([plain(t.name), color]);
  });
  const list = h("ul", { class: "sketch-legend" }, legend.map(([name, color]) =>
    h("li", {}, h("span", { class: "swatch", style: `background:${color}` }), name)));
  div.replaceChildren(root, ...(legend.length ? [list] : []));
}
