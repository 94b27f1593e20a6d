"""``srbf compare`` and ``srbf ranks``: one pair's paired comparisons, or the standings, from the
same analysis the report runs, as records (for --json) and as plain-text tables."""

from __future__ import annotations

import json

import pandas as pd

from srbf.core import to_plain
from srbf.report import markdown_tables as T
from srbf.report.readings import comparable, ranked, run_analysis
from srbf.report.data import ReportInputError, check_methods, check_metrics, label_note, metric_columns, provenance_labels
from srbf.report.rounding import format_fixed, format_significant, format_with
from srbf.report.text import text_table
from srbf.stats import DECLARED_TIMES, analyze
from srbf.stats.ranks import cd_groups

COMPARE_FIELDS = ("axis", "time", "budget", "metric", "method_a", "method_b", "status_a", "status_b", "delta",
                  "ci_low", "ci_high", "se", "df", "tau2", "margin", "mde80", "verdict", "verdict_note", "test",
                  "p_value", "p_adjusted", "family", "correction", "confirmatory", "n_pairs", "n_a_only", "n_b_only",
                  "noise_problems", "wins_a", "wins_b", "ties", "complete", "same_configuration", "decided_by",
                  "provenance_a", "provenance_b")


def to_json(value) -> str:
    """``value`` as JSON text: NumPy scalars unwrapped, NaN and infinities as null."""
    return json.dumps(to_plain(value, non_finite="null"), indent=2, allow_nan=False)


# -- compare ------------------------------------------------------------------------------------------

def compare(frame: pd.DataFrame, a: str, b: str, *, metrics=None, times=None, statistic: str = "meta",
            confirmatory=(), seed: int = 0, n_resamples: int = 1000, at_budget: str | None = None,
            reading=None, time_axis: pd.DataFrame | None = None) -> list[dict]:
    """Method ``a`` against ``b`` on each metric at each mark, seen from ``a`` (Delta = a - b): the
    comparison records of the analysis (every method analysed, so the numbers equal the report's),
    read where the report reads (``reading``, else ``srbf.stats.reading.choose_reading`` of
    ``at_budget`` and ``times``); two entries of one adapter at each budget both ran.
    confirmatory: the declared pairs of method labels, as for the report; it decides each
    p-value's correction (Holm for those pairs, Benjamini-Hochberg for the rest)."""
    check_methods(frame, [a, b])
    if a == b:
        raise ReportInputError(f"compare needs two different methods, got {a!r} twice")
    if metrics:
        check_metrics(frame, metrics)
        refused = [m for m in metrics if not comparable(m)]
        if refused:
            raise ReportInputError(f"no verdicts on {', '.join(refused)}: a metric without a direction, or one led "
                                   "by its median (R², raw FVU), is not compared")
    else:
        metrics = [m for m in T.HEADLINE_METRICS if m in frame.columns and comparable(m)]
        metrics = metrics or [m for m in metric_columns(frame) if comparable(m)]
    analysis, marks, _ = run_analysis(frame, metrics, times=times, statistic=statistic, confirmatory=confirmatory,
                                      seed=seed, n_resamples=n_resamples, at_budget=at_budget, reading=reading,
                                      time_axis=time_axis)
    table = T.verdicts(analysis.comparisons, metrics, marks)
    provenance = provenance_labels(frame)
    records = []
    if table.empty:
        return records
    pair = ((table["method_a"] == a) & (table["method_b"] == b)) | ((table["method_a"] == b) & (table["method_b"] == a))
    for metric in metrics:
        for _, row in table[pair & (table["metric"] == metric)].iterrows():
            record = {**T.oriented(row, a), "provenance_a": provenance[a], "provenance_b": provenance[b]}
            records.append({key: record.get(key) for key in COMPARE_FIELDS})
    return records


_FAMILY = {"holm": "Holm, confirmatory", "benjamini-hochberg": "BH, exploratory"}


def mark_text(record: dict) -> str:
    if record["axis"] == "time":
        return f"{record['time']:g} s"
    if record["axis"] == "max_budget":
        return "largest budgets"
    return f"budget {record['budget']:g}" + (" (same config.)" if record.get("same_configuration") else "")


def compare_text(records: list[dict]) -> str:
    if not records:
        return "no comparisons"
    a, b = records[0]["method_a"], records[0]["method_b"]
    labels = {a: records[0]["provenance_a"], b: records[0]["provenance_b"]}
    corrections = {r["correction"] for r in records}  # one pair: confirmatory or not on every metric and mark
    family = _FAMILY.get(corrections.pop(), "corr.") if len(corrections) == 1 else "corr."
    header = ["metric", "at", f"Δ = {a} ({labels[a]}) − {b} ({labels[b]}) [95 %]", "margin", "verdict on " + a,
              "decided by", "MDE80", f"p of Δ = 0 ({family})", "pairs"]
    rows = []
    for r in records:
        at = mark_text(r)
        if r["verdict"] == "n/a":
            rows.append([r["metric"], at, "—", "—", "n/a", r.get("decided_by") or r["verdict_note"], "—", "—", "—"])
            continue
        shown, d = format_with(r["delta"], r["ci_low"], r["ci_high"])
        status = "" if r["status_a"] == r["status_b"] == "measured" else f" [{r['status_a']}/{r['status_b']}]"
        rows.append([r["metric"], at + status, shown, "±" + format_fixed(r["margin"], d), r["verdict"],
                     r.get("decided_by") or "", format_fixed(r["mde80"], d), T.format_p(r["p_adjusted"]),
                     str(int(r["n_pairs"]))])
    footnote = label_note(labels)
    notes = ["The verdict is decided by the interval against the margin; p is a separate test of Δ = 0."]
    return text_table(header, rows) + "\n" + "\n".join(notes + ([footnote] if footnote else []))


