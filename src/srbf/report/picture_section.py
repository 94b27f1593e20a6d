"""The report's "Accuracy and size" section: the Pareto figure and the distributions figure, each
with how to read it and the counts behind it (what was left out, clipped or missing), read from
the tables of :mod:`srbf.report.pictures`.
"""

from __future__ import annotations

import pandas as pd

from srbf.report.escape import md
from srbf.report.pictures import ACCURACY, FIT, LIMITS, LOW_SHARE, R2_FLOOR


def pictures_section(report, pictures: dict, figure) -> list[str]:
    """index.md's lines of the section; ``figure(report, alt, stem, caption)`` embeds a figure."""
    out = ["## Accuracy and size", "",
           "Each method at its own largest complete budget, one value per problem (its draws averaged); a failed "
           "fit has no R², FVU or size, so it is missing here, as in every diagnostic of this report.", ""]
    pareto = pictures["pareto"]
    if pareto.empty:
        out += [f"_No Pareto figure: the scores have no `{ACCURACY}` or no `token_count_prediction`._", ""]
    else:
        out += figure(report, "median R² against median formula size, with the Pareto front", "pareto",
                      pareto_caption(pareto))
    boxes = pictures["distribution_boxes"]
    if boxes.empty:
        out += [f"_No distributions figure: the scores have no `{ACCURACY}` or `{FIT}`._", ""]
    else:
        out += figure(report, "per-problem distributions of R² and log10 FVU", "distributions",
                      distribution_caption(boxes))
    return out


def pareto_caption(table: pd.DataFrame) -> str:
    """How to read the Pareto figure, and what it leaves out."""
    placed = table[table["placed"].astype(bool)]
    front = ", ".join(md(m) for m in placed.loc[placed["on_front"].astype(bool), "method"]) or "none"
    text = ("How to read it: each point is a method at its median R² on the validation points (up is better) and "
            "the median length of its formulas in tokens (left is simpler), with 95 % bootstrap intervals of both "
            "medians (problems resampled, seeded). Filled points joined by the dashed step are the Pareto front: no "
            "other method is at least as accurate and as short, better in one. Median R², not median rank: a value "
            "does not move when a method joins or leaves the store. "
            f"Front: {front}. R² below {R2_FLOOR:g} counts as {R2_FLOOR:g} "
            f"({int(table['n_clipped'].sum())} problem values); faded points rest on fewer than "
            f"{LOW_SHARE:.0%} of the problems. Numbers: `tables/pareto.csv`.")
    missing = table[~table["placed"].astype(bool)]
    if len(missing):
        text += " Not placed: " + "; ".join(f"{md(r.method)} ({r.note})" for r in missing.itertuples()) + "."
    return text


def distribution_caption(boxes: pd.DataFrame) -> str:
    """How to read the distributions figure, with its clipped and missing counts per metric."""
    counts = []
    for metric in (ACCURACY, FIT):
        rows = boxes[boxes["metric"] == metric]
        if rows.empty:
            continue
        side, limit = LIMITS[metric]
        where = "below the floor" if side == "floor" else "above the ceiling"
        counts.append(f"{'R²' if metric == ACCURACY else 'log10 FVU'}: {int(rows['n'].sum())} values of "
                      f"{int(rows['n_universe'].sum())}, {int(rows['n_clipped'].sum())} {where} {limit:g} drawn at it "
                      f"(◇), {int(rows['n_missing'].sum())} missing (no usable fit on any draw)")
    return ("How to read it: one point per problem and method; the box spans the middle half of the problems, its "
            "line is the median, the whiskers reach the furthest problem within 1.5 box lengths. R² is drawn from "
            f"{R2_FLOOR:g} (twice the error of predicting the mean) and log10 FVU up to {LIMITS[FIT][1]:g} (a hundred "
            "times); a formula that blew up (R² −∞, FVU +∞) is drawn at that limit. " + "; ".join(counts)
            + ". Numbers: `tables/distributions.csv` (each point) and `tables/distribution_boxes.csv`.")
