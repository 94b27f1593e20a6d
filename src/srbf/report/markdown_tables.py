"""The report's tables, built from an :class:`srbf.stats.Analysis`: leaderboard, per-set values,
paired verdicts and ranks. Each is a DataFrame holding the full-precision numbers of the analysis
next to the rounded ones the report shows (``*_shown``), so every number on the page can be traced
to a CSV cell; the Markdown renderers read only those frames.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from srbf.report.escape import md
from srbf.report.rounding import format_fixed, format_p, format_significant, format_with, interval_decimals
from srbf.stats import rule_for

# docs/metrics.md and seed 001: accuracy first, then symbolic recovery (strict, and tolerant of float
# noise beside it), fit, parsimony, usability.
HEADLINE_METRICS = ("nrr_validation", "srr_structure", "srr_structure_pruned", "log10_fvu_validation",
                    "token_count_mismatch", "success")
MEDIAN_SHOWN = ("log10_fvu_support", "log10_fvu_validation")  # shown with their median as well
RANK_METRIC = "log10_fvu_validation"  # the quotable ranking (seed 000); the others are exploratory

VERDICT_MARK = {"better": "🟩", "worse": "🟥", "equivalent": "🟦", "undecided": "🟨", "n/a": "⬜"}
NO_VALUES = "n = 0"  # a diagnostic of a method that returned no usable formula: nothing to average
CONFIRMATORY_MARK = "◆"  # a declared confirmatory comparison (Holm), as opposed to an exploratory one (BH)
CORRECTION_LABEL = {"holm": "Holm", "benjamini-hochberg": "BH"}
FLIPPED = {"better": "worse", "worse": "better"}
_STATISTICS = ("delta", "ci_low", "ci_high", "se", "margin", "mde80", "p_value", "p_adjusted", "n_pairs")
_SWAPS = (("method_a", "method_b"), ("status_a", "status_b"), ("n_a_only", "n_b_only"), ("wins_a", "wins_b"))


@dataclass(frozen=True)
class Mark:
    """Where values are read: at ``x`` seconds (axis "time"), at budget ``x`` (axis "budget"), or
    at each method's own largest budget (axis "max_budget", ``x`` unused: srbf.report.marks)."""

    axis: str
    x: float

    @property
    def label(self) -> str:
        if self.axis == "max_budget":
            return "each method's largest budget"
        return f"{self.x:g} s" if self.axis == "time" else f"budget {self.x:g}"

    @property
    def slug(self) -> str:
        if self.axis == "max_budget":
            return "bmax"
        return (f"t{self.x:g}" if self.axis == "time" else f"b{self.x:g}").replace(".", "p")

    def select(self, table: pd.DataFrame) -> pd.DataFrame:
        if table.empty:
            return table
        if self.axis == "max_budget":
            return table[table["axis"] == self.axis]
        column = "time" if self.axis == "time" else "budget"
        return table[(table["axis"] == self.axis) & (table[column] == self.x)]


def wants_median(metric: str) -> bool:
    return metric in MEDIAN_SHOWN or rule_for(metric).primary == "median"


# -- where the report reads its values -------------------------------------------------------------

def time_marks(aggregates: pd.DataFrame, times) -> list[Mark]:
    """The time marks at which at least one method has a value (can run within t)."""
    rows = aggregates[aggregates["axis"] == "time"]
    return [Mark("time", float(t)) for t in times
            if (rows.loc[rows["time"] == float(t), "status"] != "n/a").any()]


def budget_marks(aggregates: pd.DataFrame) -> list[Mark]:
    rows = aggregates[aggregates["axis"] == "budget"]
    return [Mark("budget", float(b)) for b in sorted(rows["budget"].unique())]


def headline_mark(aggregates: pd.DataFrame, marks: list[Mark]) -> Mark | None:
    """The mark the leaderboard leads with: the largest time at which every method was measured or
    interpolated; else the smallest at which none is n/a; else the one with most methods (on the
    budget axis: the largest budget every method ran, else the one most methods ran)."""
    if not marks:
        return None
    methods = set(aggregates["method"].tolist())

    def statuses(mark: Mark) -> dict:  # each method's first row at the mark (a missing status stays NaN)
        rows = mark.select(aggregates)
        found: dict = {}
        for method, status in zip(rows["method"].tolist(), rows["status"].tolist()):
            found.setdefault(method, status)
        return found

    at = {m: statuses(m) for m in marks}
    if marks[0].axis == "time":
        full = [m for m in marks if all(at[m].get(x) in ("measured", "interpolated") for x in methods)]
        if full:
            return max(full, key=lambda m: m.x)
        none_na = [m for m in marks if all(isinstance(at[m].get(x), str) and at[m][x] != "n/a" for x in methods)]
        if none_na:
            return min(none_na, key=lambda m: m.x)
    count = {m: sum(status != "n/a" for status in at[m].values()) for m in marks}
    return max(marks, key=lambda m: (count[m], m.x))


