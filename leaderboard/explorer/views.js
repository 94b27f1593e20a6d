/* srbf results explorer: the tabular views (Table, Paired, Sets & problems, Progress, Guide).
 * Rows, rounded values, orders and verdicts come from the build; this file lays them out. */
"use strict";

const SNAP = 1; // slider positions next to a declared mark jump onto it (unless leaving it)

/* Provenance labels as footnote letters, shared by the Table's rows and its notes. */
function provenanceNotes(scope) {
  const labels = [...new Set(scope.methods.map((m) => provenanceOf(scope, m)))].sort();
  return Object.fromEntries(labels.map((label, i) => [label, String.fromCharCode(97 + i)]));
}

function valueCell(row) {
  if (!row) return "—";
  if (row.status === "n/a") return "n/a";
  if (!row.complete) return `incomplete (${num(row.n_problems)}/${num(row.n_universe)})`;
  if (num(row.n_problems) === 0) return "n = 0";
  let text = `${row.shown} (${num(row.n_problems)})`;
  if (row.low_share) text += " †";
  if (row.status === "max_tested") text += " ‡";
  return text;
}

/* The slider's next position: snap onto a declared mark next to it, unless the move leaves that mark. */
function snapped(slider, index, previous) {
  if (slider[index].declared) return index;
  for (let d = 1; d <= SNAP; d++) {
    for (const j of [index - d, index + d]) {
      if (j >= 0 && j < slider.length && slider[j].declared && j !== previous) return j;
    }
  }
  return index;
}

VIEWS.table = async function (body) {
  const scope = await currentScope();
  body.append(h("h2", {}, "Table"));
  const slider = scope.slider;
  if (!slider.length) {
    body.append(h("p", { class: "note" }, "No method has a value at any mark."));
    return;
  }
  let index = slider.findIndex((s) => s.label === state.t);
  if (index < 0) index = Math.max(0, slider.findIndex((s) => s.label === scope.headline));
  const at = slider[index];
  const declared = slider.filter((s) => s.declared);
  const input = h("input", { type: "range", min: 0, max: slider.length - 1, step: 1, value: index,
    "aria-label": "Time mark", "aria-valuetext": at.label });
  input.addEventListener("change", () => {
    const next = snapped(slider, Number(input.value), index);
    setState({ t: slider[next].label });
  });
  input.addEventListener("input", () => {
    const next = snapped(slider, Number(input.value), index);
    input.value = next;
    readout.textContent = slider[next].label;
  });
  const readout = h("output", { "aria-live": "polite" }, at.label);
  body.append(h("div", { class: "slider" }, h("span", {}, "At"), input, readout),
    h("div", { class: "controls marks" }, "Declared marks: ", declared.map((s) => h("button", {
      type: "button", "aria-pressed": s.label === at.label ? "true" : "false", onclick: () => setState({ t: s.label }),
    }, s.label))));
  const ours = (scope.marks.find((m) => m.label === at.label) || {}).reading !== "other";
  body.append(h("p", { class: at.declared ? "banner declared" : "banner", id: "mark-status" }, at.declared
    ? (ours ? `Declared mark ${at.label}: the values, flags and verdicts here are the report's.`
      : `Mark ${at.label} of the other reading: computed as the report computes its own, but the report reads at ${scope.reading.label}.`)
    : `In-between read at ${at.label}: descriptive values of the same curves, between the declared marks `
      + `(${declared.map((s) => s.label).join(", ")}). Quote the declared marks; no verdict is issued here.`));
  if (at.declared) body.append(readingNote(scope, at.label));
  const source = at.declared ? scope.leaderboard : scope.between.leaderboard;
  const here = rows(source).filter((r) => r.mark === at.label);
  const order = scope.order[at.label] || scope.methods;
  const notes = provenanceNotes(scope);
  const header = [h("th", {}, "method"), h("th", {}, "status")];
  for (const metric of scope.metrics) {
    header.push(h("th", {}, `${metric} (n)`));
    if (scope.metric_info[metric].median_shown) header.push(h("th", {}, `${metric} median`));
  }
  const tableRows = order.map((method) => {
    const mine = here.filter((r) => r.method === method);
    const first = mine[0];
    const cells = [h("td", { class: "method" }, method, h("sup", {}, notes[provenanceOf(scope, method)])),
      h("td", {}, first ? first.status : "—")];
    for (const metric of scope.metrics) {
      const row = mine.find((r) => r.metric === metric);
      cells.push(h("td", { class: "num" }, valueCell(row)));
      if (scope.metric_info[metric].median_shown) {
        const ok = row && row.status !== "n/a" && row.complete;
        const digits = scope.metric_info[metric].primary === "median" ? 2 : num(row && row.decimals);
        cells.push(h("td", { class: "num" }, ok ? (scope.metric_info[metric].primary === "median"
          ? String(Number(num(row.median_shown).toPrecision(digits))) : fixed(row.median_shown, digits)) : "—"));
      }
    }
    return h("tr", {}, cells);
  });
  body.append(h("div", { class: "scroll" }, h("table", { id: "leaderboard" },
    h("thead", {}, h("tr", {}, header)), h("tbody", {}, tableRows))));
  body.append(h("p", { class: "note" }, "Each cell: value [95 % interval] (problems behind it, of ",
    String(here.length ? num(here[0].n_universe) : "—"), "). Methods best first on ", scope.metrics[0], "."));
  body.append(h("ul", { class: "note footnotes" },
    Object.entries(notes).map(([label, letter]) => h("li", {}, h("sup", {}, letter), ` provenance: ${label}`)),
    h("li", {}, "† fewer than 90 % of the problems behind the value (a diagnostic over the problems a method solved flatters it)"),
    h("li", {}, "‡ max tested: the method's dearest budget is below this time; its value is carried forward, a lower bound"),
    h("li", {}, "incomplete: some problem has no finished draw yet; the value is withheld")));
};

