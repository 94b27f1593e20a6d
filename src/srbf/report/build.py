"""``build_report``: the long frame of per-prediction metrics to report/index.md, its figures and
its CSV tables. docs/report.md describes every part and how to read it.

    report/index.md           leaderboard, curves, accuracy and size, per-set tables, verdicts, ranks
    report/figures/*.png      curve_<metric>, pareto, distributions, verdicts_<metric>, cd_<metric> (and/or .pdf, .svg)
    report/tables/*.csv       every number shown, at full precision next to the rounded one
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

import srbf
from srbf.report import markdown_tables as T
from srbf.report.drawing import Painter
from srbf.report.data import budget_units, label_note, provenance_labels, require_scores
from srbf.report.escape import md
from srbf.report.figure_files import FigureFiles
from srbf.report.figure_jobs import cd_job, cd_panels, curve_job, distribution_job, pareto_job, verdict_job
from srbf.report.marks import collapse_repeated
from srbf.report.picture_section import pictures_section
from srbf.report.pictures import distribution_boxes, distribution_points, pareto_table
from srbf.report.readings import analysis_at_marks, choose_metrics, comparable, leaderboard_table, ranked, reading_of
from srbf.report.stack import stack_markdown
from srbf.stats import Analysis, display_name
from srbf.stats.reading import Reading
from srbf.store.csv_cells import read_csv, write_csv

BUDGET_FALLBACK = ("**No method could be placed at the declared time marks** (no usable timings, or every method "
                   "slower than the marks): values, verdicts and ranks are read at each budget, the same budget "
                   "for every method.")
TABLES = ("aggregates", "leaderboard", "per_set", "comparisons", "ranks", "time_axis", "pareto", "distributions",
          "distribution_boxes")


@dataclass
class Report:
    """What :func:`build_report` wrote, and the analysis behind it."""

    directory: Path
    index: Path
    figures: list[Path]
    tables: dict[str, Path]
    analysis: Analysis
    metrics: list[str]
    marks: list[T.Mark]
    headline: T.Mark | None
    notes: list[str] = field(default_factory=list)  # time marks folded into an earlier one
    files: FigureFiles = field(default_factory=FigureFiles)
    reading: Reading | None = None  # where the values were read, and why (srbf.stats.reading)


def build_report(frame: pd.DataFrame, out: str | Path, *, metrics=None, times=None,
                 statistic: str = "meta", show_incomplete: bool = False, source: str = "",
                 confirmatory=(), seed: int = 0, n_resamples: int = 1000,
                 stack: pd.DataFrame | Callable[[], pd.DataFrame | None] | None = None,
                 files: FigureFiles = FigureFiles(),
                 at_budget: str | None = None, timing=None, painter: Painter | None = None,
                 reading: Reading | None = None) -> Report:
    """Analyse ``frame`` and write the report into directory ``out``.

    metrics: the metrics to show (default: the headline metrics, nrr_validation first). times: the
    declared time marks (seconds) of the leaderboard, verdicts and ranks. statistic: "meta" (sets
    combined, the default) or "bootstrap". show_incomplete: also show values of budgets where some
    problem has no finished draw (flagged §); by default they are withheld. confirmatory: the
    pairs of method labels declared confirmatory (Holm-corrected, marked ◆); the rest are
    exploratory (Benjamini-Hochberg). stack: the results' ``srbf.store.stacks.stack_frame``, shown in
    a section of its own and written to tables/stack.csv (None: no section), or a function that
    reads it, called once the curves are being drawn. files: the formats
    and resolution of the figures. at_budget: "max" reads values, verdicts and ranks with every
    method at its own largest complete budget instead of at the time marks. A time mark whose
    values all equal the previous mark's is folded into it in index.md and the figures
    (``Report.notes`` says so); the CSV tables keep every mark. timing: a timing readout's time
    axis (``srbf.stats.timing_readout.TimeAxisSource``) in place of the measured times; a note says so.
    painter: a :class:`srbf.report.drawing.Painter` started before the frame was read, to draw the
    figures (default: one started here).
    """
    frame = require_scores(frame, source or "the frame")
    metrics = choose_metrics(frame, metrics)
    provenance = provenance_labels(frame)
    time_axis = None if timing is None else timing.frame
    if reading is None:
        reading = reading_of(frame, times=times, at_budget=at_budget, time_axis=time_axis)
    analysis, marks = analysis_at_marks(frame, metrics, times=times, statistic=statistic, confirmatory=confirmatory,
                                        seed=seed, n_resamples=n_resamples, time_axis=time_axis, reading=reading)
    shown, notes = collapse_repeated(analysis.aggregates, marks)  # the tables keep every mark
    if timing is not None:
        notes = [timing.note, *notes]
    out = Path(out)
    folder = out / "figures"
    folder.mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    with painter or Painter() as painter:  # its processes draw while the tables and index.md are written here
        times_shown = [m.x for m in shown if m.axis == "time"]
        units = budget_units(frame)
        early = [curve_job(analysis.aggregates, metric, folder, files, provenance=provenance, times=times_shown,
                           show_incomplete=show_incomplete, units=units) for metric in metrics]
        budgets = T.largest_complete_budgets(analysis.aggregates)
        pictures = {"pareto": pareto_table(frame, budgets, seed=seed, n_resamples=n_resamples),
                    "distributions": distribution_points(frame, budgets)}
        pictures["distribution_boxes"] = distribution_boxes(pictures["distributions"])
        if not pictures["pareto"].empty:
            early.append(pareto_job(pictures["pareto"], provenance, folder, files))
        if not pictures["distribution_boxes"].empty:
            early.append(distribution_job(pictures["distributions"], pictures["distribution_boxes"], folder, files))
        painter.draw(early)  # they need the aggregates and the per-problem values only
        headline = T.headline_mark(analysis.aggregates, shown)
        if callable(stack):  # read while the curves are drawn
            stack = stack()
        methods = sorted(frame["method"].astype(str).unique())

        board = leaderboard_table(frame, metrics, analysis=analysis, marks=marks)
        sets = T.per_set(analysis, metrics)
        verdicts = T.verdicts(analysis.comparisons, [m for m in metrics if comparable(m)], marks)
        ranks = analysis.ranks
        if not ranks.empty:
            ranks = pd.concat([m.select(ranks) for m in marks] or [ranks.iloc[:0]], ignore_index=True)
        frames = {"aggregates": analysis.aggregates, "leaderboard": board, "per_set": sets, "comparisons": verdicts,
                  "ranks": ranks, "time_axis": analysis.time_axis, **pictures}
        if stack is not None:
            frames["stack"] = stack[stack["method"].astype(str).isin(methods)]
        written = {}
        for name in (*TABLES, *(("stack",) if stack is not None else ())):
            path = out / "tables" / f"{name}.csv"
            write_csv(frames[name], path)
            written[name] = path

        jobs, sections = [], {}
        for metric in (m for m in metrics if comparable(m)):
            if not verdicts.empty and (verdicts["metric"] == metric).any():
                jobs.append(verdict_job(verdicts, metric, shown, methods, folder, files))
                sections.setdefault("verdicts", []).append(metric)
        for metric in _rank_order(m for m in metrics if ranked(m)):
            panels = cd_panels(ranks, metric, shown) if not ranks.empty else []
            if panels:
                jobs.append(cd_job(panels, metric, f"{display_name(metric)}: mean ranks", folder, files))
                sections.setdefault("ranks", []).append(metric)
        painter.draw(jobs)
        figures = [target for _, _, options in (*early, *jobs) for target in files.targets(options["path"])]
        report = Report(out, out / "index.md", figures, written, analysis, metrics, shown, headline, notes, files,
                        reading)
        try:
            text = _index(report, frame, board, sets, verdicts, ranks, methods, sections, statistic, show_incomplete,
                          source, frames.get("stack"), pictures)
        finally:
            report.figures = painter.wait()
    report.index.write_text(text, encoding="utf-8")
    return report


def read_table(path: str | Path) -> pd.DataFrame:
    """A report CSV read back as written: the status and verdict "n/a" stays text (pandas would
    read it as missing), empty cells are missing, escaped text cells unescaped (``csv_cells``)."""
    return read_csv(path, keep_default_na=False, na_values=[""])


def _rank_order(metrics) -> list[str]:
    metrics = list(metrics)
    return sorted(metrics, key=lambda m: (m != T.RANK_METRIC, metrics.index(m)))


def _index(report: Report, frame, board, sets, verdicts, ranks, methods, sections, statistic, show_incomplete,
           source, stack, pictures) -> str:
    a = report.analysis.aggregates
    n_universe = int(a["n_universe"].iloc[0]) if not a.empty else 0
    catalogs = sorted(frame["catalog"].astype(str).unique())
    budgets = sorted(frame["budget"].astype(float).unique())
    draws = frame["draw"].nunique()
    n_predictions = int((~frame["placeholder"].eq(True)).sum()) if "placeholder" in frame.columns else len(frame)
    headline = report.headline
    how = ("sets combined with Paule–Mandel random-effects weights" if statistic == "meta"
           else "expression-level bootstrap (1,000 resamples, pooled over sets)")
    out = [
        "# srbf report",
        "",
        f"srbf {srbf.__version__}, {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}"
        + (f", results: {md(source)}" if source else "") + ".",
        f"{n_predictions} scored predictions: {len(methods)} methods, {len(catalogs)} problem sets "
        f"({n_universe} problems), {draws} draw(s) per problem, budgets {', '.join(f'{b:g}' for b in budgets)}.",
        f"**Reading**: {_reading_text(report.reading)}",
        "",
        f"Values: {how}; every interval is a 95 % interval. Marks: "
        + (", ".join(m.label for m in report.marks) or "none") + "."
        + "".join(f" Note: {note}." for note in report.notes),
        "Numbers are rounded to the precision their interval justifies (docs/report.md, “Rounding”); "
        "every number shown is in `tables/*.csv` at full precision.",
        "",
        *([BUDGET_FALLBACK, ""] if report.marks and report.marks[0].axis == "budget" else []),
        *mismatch_lines(frame),
        "Contents: [Leaderboard](#leaderboard) · [Curves](#curves) · [Accuracy and size](#accuracy-and-size) · "
        "[Per problem set](#per-problem-set) · "
        "[Paired verdicts](#paired-verdicts) · [Ranks](#ranks-and-critical-differences) · "
        + ("[Stack](#stack) · " if stack is not None else "") + "[Files](#files)",
        "",
        "## Leaderboard",
        "",
    ]
    if headline is None:
        out += ["_No method has a value at any mark._", ""]
    else:
        out += [f"At **{headline.label}**" + _mark_detail(headline, a) + ". Each cell: value "
                "[95 % interval] (problems behind it, of " + f"{n_universe})."
                + (" Methods in order of the first metric, best first." if report.metrics else ""), ""]
        out.append(T.leaderboard_markdown(headline.select(board) if not board.empty else board, report.metrics,
                                          show_incomplete))
        out += [_footnotes(show_incomplete), ""]
        labels = label_note(dict(zip(board["method"], board["provenance"])))
        out += [labels, ""] if labels else []
        others = [m for m in report.marks if m != headline]
        if others:
            out += ["<details><summary>At the other marks</summary>", ""]
            for mark in others:
                out += [f"**At {mark.label}**", "", T.leaderboard_markdown(mark.select(board), report.metrics,
                                                                           show_incomplete)]
            out += ["</details>", ""]

    out += ["## Curves", "",
            "Each metric against each method's budget (its own unit) and against its seconds per problem "
            "(median of its usable fits). Bands: 95 % intervals, pointwise (each budget's band stands on its "
            "own). Hollow points rest on fewer than 90 % of the problems"
            + ("." if show_incomplete else "; incomplete budgets are left out."), ""]
    for metric in report.metrics:
        out += _figure(report, f"{display_name(metric)} against budget and time", f"curve_{metric}",
                       f"{titled_code(metric)} against each method's budget, one panel per method on its own "
                       "unit (top), and against seconds per problem (bottom).")

    out += pictures_section(report, pictures, _figure)
    out += ["## Per problem set", "",
            "Each set's own mean with its 95 % t interval (geometric for ratios) and its number of problems, "
            "per method at its largest complete budget.", ""]
    for metric in report.metrics:
        out += [f"### {titled_code(metric)}", "", T.per_set_markdown(sets, metric)]

    out += ["## Paired verdicts", ""]
    if "verdicts" not in sections:
        out += ["_No comparable metric (a direction and a mean) among the metrics shown._", ""]
    else:
        out += ["Per-problem differences Δ = row − column, combined across sets; the verdict compares Δ's 95 % "
                "interval with the pair's measured noise margin m: 🟩 better / 🟥 worse (the interval clears ±m), "
                "🟦 equivalent (inside [−m, +m]), 🟨 undecided (neither), ⬜ n/a (a side cannot run within t).",
                "", families_text(verdicts), ""]
        labels = label_note(provenance_labels(frame))
        out += [labels, ""] if labels else []
        for metric in sections["verdicts"]:
            out += [f"### {titled_code(metric)}", "",
                    *_figure(report, f"verdicts on {display_name(metric)}", f"verdicts_{metric}",
                             f"Paired verdicts on {titled_code(metric)}, one matrix per mark.")]
            if headline is not None:
                out += [f"At {headline.label}:", "", T.verdict_markdown(verdicts, metric, headline, methods),
                        _verdict_details(verdicts, metric, headline)]
            out += _same_configuration(verdicts, metric)

    out += ["## Ranks and critical differences", ""]
    if "ranks" not in sections:
        out += ["_No ranked metric among the metrics shown._", ""]
    else:
        out += ["Methods ranked within each problem (1 = best, ties averaged; failures last on quality metrics, "
                "length metrics only over problems every method solved); the axis shows mean ranks. Methods joined "
                "by a bar differ by less than the critical difference CD (Nemenyi, α = 0.05): no rank difference "
                "was detectable, which is not proof of equality. Bars are drawn only when the Friedman test is "
                f"significant. `{T.RANK_METRIC}` is the quotable ranking; the others are exploratory. A hollow dot "
                "marks a max-tested method (a worst case).", ""]
        for metric in sections["ranks"]:
            label = "" if metric == T.RANK_METRIC else " (exploratory)"
            out += [f"### {titled_code(metric)}{label}", "",
                    *_figure(report, f"critical-difference diagram of {display_name(metric)}", f"cd_{metric}",
                             f"Mean ranks on {titled_code(metric)}, one diagram per mark.")]
            if headline is not None:
                out += [f"At {headline.label}:", "", T.ranks_markdown(T.rank_rows(ranks, metric, headline))]

    if stack is not None:
        out += ["## Stack", "", *stack_markdown(stack)]
    out += ["## Files", ""]
    out += [f"- `tables/{name}.csv`" for name in report.tables]
    out += [f"- `figures/{path.name}`" for path in report.figures]
    return "\n".join(out) + "\n"


def mismatch_lines(frame: pd.DataFrame) -> list[str]:
    """A paragraph naming the methods whose model strings disagree with their own predict."""
    if "model_string_mismatch" not in frame.columns or not frame["model_string_mismatch"].fillna(False).any():
        return []
    counts = frame[frame["model_string_mismatch"].fillna(False).astype(bool)].groupby("method").size()
    listed = ", ".join(f"{md(str(m))} {n} of {int((frame['method'] == m).sum())}" for m, n in counts.items())
    return [f"**Model strings that disagree with their method's own predict** (`model_string_mismatch`): {listed} "
            "fits. Their scores are the formula's, not the fitted model's (docs/methods.md).", ""]


def titled_code(metric: str) -> str:
    """A metric's display name with its code: ``validation numeric recovery rate (`nrr_validation`)``."""
    name = display_name(metric)
    return f"`{metric}`" if name == metric else f"{name} (`{metric}`)"