# -- leaderboard --------------------------------------------------------------------------------------

def leaderboard(aggregates: pd.DataFrame, metrics, mark: Mark, provenance: dict) -> pd.DataFrame:
    """One row per method and metric at ``mark``: the analysis' numbers and the rounded ones shown."""
    rows = mark.select(aggregates)
    rows = rows[rows["metric"].isin(list(metrics))].copy()
    rows.insert(0, "mark", mark.label)
    rows.insert(rows.columns.get_loc("method") + 1, "provenance", rows["method"].map(provenance))
    shown, decimals = zip(*(format_with(e, lo, hi) for e, lo, hi in
                            zip(rows["estimate"], rows["ci_low"], rows["ci_high"]))) if len(rows) else ((), ())
    rows["decimals"] = list(decimals)
    rows["shown"] = list(shown)
    for column in ("estimate", "ci_low", "ci_high"):
        rows[f"{column}_shown"] = [_rounded(v, d) for v, d in zip(rows[column], rows["decimals"])]
    rows["median_shown"] = [
        _rounded(v, 2 - _exponent(v) - 1 if rule_for(m).primary == "median" else d)
        for v, d, m in zip(rows["median"], rows["decimals"], rows["metric"])
    ]
    return rows.reset_index(drop=True)


def _exponent(value) -> int:
    return math.floor(math.log10(abs(value))) if np.isfinite(value) and value != 0 else 0


def _rounded(value, decimals: int) -> float:
    return round(float(value), int(decimals)) if np.isfinite(value) else float(value)


def method_order(board: pd.DataFrame, metric: str) -> list[str]:
    """Methods best first on ``metric`` (direction from the rules), methods without a value last."""
    rule = rule_for(metric)
    rows = board[board["metric"] == metric].set_index("method")["estimate"].astype(float)
    methods = sorted(board["method"].unique())
    if rule.better is None or rows.empty:
        return methods
    key = (-rows if rule.higher_is_better else rows).to_dict()

    def place(method):
        value = key.get(method, np.nan)
        return (0, value, method) if np.isfinite(value) else (1, 0.0, method)

    return sorted(methods, key=place)


def _value_cell(row, show_incomplete: bool) -> str:
    if row["status"] == "n/a":
        return "n/a"
    if not row["complete"] and not show_incomplete:
        return f"incomplete ({int(row['n_problems'])}/{int(row['n_universe'])})"
    if row["n_problems"] == 0:
        return NO_VALUES
    text = f"{row['shown']} ({int(row['n_problems'])})"
    if row["low_share"]:
        text += " †"
    if row["status"] == "max_tested":
        text += " ‡"
    if not row["complete"]:
        text += " §"
    return text


def leaderboard_markdown(board: pd.DataFrame, metrics, show_incomplete: bool = False) -> str:
    """The leaderboard as a Markdown table, methods best first on the first metric."""
    metrics = [m for m in metrics if (board["metric"] == m).any()]
    if not metrics:
        return "_no values at this mark_\n"
    order = method_order(board, metrics[0])
    header = ["method (provenance)", "status"]
    for metric in metrics:
        header.append(f"{metric} (n)")
        if wants_median(metric):
            header.append(f"{metric} median")
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    indexed = board.set_index(["method", "metric"])
    for method in order:
        first = indexed.loc[method].iloc[0]
        cells = [f"**{md(method)}** ({md(first['provenance'])})", str(first["status"])]
        for metric in metrics:
            row = indexed.loc[(method, metric)] if (method, metric) in indexed.index else None
            cells.append("—" if row is None else _value_cell(row, show_incomplete))
            if wants_median(metric):
                ok = row is not None and row["status"] != "n/a" and (row["complete"] or show_incomplete)
                cells.append(format_fixed(row["median_shown"], _decimals_of(row, metric)) if ok else "—")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _decimals_of(row, metric: str) -> int:
    if rule_for(metric).primary == "median":
        return 2 - _exponent(row["median"]) - 1
    return int(row["decimals"])


# -- per problem set ----------------------------------------------------------------------------------