/* ---- Paired: Delta curves against a baseline, and the verdict matrix ---- */
function pValue(cell) {
  return state.raw === "1" ? cell.p_shown : cell.p_adjusted_shown;
}

function cellRecord(cell) {
  const correction = cell.correction === "holm" ? "Holm (confirmatory)" : "Benjamini–Hochberg (exploratory)";
  const items = [
    ["comparison", `${cell.method_a} − ${cell.method_b} on ${cell.metric}`],
    ["at", cell.axis === "time" ? seconds(cell.time) : `budget ${num(cell.budget)}`],
    ["verdict on the row", cell.verdict + (cell.verdict_note ? ` (${cell.verdict_note})` : "")],
    ["decided by", cell.decided_by || "—"],
  ];
  if (cell.same_configuration) items.push(["read at", "the same configuration on both sides (two entries of one adapter)"]);
  if (cell.verdict !== "n/a") {
    items.push(["Δ [95 %]", cell.delta_shown], ["noise margin m", `±${fixed(cell.margin_rounded, cell.decimals)}`],
      ["MDE₈₀", fixed(cell.mde80_rounded, cell.decimals)],
      [state.raw === "1" ? "p (raw, uncorrected)" : "p (corrected)",
        `${pValue(cell)}: a separate ${cell.test} test of Δ = 0; it does not decide the verdict`],
      ["correction", correction], ["problems paired", String(num(cell.n_pairs))],
      ["only one side valued", `${num(cell.n_a_only)} row only, ${num(cell.n_b_only)} column only`],
      ["wins", Number.isFinite(num(cell.wins_a)) ? `${num(cell.wins_a)} row, ${num(cell.wins_b)} column` : "— (counted for rate metrics only)"]);
  }
  items.push(["statuses", `${cell.status_a} vs ${cell.status_b}`], ["family", cell.confirmatory ? "confirmatory ◆" : "exploratory"],
    ["complete", cell.complete ? "yes" : "no: some problem has no finished draw"]);
  return h("div", { class: "pinned", id: "pinned" }, h("h3", {}, "Pinned comparison"),
    h("dl", {}, items.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])));
}

