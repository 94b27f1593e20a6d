"""The report's figures (PNG, matplotlib's Agg renderer through ``Figure``, no screen, no pyplot
state): curves of a metric against budget and against time with 95 % bands, and the colored
matrix of paired verdicts. The CD diagram is in :mod:`srbf.report.cd`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FuncFormatter

from srbf.report.escape import mathtext
from srbf.report.rounding import format_fixed, interval_decimals
from srbf.report.markdown_tables import Mark, oriented
from srbf.stats import rule_for

VERDICT_COLORS = {
    "better": "#1a9850",
    "worse": "#d73027",
    "equivalent": "#4575b4",
    "undecided": "#fee08b",
    "n/a": "#f0f0f0",
}
_SHORT = {"better": "better", "worse": "worse", "equivalent": "equiv.", "undecided": "undec.", "n/a": "n/a"}


def _palette(n: int):
    cmap = colormaps["tab10" if n <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(n)]


def _save(fig: Figure, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)  # a fixed layout: one draw (a "tight" box would draw twice)
    return path


def curves_figure(aggregates: pd.DataFrame, metric: str, path: str | Path, provenance: dict, times=(),
                  show_incomplete: bool = False) -> Path:
    """``metric`` against each method's budget (left) and against its seconds per problem (right).

    Lines join the measured budgets; the band is the 95 % interval at each budget (pointwise). A
    hollow point rests on fewer than 90 % of the problems. Incomplete budgets are left out unless
    ``show_incomplete``. Metrics led by their median (R², raw FVU) are drawn as medians, no band.
    """
    rule = rule_for(metric)
    use_median = rule.primary == "median"
    rows = aggregates[(aggregates["axis"] == "budget") & (aggregates["metric"] == metric)]
    if not show_incomplete:
        rows = rows[rows["complete"].astype(bool)]
    methods = sorted(aggregates["method"].unique())
    fig = Figure(figsize=(10, 4.6))
    fig.subplots_adjust(left=0.08, right=0.98, top=0.86, bottom=0.25, wspace=0.06)
    ax_budget, ax_time = fig.subplots(1, 2, sharey=True)
    for color, method in zip(_palette(len(methods)), methods):
        group = rows[rows["method"] == method].sort_values("budget")
        if group.empty:
            continue
        label = mathtext(f"{method} ({provenance.get(method, '?')})")
        y = group["median" if use_median else "estimate"].to_numpy(dtype=float)
        low_share = group["low_share"].to_numpy(dtype=bool)
        for ax, x in ((ax_budget, group["budget"].to_numpy(dtype=float)),
                      (ax_time, group["seconds"].to_numpy(dtype=float))):
            ok = np.isfinite(x) & (x > 0) & np.isfinite(y)
            if not ok.any():
                continue
            ax.plot(x[ok], y[ok], color=color, lw=1.5, label=label if ax is ax_budget else None)
            if not use_median:
                low, high = group["ci_low"].to_numpy(dtype=float)[ok], group["ci_high"].to_numpy(dtype=float)[ok]
                if ok.sum() == 1:  # one budget: its interval as a bar
                    ax.vlines(x[ok], low, high, color=color, alpha=0.5, lw=3)
                else:
                    ax.fill_between(x[ok], low, high, color=color, alpha=0.18, lw=0)
            full = ok & ~low_share
            ax.plot(x[full], y[full], "o", color=color, ms=4)
            ax.plot(x[ok & low_share], y[ok & low_share], "o", mfc="white", mec=color, ms=5)
    for t in times:
        ax_time.axvline(float(t), color="0.6", lw=0.8, ls=":")
    budgets = rows["budget"].to_numpy(dtype=float)
    if budgets.size and (budgets > 0).all():
        ax_budget.set_xscale("log", base=2)
        ax_budget.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    if ax_time.has_data():
        ax_time.set_xscale("log")
    summary = "median" if use_median else ("geometric mean" if rule.scale == "log" else "mean")
    ax_budget.set_ylabel(f"{metric} ({summary})")
    ax_budget.set_xlabel("budget (each method's own unit)")
    ax_time.set_xlabel("seconds per problem (median of usable fits)")
    ax_budget.set_title("against budget", fontsize=10, loc="left")
    ax_time.set_title("against time (dotted: declared marks)", fontsize=10, loc="left")
    if rule.better:
        fig.suptitle(f"{metric}: {rule.better} is better; bands: 95 % intervals", fontsize=11)
    for ax in (ax_budget, ax_time):
        ax.grid(True, alpha=0.3)
    if ax_budget.get_legend_handles_labels()[0]:
        fig.legend(loc="lower center", ncol=min(len(methods), 4), fontsize=8, bbox_to_anchor=(0.5, 0.0),
                   frameon=False)
    return _save(fig, path)


def verdict_figure(table: pd.DataFrame, metric: str, marks, methods, path: str | Path) -> Path:
    """One colored matrix per mark: the verdict on the row method against the column method, with
    Delta (row - column) written in each cell; a confirmatory pair's cells are framed in black."""
    marks = list(marks)
    k = len(methods)
    side = max(0.85 * k, 2.4)  # inches per matrix
    label = max((len(str(m)) for m in methods), default=1) * 0.08 + 0.4  # room for the tick labels
    ncols = min(len(marks), 2)
    nrows = -(-len(marks) // ncols)
    fig_w = ncols * (side + label) + 0.4
    fig_h = nrows * (side + label + 0.4) + 1.1
    fig = Figure(figsize=(fig_w, fig_h))
    fig.subplots_adjust(left=label / fig_w, right=1 - 0.2 / fig_w, top=1 - 0.95 / fig_h, bottom=(label + 0.5) / fig_h,
                        wspace=label / side, hspace=(label + 0.4) / side)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[len(marks):]:
        ax.set_axis_off()
    index = {m: i for i, m in enumerate(methods)}
    for ax, mark in zip(axes, marks):
        rows = mark.select(table)
        rows = rows[rows["metric"] == metric]
        image = np.ones((k, k, 3)) * 0.85
        texts, framed = {}, set()
        for _, row in rows.iterrows():
            for a in (row["method_a"], row["method_b"]):
                record = oriented(row, a)
                i, j = index[record["method_a"]], index[record["method_b"]]
                image[i, j] = _rgb(VERDICT_COLORS.get(record["verdict"], "#ffffff"))
                text = _SHORT.get(record["verdict"], record["verdict"])
                if record["verdict"] != "n/a" and np.isfinite(record["delta"]):
                    d = interval_decimals((record["ci_high"] - record["ci_low"]) / 2, record["delta"])
                    text += f"\n{'+' if record['delta'] > 0 else ''}{format_fixed(record['delta'], d)}"
                dark = record["verdict"] in ("better", "worse", "equivalent")
                texts[(i, j)] = (text, "white" if dark else "black")
                if record.get("confirmatory"):
                    framed.add((i, j))
        ax.imshow(image, aspect="equal")
        for i, j in framed:
            ax.add_patch(Rectangle((j - 0.45, i - 0.45), 0.9, 0.9, fill=False, edgecolor="black", lw=1.5))
        for (i, j), (text, color) in texts.items():
            ax.text(j, i, text, ha="center", va="center", fontsize=7, color=color)
        names = [mathtext(m) for m in methods]
        ax.set_xticks(range(k), names, rotation=45, ha="right", fontsize=8)
        ax.set_yticks(range(k), names, fontsize=8)
        ax.set_title(f"at {mark.label}", fontsize=10)
        ax.set_xticks(np.arange(-0.5, k, 1), minor=True)
        ax.set_yticks(np.arange(-0.5, k, 1), minor=True)
        ax.grid(which="minor", color="white", lw=1.5)
        ax.tick_params(which="minor", length=0)
    handles = [Patch(color=c, label=v) for v, c in VERDICT_COLORS.items()]
    if "confirmatory" in table and table.loc[table["metric"] == metric, "confirmatory"].astype(bool).any():
        handles.append(Patch(facecolor="none", edgecolor="black", label="confirmatory"))
    ncol = min(len(handles), max(2, int(fig_w / 1.05)))  # about an inch per entry: wrap in a narrow figure
    fig.legend(handles=handles, loc="lower center", ncol=ncol, fontsize=8, frameon=False, bbox_to_anchor=(0.5, 0.0))
    fig.suptitle(f"{metric}: verdict on the row method against the column method", fontsize=10)
    return _save(fig, path)


def _rgb(color: str) -> tuple[float, float, float]:
    color = color.lstrip("#")
    return tuple(int(color[i:i + 2], 16) / 255 for i in (0, 2, 4))


def cd_panels(ranks: pd.DataFrame, metric: str, marks: list[Mark]) -> list[dict]:
    """The CD diagram's panels for ``metric``, one per mark that has ranks."""
    panels = []
    for mark in marks:
        rows = mark.select(ranks) if not ranks.empty else ranks
        if rows.empty:
            continue
        rows = rows[rows["metric"] == metric]
        if rows.empty:
            continue
        first = rows.iloc[0]
        panels.append({
            "names": list(rows["method"]),
            "mean_ranks": rows["mean_rank"].to_numpy(dtype=float),
            "cd": float(first["cd"]),
            "significant": bool(first["significant"]),
            "p_value": float(first["p_value"]),
            "hollow": set(rows.loc[rows["status"] == "max_tested", "method"]),
            "title": f"at {mark.label}: N = {int(first['n_problems'])} problems ({first['population']})",
        })
    return panels