def per_set(analysis, metrics) -> pd.DataFrame:
    """Each set's mean with its 95 % t interval (sd / sqrt(n), on the set's combining scale: a
    geometric interval for ratios), per method at its largest complete budget."""
    from scipy import special  # here: the drawing process imports this module for ``oriented``, without SciPy

    table = analysis.per_set
    if table.empty:
        return table
    table = table[table["metric"].isin(list(metrics))].copy()
    budgets = largest_complete_budgets(analysis.aggregates)
    table = table[table["budget"] == table["method"].map(budgets)].copy()
    n = table["n_problems"].astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(n >= 2, special.stdtrit(np.maximum(n - 1, 1), 0.975), np.nan)
        half = t * table["sd"].to_numpy(dtype=float) / np.sqrt(n)
    low, high = [], []
    for mean, h, metric in zip(table["mean"], half, table["metric"]):
        scale = rule_for(metric).scale
        if scale == "log":
            low.append(mean * math.exp(-h) if np.isfinite(h) else np.nan)
            high.append(mean * math.exp(h) if np.isfinite(h) else np.nan)
        elif scale == "logit":
            low.append(max(mean - h, 0.0))
            high.append(min(mean + h, 1.0))
        else:
            low.append(mean - h)
            high.append(mean + h)
    bounds = table["metric"].map(lambda m: rule_for(m).bounds)
    low = [min(max(v, b[0]), b[1]) if np.isfinite(v) else v for v, b in zip(low, bounds)]
    high = [min(max(v, b[0]), b[1]) if np.isfinite(v) else v for v, b in zip(high, bounds)]
    table["ci_low"], table["ci_high"] = low, high
    shown = [format_with(m, lo, hi) for m, lo, hi in zip(table["mean"], low, high)]
    table["shown"] = [s for s, _ in shown]
    table["decimals"] = [d for _, d in shown]
    for column in ("mean", "ci_low", "ci_high"):
        table[f"{column}_shown"] = [_rounded(v, d) for v, d in zip(table[column], table["decimals"])]
    return table.reset_index(drop=True)


def largest_complete_budgets(aggregates: pd.DataFrame) -> dict:
    """Each method's largest budget every problem finished (its largest budget when none did)."""
    rows = aggregates[aggregates["axis"] == "budget"]
    out = {}
    for method, group in rows.groupby("method"):
        complete = group.loc[group["complete"].astype(bool), "budget"]
        out[method] = float(complete.max() if len(complete) else group["budget"].max())
    return out


def per_set_markdown(table: pd.DataFrame, metric: str) -> str:
    rows = table[table["metric"] == metric]
    if rows.empty:
        return "_no per-set values_\n"
    methods = sorted(table["method"].unique())  # one without a value here (no usable formula): n = 0
    budget = table.groupby("method")["budget"].first()
    header = ["set"] + [f"{md(m)} (budget {budget[m]:g})" for m in methods]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    versions, cells = {}, {}  # one pass over plain columns: a pandas lookup per cell is most of the report's text time
    for catalog, version, method, shown, n in zip(rows["catalog"], rows["catalog_version"], rows["method"],
                                                  rows["shown"], rows["n_problems"]):
        versions.setdefault(catalog, version)
        cells.setdefault((catalog, method), f"{shown} ({int(n)})")
    for catalog in sorted(versions):
        row = [f"{md(catalog)} v{versions[catalog]}"] + [cells.get((catalog, m), NO_VALUES) for m in methods]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


# -- paired verdicts ----------------------------------------------------------------------------------

def verdicts(comparisons: pd.DataFrame, metrics, marks) -> pd.DataFrame:
    """The comparisons at ``marks`` on ``metrics``, and those of the same-configuration pairs (two
    entries of one adapter, at each budget both ran), with Delta, margin and MDE80 rounded to the
    places Delta's interval justifies and the p-values to two significant digits."""
    if comparisons.empty:
        return comparisons
    chosen = np.zeros(len(comparisons), dtype=bool)
    for mark in marks:
        chosen |= comparisons.index.isin(mark.select(comparisons).index)
    if "same_configuration" in comparisons:
        chosen |= (comparisons["same_configuration"].astype(bool) & (comparisons["axis"] == "budget")).to_numpy()
    table = comparisons[chosen]
    table = table[table["metric"].isin(list(metrics))].copy()
    if table.empty:
        return table.reset_index(drop=True)
    for column in _STATISTICS:  # absent when every pair is n/a (no side can run within t)
        if column not in table:
            table[column] = np.nan
    shown = [format_with(d, lo, hi) for d, lo, hi in zip(table["delta"], table["ci_low"], table["ci_high"])]
    table["delta_shown"] = [s for s, _ in shown]
    table["decimals"] = [d for _, d in shown]
    for column in ("delta", "ci_low", "ci_high", "margin", "mde80"):
        table[f"{column}_rounded"] = [_rounded(v, d) for v, d in zip(table[column], table["decimals"])]
    table["p_shown"] = [format_p(p) for p in table["p_value"]]
    table["p_adjusted_shown"] = [format_p(p) for p in table["p_adjusted"]]
    table["decided_by"] = [decided_by(row) for row in table.to_dict("records")]
    return table.reset_index(drop=True)