/* A cell's numbers in one line, for its tooltip: interval, margin, MDE80, p-value and counts. */
function cellSummary(cell) {
  if (cell.verdict === "n/a") return `${cell.verdict}: ${cell.verdict_note || "a side cannot run within t"}`;
  return `${cell.verdict}, decided by: ${cell.decided_by}. Δ ${cell.delta_shown}; MDE₈₀ ${fixed(cell.mde80_rounded, cell.decimals)}; `
    + `separately, p of Δ = 0: ${pValue(cell)}${state.raw === "1" ? " (raw)" : ""}; ${num(cell.n_pairs)} problems paired`;
}

/* The matrix's marks: both readings' marks, then the budgets where two entries of one adapter are compared. */
function matrixMarks(scope, paired) {
  const marks = scope.marks.slice();
  const budgets = [...new Set(rows(paired.cells).filter((r) => r.same_configuration && r.axis === "budget")
    .map((r) => num(r.budget)))].sort((a, b) => a - b);
  for (const b of budgets) marks.push({ axis: "budget", x: b, label: `budget ${b} (same adapter)`, reading: "report" });
  return marks;
}

function matrix(body, scope, paired, metric) {
  const all = matrixMarks(scope, paired);
  const marks = all.map((m) => m.label);
  const mark = marks.includes(state.mark) ? state.mark : (scope.headline || marks[0]);
  const info = all.find((m) => m.label === mark);
  body.append(h("div", { class: "controls" }, choice("At", "mark", marks.map((m) => [m, m]), mark, { pin: "" }),
    h("label", {}, h("input", { type: "checkbox", checked: state.raw === "1",
      onchange: (e) => setState({ raw: e.target.checked ? "1" : "0" }) }), " raw p-values")));
  if (state.raw === "1") {
    body.append(h("p", { class: "banner" }, "Raw p-values: not corrected for the many comparisons on this page. ",
      "They are shown for inspection, not for quoting; the corrected ones are the default."));
  }
  if (info.axis !== "budget") body.append(readingNote(scope, mark));
  const cells = rows(paired.cells).filter((r) => r.metric === metric && atMark(r, info));
  const lookup = new Map(cells.map((c) => [`${c.method_a}\u0000${c.method_b}`, c]));
  const sameAdapter = new Set(rows(paired.cells).filter((r) => r.same_configuration)
    .map((c) => `${c.method_a}\u0000${c.method_b}`));
  const methods = scope.methods;
  const [pa, pb] = state.pin.split(".").map((v) => parseInt(v, 10));
  const pinned = lookup.get(`${methods[pa]}\u0000${methods[pb]}`);
  const table = h("table", { class: "matrix", id: "matrix" },
    h("thead", {}, h("tr", {}, h("th", {}, "row − column"), methods.map((m) => h("th", { class: "col", scope: "col" }, m)))),
    h("tbody", {}, methods.map((a, i) => h("tr", {}, h("th", { class: "row", scope: "row" }, a),
      methods.map((b, j) => {
        const cell = lookup.get(`${a}\u0000${b}`);
        if (a !== b && !cell && sameAdapter.has(`${a}\u0000${b}`)) {
          return h("td", { class: "note", title: "two entries of one adapter: compared at each budget both ran" }, "at equal budget");
        }
        if (a === b || !cell) return h("td", {}, "—");
        const label = `${cell.verdict}${cell.verdict !== "n/a" && cell.delta_shown ? ` ${cell.delta_shown.split(" ")[0]}` : ""}`;
        return h("td", {}, h("button", {
          type: "button", class: cell.verdict === "n/a" ? "na" : cell.verdict, "aria-pressed": pinned === cell ? "true" : "false",
          "aria-label": `${a} versus ${b}: ${cell.verdict}`, "data-cell": `${i}.${j}`, title: cellSummary(cell),
          onclick: () => setState({ pin: pinned === cell ? "" : `${i}.${j}`, mark }),
        }, label, cell.confirmatory ? " ◆" : ""));
      })))));
  body.append(h("div", { class: "scroll" }, table));
  body.append(h("p", { class: "note" }, "Each cell: the verdict on the row method and Δ = row − column. ",
    "Green better, red worse, blue equivalent (inside the noise margin), yellow undecided, grey n/a. ",
    "◆ marks a declared confirmatory comparison (Holm); the rest are exploratory (Benjamini–Hochberg). ",
    "A verdict is decided by Δ's interval against the noise margin; the p-value is a separate test of Δ = 0. ",
    "Two entries of one adapter (ablations, repeats) are compared at each budget both ran (the \u201csame adapter\u201d marks). ",
    "Press a cell to pin its full record."));
  if (pinned) body.append(cellRecord(pinned));
}

