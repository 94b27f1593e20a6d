"""Where the report reads its values, beyond the declared time marks: repeated time marks folded
into the first of them, and the comparison of every method at its own largest budget.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from srbf.report.markdown_tables import Mark, largest_complete_budgets
from srbf.stats import Analysis, analyze
from srbf.stats.analysis import correct

VALUES = ("estimate", "ci_low", "ci_high", "median", "n_problems")  # what "the same values" compares


def collapse_repeated(aggregates: pd.DataFrame, marks: list[Mark]) -> tuple[list[Mark], list[str]]:
    """``marks`` without the time marks whose values (every method, every metric) all equal the
    previous kept mark's: when every method ends below 10 s, the marks 100 s and 1000 s repeat the
    10 s one. Returns the marks kept and one note per mark kept that absorbed others."""
    kept: list[Mark] = []
    absorbed: dict[Mark, list[Mark]] = {}
    for mark in marks:
        if mark.axis == "time" and kept and _same_values(kept[-1].select(aggregates), mark.select(aggregates)):
            absorbed.setdefault(kept[-1], []).append(mark)
            continue
        kept.append(mark)
    notes = [f"{', '.join(m.label for m in folded)}: every value equals the one at {into.label} (every method "
             f"ends below it), so {'they are' if len(folded) > 1 else 'it is'} shown once, at {into.label}"
             for into, folded in absorbed.items()]
    return kept, notes


def _same_values(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    if a.empty or b.empty or len(a) != len(b):
        return False
    (a_keys, x), (b_keys, y) = _by_key(a), _by_key(b)
    return a_keys == b_keys and bool(((x == y) | (np.isnan(x) & np.isnan(y))).all())


def _by_key(rows: pd.DataFrame) -> tuple[list, np.ndarray]:
    """The (method, metric) keys of ``rows`` in sorted order (a stable sort) and their VALUES in that
    order: what sorting a (method, metric) index gives, without building one (a report's slowest
    step before its curves could be drawn)."""
    keys = list(zip(rows["method"].tolist(), rows["metric"].tolist()))
    order = sorted(range(len(keys)), key=keys.__getitem__)
    return [keys[i] for i in order], rows[list(VALUES)].to_numpy(dtype=float)[order]


def at_largest_budgets(frame: pd.DataFrame, analysis: Analysis, metrics, **options) -> tuple[Analysis, Mark, dict]:
    """``analysis`` with aggregates, comparisons and ranks at one more mark: every method at its own
    largest complete budget (``Mark("max_budget", nan)``), its rows on the axis "max_budget"; the
    aggregates keep each method's own budget, the comparisons and ranks have none; except the pairs
    of ``options["same_configuration"]``, compared at each budget both ran (axis "budget"), the
    p-values of both corrected together. ``options`` go to
    :func:`srbf.stats.analyze`. Returns the analysis, the mark and the budget of each method."""
    budgets = largest_complete_budgets(analysis.aggregates)
    chosen = frame[frame["budget"].astype(float) == frame["method"].astype(str).map(budgets)].copy()
    chosen["budget"] = 1.0  # one shared rung, so that analyze pairs the methods there
    at_max = analyze(chosen, metrics, times=(), compare_at="budget", **options)
    same = options.get("same_configuration") or ()
    paired = sorted({m for pair in same for m in pair})
    by_budget = None
    if paired:  # two entries of one adapter: at each budget both ran, not each at its own largest
        rows = frame[frame["method"].astype(str).isin(paired)]
        by_budget = analyze(rows, metrics, times=(), compare_at="budget", parts=("comparisons",), **options).comparisons

    def relabel(table: pd.DataFrame, own_budget: bool) -> pd.DataFrame:
        if table.empty:
            return table
        table = table[table["axis"] == "budget"].copy()
        table["axis"] = "max_budget"
        table["budget"] = table["method"].map(budgets) if own_budget else np.nan
        return table

    analysis.aggregates = pd.concat([analysis.aggregates, relabel(at_max.aggregates, True)], ignore_index=True)
    comparisons = relabel(at_max.comparisons, False)
    if by_budget is not None and not by_budget.empty:
        if not comparisons.empty:
            comparisons = comparisons[~comparisons["same_configuration"].astype(bool)]
        comparisons = correct(pd.concat([comparisons, by_budget[by_budget["same_configuration"].astype(bool)]],
                                        ignore_index=True))
    analysis.comparisons = comparisons
    analysis.ranks = relabel(at_max.ranks, False)
    return analysis, Mark("max_budget", float("nan")), budgets