def decided_by(row) -> str:
    """What decided a verdict, in words: Delta's 95 % interval against the noise margin m (rounded
    as the row shows them), or the note that overrode it. The p-value is a separate test (of
    Delta = 0) and never decides a verdict."""
    verdict, note = row["verdict"], row.get("verdict_note")
    note = note if isinstance(note, str) else ""
    if verdict == "n/a":
        return note or "a side cannot run within t"
    if note in ("identical outputs",):
        return "every paired difference is 0"
    if note in ("no interval", "no noise margin", NO_VALUES):
        return note
    lo, hi, m = (format_significant(row[k], 2) for k in ("ci_low", "ci_high", "margin"))
    interval = f"interval [{lo}, {hi}]"
    if note == "max-tested limit":
        return f"{interval} against ±{m}, but a max-tested side could overturn it"
    if verdict in ("better", "worse"):
        return f"{interval} clears ±{m} ({'above +' if row['ci_low'] > row['margin'] else 'below −'}{m})"
    if verdict == "equivalent":
        return f"{interval} lies inside ±{m}"
    return f"{interval} crosses ±{m}: neither clear of it nor inside it"


def correction_label(row) -> str:
    """How a comparison's p-value was corrected, short: "Holm" (confirmatory) or "BH" (exploratory)."""
    return CORRECTION_LABEL.get(row.get("correction"), str(row.get("correction")))


def oriented(row, a: str) -> dict:
    """A comparison record as seen from method ``a`` (Delta = a - other), flipping it if needed."""
    record = dict(row)
    if record["method_a"] == a:
        return record
    for left, right in _SWAPS:
        record[left], record[right] = record.get(right), record.get(left)
    record["delta"] = -record["delta"]
    record["ci_low"], record["ci_high"] = -record["ci_high"], -record["ci_low"]
    for key in ("delta_rounded", "ci_low_rounded", "ci_high_rounded"):
        record.pop(key, None)
    if "delta_shown" in record:
        record["delta_shown"] = format_with(record["delta"], record["ci_low"], record["ci_high"])[0]
    record["verdict"] = FLIPPED.get(record["verdict"], record["verdict"])
    if "decided_by" in record:
        record["decided_by"] = decided_by(record)
    return record


def verdict_markdown(table: pd.DataFrame, metric: str, mark: Mark, methods) -> str:
    """Row method vs column method: the verdict on the row method, colored, with Delta (row - column);
    a confirmatory pair is marked ◆."""
    rows = mark.select(table)
    rows = rows[rows["metric"] == metric]
    if rows.empty:
        return "_no comparisons_\n"
    cells = {}
    for _, row in rows.iterrows():
        for a in (row["method_a"], row["method_b"]):
            record = oriented(row, a)
            cells[(record["method_a"], record["method_b"])] = record
    header = ["row vs column"] + [md(m) for m in methods]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    for a in methods:
        line = [f"**{md(a)}**"]
        for b in methods:
            record = cells.get((a, b))
            if a == b or record is None:
                line.append("—")
                continue
            text = f"{VERDICT_MARK.get(record['verdict'], '')} {record['verdict']}"
            if record.get("n_pairs") == 0:
                text += f" ({NO_VALUES})"
            if record["verdict"] != "n/a" and np.isfinite(record["delta"]):
                d = interval_decimals((record["ci_high"] - record["ci_low"]) / 2, record["delta"])
                text += f" {'+' if record['delta'] > 0 else ''}{format_fixed(record['delta'], d)}"
            if record.get("confirmatory"):
                text += f" {CONFIRMATORY_MARK}"
            line.append(text)
        lines.append("| " + " | ".join(line) + " |")
    return "\n".join(lines) + "\n"


# -- ranks --------------------------------------------------------------------------------------------

def rank_rows(ranks: pd.DataFrame, metric: str, mark: Mark) -> pd.DataFrame:
    if ranks.empty:
        return ranks
    rows = mark.select(ranks)
    return rows[rows["metric"] == metric].sort_values(["mean_rank", "method"]).reset_index(drop=True)


def ranks_markdown(rows: pd.DataFrame) -> str:
    if rows.empty:
        return "_no ranks_\n"
    lines = ["| method | mean rank | groups | status |", "| --- | --- | --- | --- |"]
    for _, row in rows.iterrows():
        lines.append(f"| {md(row['method'])} | {row['mean_rank']:.2f} | {row['groups'] or '—'} | {row['status']} |")
    lines.append("")
    lines.append(rank_summary(rows.iloc[0]))
    return "\n".join(lines) + "\n"


def p_equals(p) -> str:
    text = format_p(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def rank_summary(row) -> str:
    verdict = "significant: bars join methods within one CD" if row["significant"] else "not significant: no groups"
    return (f"Friedman χ² = {format_significant(row['friedman_statistic'], 3)}, "
            f"{p_equals(row['p_value'])} ({verdict}); CD = {row['cd']:.2f}; "
            f"k = {int(row['k'])} methods on N = {int(row['n_problems'])} problems ({row['population']}).")