VIEWS.paired = async function (body) {
  const [scope, paired] = await Promise.all([currentScope(), currentPaired()]);
  const comparable = scope.metrics.filter((m) => scope.metric_info[m].comparable);
  body.append(h("h2", {}, "Paired"));
  if (!comparable.length || scope.methods.length < 2) {
    body.append(h("p", { class: "note" }, "Paired comparisons need two methods and a metric with a direction."));
    return;
  }
  const metric = metricOf(scope, comparable);
  const sub = state.sub === "matrix" ? "matrix" : "delta";
  body.append(h("div", { class: "controls" },
    h("button", { type: "button", "aria-pressed": sub === "delta" ? "true" : "false", onclick: () => setState({ sub: "delta" }) }, "Δ curves"),
    h("button", { type: "button", "aria-pressed": sub === "matrix" ? "true" : "false", onclick: () => setState({ sub: "matrix" }) }, "Verdict matrix"),
    choice("Metric", "metric", comparable.map((m) => [m, m]), metric, { pin: "" })));
  if (scope.label_note) body.append(h("p", { class: "note labels" }, scope.label_note));
  if (sub === "matrix") {
    matrix(body, scope, paired, metric);
    return;
  }
  const baseline = scope.methods.includes(state.base) ? state.base : scope.methods[0];
  body.append(h("div", { class: "controls" }, choice("Baseline", "base", scope.methods.map((m) => [m, m]), baseline)));
  deltaCurves(body, scope, paired, metric, baseline);
};

/* ---- Sets and problems ---- */
function setCard(set, scope, metric) {
  const values = rows(scope.per_set).filter((r) => r.catalog === set.name && r.metric === metric);
  return h("section", { class: "set" },
    h("h3", {}, h("button", { type: "button", class: "linkish", onclick: () => {
      const j = condition().scopes.indexOf(set.name);
      setState({ set: String(j < 0 ? 0 : j), problem: "" });
    } }, set.name), ` v${set.version}`),
    h("p", {}, `${set.problems} problem(s) in these results. `, set.shipped ? set.description : "A catalog file of the run's own (not shipped with srbf)."),
    set.sources.length ? h("p", { class: "note" }, "Sources: ", set.sources.join("; "), set.license ? `. License: ${set.license}` : "") : null,
    values.length ? h("div", { class: "scroll" }, h("table", {},
      h("thead", {}, h("tr", {}, h("th", {}, "method"), h("th", {}, "budget"), h("th", {}, `${metric} [95 %] (n)`))),
      h("tbody", {}, values.map((r) => h("tr", {}, h("td", { class: "method" }, r.method, ` (${provenanceOf(scope, r.method)})`),
        h("td", { class: "num" }, String(num(r.budget))), h("td", { class: "num" }, `${r.shown} (${num(r.n_problems)})`)))))) : null);
}