def _figure(report: Report, alt: str, stem: str, caption: str) -> list[str]:
    """A figure in index.md (embedded as PNG or SVG; a PDF only as a link) and its caption."""
    fmt = report.files.embedded
    target = f"figures/{stem}.{fmt}"
    shown = f"[{alt} (PDF)]({target})" if fmt == "pdf" else f"![{alt}]({target})"
    return [shown, "", f"_{caption}_", ""]


def _mark_detail(mark: T.Mark, aggregates: pd.DataFrame) -> str:
    if mark.axis == "time":
        return " (each method interpolated in log time between its budgets)"
    if mark.axis == "max_budget":
        budgets = mark.select(aggregates).drop_duplicates("method").sort_values("method")
        return " (" + ", ".join(f"{md(r.method)}: {r.budget:g}" for r in budgets.itertuples()) + ")"
    return ""


def families_text(verdicts: pd.DataFrame) -> str:
    """Which comparisons were confirmatory (Holm) and which exploratory (BH), read from the table
    itself so the sentence cannot disagree with the p-values shown."""
    declared = verdicts[verdicts["confirmatory"].astype(bool)]
    pairs = sorted(set(zip(declared["method_a"], declared["method_b"])))
    bh = "p-values Benjamini–Hochberg-corrected per metric across the marks"
    if not pairs:
        return f"No comparison was declared confirmatory: every comparison is **exploratory**, its {bh}."
    listed = ", ".join(f"{md(a)} vs {md(b)}" for a, b in pairs)
    text = (f"**Confirmatory** (declared, marked {T.CONFIRMATORY_MARK}): {listed}; p-values Holm-corrected per metric "
            "across the marks.")
    if (~verdicts["confirmatory"].astype(bool)).any():
        text += f" **Exploratory**: every other comparison; {bh}."
    return text