# -- ranks --------------------------------------------------------------------------------------------


def check_common_budget(frame: pd.DataFrame, budget: float) -> None:
    """Refuse a budget that is not every method's: ranks at one budget compare every method there."""
    budgets = frame.groupby(frame["method"].astype(str))["budget"].agg(lambda b: set(b.astype(float)))
    lacking = sorted(m for m, own in budgets.items() if budget not in own)
    if lacking:
        common = sorted(set.intersection(*budgets)) if len(budgets) else []
        raise ReportInputError(f"budget {budget:g} is not every method's budget ({', '.join(lacking)} "
                               f"{'has' if len(lacking) == 1 else 'have'} no fit at it); budgets of every method: "
                               + (", ".join(f"{b:g}" for b in common) or "none"))  # fmt: skip

def ranks(frame: pd.DataFrame, metric: str | None = None, *, times=None, budget: float | None = None,
          statistic: str = "meta") -> dict:
    """Mean ranks, Friedman test, CD and groups of ``metric`` at each time mark (or at ``budget``)."""
    if metric is None:
        candidates = [T.RANK_METRIC] + [m for m in T.HEADLINE_METRICS if m != T.RANK_METRIC] + metric_columns(frame)
        metric = next((m for m in candidates if m in frame.columns and ranked(m)), None)
        if metric is None:
            raise ReportInputError("no ranked metric in the scored predictions")
    check_metrics(frame, [metric])
    if not ranked(metric):
        raise ReportInputError(f"{metric} is not ranked (it has no direction: its ideal value is a target)")
    if budget is not None:
        check_common_budget(frame, float(budget))
        analysis = analyze(frame, [metric], times=(), compare_at="budget", statistic=statistic, parts=("ranks",))
        marks = [T.Mark("budget", float(budget))]
        table = analysis.ranks
    else:
        analysis, marks, _ = run_analysis(frame, [metric], times=times or DECLARED_TIMES, statistic=statistic)
        table = analysis.ranks
    provenance = provenance_labels(frame)
    out = {"metric": metric, "marks": [], "provenance": provenance}
    for mark in marks:
        rows = T.rank_rows(table, metric, mark)
        if rows.empty:
            continue
        first = rows.iloc[0]
        names = list(rows["method"])
        groups = cd_groups(rows["mean_rank"].to_numpy(dtype=float), float(first["cd"])) if first["significant"] else []
        out["marks"].append({
            "axis": mark.axis, "time": mark.x if mark.axis == "time" else None,
            "budget": mark.x if mark.axis == "budget" else None,
            "k": int(first["k"]), "n_problems": int(first["n_problems"]), "population": first["population"],
            "friedman_statistic": float(first["friedman_statistic"]), "p_value": float(first["p_value"]),
            "cd": float(first["cd"]), "significant": bool(first["significant"]),
            "groups": [[names[i] for i in g] for g in groups],
            "methods": [{"method": r["method"], "provenance": provenance.get(r["method"], "harness_tuned"),
                         "mean_rank": float(r["mean_rank"]), "status": r["status"],
                         "complete": bool(r["complete"]), "groups": r["groups"]} for _, r in rows.iterrows()],
        })
    return out


def ranks_text(result: dict) -> str:
    if not result["marks"]:
        return f"no ranks of {result['metric']} at the marks asked for"
    blocks = []
    for mark in result["marks"]:
        at = f"{mark['time']:g} s" if mark["axis"] == "time" else f"budget {mark['budget']:g}"
        verdict = "significant" if mark["significant"] else "not significant: no groups"
        lines = [f"{result['metric']} at {at}: Friedman χ² = {format_significant(mark['friedman_statistic'], 3)}, "
                 f"{T.p_equals(mark['p_value'])} ({verdict}); CD = {mark['cd']:.2f}; "
                 f"N = {mark['n_problems']} problems ({mark['population']})"]
        rows = [[str(i + 1), f"{m['method']} ({m['provenance']})", f"{m['mean_rank']:.2f}", m["groups"] or "—",
                 m["status"]] for i, m in enumerate(mark["methods"])]
        lines.append(text_table(["#", "method (provenance)", "mean rank", "groups", "status"], rows))
        footnote = label_note({m["method"]: m["provenance"] for m in mark["methods"]})
        if footnote:
            lines.append(footnote)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