function problemPage(body, cond, scope, key) {
  const [catalog, problem] = JSON.parse(key);
  const truth = rows(cond.truths).find((r) => r.catalog === catalog && r.problem_id === problem);
  const returned = rows(cond.returned).filter((r) => r.catalog === catalog && r.problem_id === problem);
  body.append(h("button", { type: "button", class: "linkish", onclick: () => setState({ problem: "" }) }, "← all problems"),
    h("h3", {}, `${catalog} / ${problem}`),
    h("p", {}, "Truth: ", truth && truth.formula ? h("span", { class: "formula" }, `${truth.target} = ${truth.formula}`)
      : "not available (the catalog is not shipped with srbf at this version)"));
  const metrics = scope.metrics.filter((m) => returned.length && m in returned[0]);
  body.append(h("div", { class: "scroll" }, h("table", { id: "problem" },
    h("thead", {}, h("tr", {}, h("th", {}, "method"), h("th", {}, "budget"), h("th", {}, "returned formula (first draw, largest budget)"),
      metrics.map((m) => h("th", {}, m)), h("th", {}, "fit time"), h("th", {}, "status"))),
    h("tbody", {}, returned.map((r) => h("tr", {}, h("td", { class: "method" }, r.method, ` (${provenanceOf(scope, r.method)})`),
      h("td", { class: "num" }, String(num(r.budget))), h("td", { class: "formula" }, r.formula || "—"),
      metrics.map((m) => h("td", { class: "num" }, Number.isFinite(num(r[m])) ? String(Number(num(r[m]).toPrecision(4))) : fixed(r[m], 0))),
      h("td", { class: "num" }, seconds(r.seconds)), h("td", {}, r.status)))))));
  body.append(h("p", { class: "note" }, "Long decimals are shown to four significant digits; the store keeps every formula in full ",
    "(srbf export). Metrics of this one draw, as the judge scored it."));
}

VIEWS.sets = async function (body) {
  const [scope, cond] = await Promise.all([currentScope(), currentCondition()]);
  const metric = metricOf(scope);
  const name = scopeName();
  const sets = cond.sets.filter((s) => scopeIndex() === 0 || s.name === name);
  body.append(h("h2", {}, "Sets and problems"));
  if (state.problem) {
    problemPage(body, cond, scope, state.problem);
    return;
  }
  body.append(h("div", { class: "controls" }, choice("Metric", "metric", scope.metrics.map((m) => [m, m]), metric)),
    h("p", { class: "note" }, "Each set's own mean with its 95 % t interval and its problems, per method at its largest complete budget."));
  const all = await load(`${condition().key}-s0`);
  for (const set of sets) body.append(setCard(set, all, metric));
  const problems = rows(cond.truths).filter((r) => scopeIndex() === 0 || r.catalog === name);
  body.append(h("h3", {}, `Problems (${problems.length})`),
    h("ul", { class: "problems" }, problems.map((r) => h("li", {}, h("button", { type: "button", class: "linkish",
      onclick: () => setState({ problem: JSON.stringify([r.catalog, r.problem_id]) }) }, `${r.catalog} / ${r.problem_id}`),
    r.formula ? h("span", { class: "formula" }, `: ${r.target} = ${r.formula}`) : null))));
};

/* ---- Progress ---- */
VIEWS.progress = async function (body) {
  const cond = await currentCondition();
  const name = scopeName();
  const progress = rows(cond.progress).filter((r) => scopeIndex() === 0 || r.catalog === name);
  body.append(h("h2", {}, "Progress"), h("p", { class: "note" },
    "Per method, set and budget: problems with at least one scored draw, of the set's problems in these results, and the scored draws."));
  body.append(h("div", { class: "scroll" }, h("table", { id: "progress" },
    h("thead", {}, h("tr", {}, ["method", "set", "budget", "problems with results", "", "draws"].map((t) => h("th", {}, t)))),
    h("tbody", {}, progress.map((r) => {
      const share = num(r.problems) ? num(r.problems_done) / num(r.problems) : 0;
      return h("tr", {}, h("td", { class: "method" }, r.method), h("td", {}, r.catalog), h("td", { class: "num" }, String(num(r.budget))),
        h("td", { class: "num" }, `${num(r.problems_done)} / ${num(r.problems)}`),
        h("td", {}, h("div", { class: "bar", role: "presentation" }, h("span", { style: `width:${Math.round(share * 100)}%` }))),
        h("td", { class: "num" }, String(num(r.draws_done))));
    })))));
};

/* ---- Guide ---- */
VIEWS.guide = async function (body) {
  body.append(document.getElementById("guide-text").content.cloneNode(true));
};