def _reading_text(reading: Reading | None) -> str:
    if reading is None:
        return "as the marks below say."
    how = "as asked" if reading.chosen == "asked" else "chosen from the data"
    return (f"at {md(reading.label)} ({how}: {md(reading.reason)}). `srbf compare` and the explorer read at the "
            "same place by the same rule (docs/report.md, “Where values are read”).")


def _same_configuration(verdicts: pd.DataFrame, metric: str) -> list[str]:
    """The same-configuration pairs (two entries of one adapter) on ``metric``, at each budget both ran."""
    if verdicts.empty or "same_configuration" not in verdicts:
        return []
    rows = verdicts[verdicts["same_configuration"].astype(bool) & (verdicts["metric"] == metric)
                    & (verdicts["axis"] == "budget")]
    if rows.empty:
        return []
    lines = ["Two entries of one adapter (ablations, repeats) are compared at the same configuration, each "
             "budget both ran, not at equal time (two factors would vary at once):", "",
             "| A | B | at | Δ = A − B [95 %] | margin m | verdict on A | decided by | p, test of Δ = 0 (corrected) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for _, r in rows.iterrows():
        if r["verdict"] == "n/a":
            lines.append(f"| {md(r['method_a'])} | {md(r['method_b'])} | budget {r['budget']:g} | — | — | n/a | — | — |")
            continue
        d = int(r["decimals"])
        lines.append(f"| {md(r['method_a'])} | {md(r['method_b'])} | budget {r['budget']:g} | {r['delta_shown']} | "
                     f"±{T.format_fixed(r['margin'], d)} | {r['verdict']} | {T.decided_by(r)} | "
                     f"{r['p_adjusted_shown']} ({T.correction_label(r)}) |")
    return lines + [""]


def _footnotes(show_incomplete: bool) -> str:
    notes = ["† fewer than 90 % of the problems behind the value (a diagnostic over the problems a method "
             "solved flatters it)", "‡ max tested: the method's dearest budget is below this time; its value is "
             "carried forward, a lower bound"]
    if show_incomplete:
        notes.append("§ incomplete: some problem has no finished draw yet")
    else:
        notes.append("incomplete: some problem has no finished draw yet; the value is withheld")
    return "Notes: " + "; ".join(notes) + "."


def _verdict_details(verdicts: pd.DataFrame, metric: str, mark: T.Mark) -> str:
    rows = mark.select(verdicts)
    rows = rows[rows["metric"] == metric]
    if rows.empty:
        return ""
    lines = ["<details><summary>Details: Δ, margin, what decided each verdict, MDE₈₀, p, problems paired</summary>", "",
             "The verdict is decided by Δ's interval against the margin m alone; p is a separate test (of Δ = 0, "
             "corrected for the many comparisons), so a pair can be significant yet undecided, or decided with a "
             "large p.", "",
             "| A | B | Δ = A − B [95 %] | margin m | verdict on A | decided by | MDE₈₀ | p, test of Δ = 0 (corrected) "
             "| pairs |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for _, r in rows.iterrows():
        if r["verdict"] == "n/a":
            lines.append(f"| {md(r['method_a'])} | {md(r['method_b'])} | — | — | n/a | {r['decided_by']} | — | — | — |")
            continue
        d = int(r["decimals"])
        lines.append(f"| {md(r['method_a'])} | {md(r['method_b'])} | {r['delta_shown']} | "
                     f"±{T.format_fixed(r['margin'], d)} | {r['verdict']} | {r['decided_by']} | "
                     f"{T.format_fixed(r['mde80'], d)} | {r['p_adjusted_shown']} ({T.correction_label(r)}) | "
                     f"{int(r['n_pairs'])} |")
    lines += ["", "</details>", ""]
    return "\n".join(lines)
