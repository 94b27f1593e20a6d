"""The report's figures (PNG, PDF or SVG, see :mod:`srbf.report.figure_files`; matplotlib through
``Figure``, no screen, no pyplot state): curves of a metric against budget and against time with 95 % bands, and the colored
matrix of paired verdicts. The CD diagram is in :mod:`srbf.report.cd`.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FuncFormatter

from srbf.report.escape import mathtext
from srbf.report.figure_files import FigureFiles
from srbf.report.kept_figure import kept_layout
from srbf.report.markdown_tables import oriented
from srbf.stats.figure_style import DEFAULT_DPI, method_colors
from srbf.report.rounding import format_fixed, interval_decimals
from srbf.stats import display_name, rule_for


VERDICT_COLORS = {
    "better": "#1a9850",
    "worse": "#d73027",
    "equivalent": "#4575b4",
    "undecided": "#fee08b",
    "n/a": "#f0f0f0",
}
_SHORT = {"better": "better", "worse": "worse", "equivalent": "equiv.", "undecided": "undec.", "n/a": "n/a"}


def curves_figure(aggregates: pd.DataFrame, metric: str, path: str | Path, provenance: dict, times=(),
                  show_incomplete: bool = False, files: FigureFiles = FigureFiles(),
                  units: dict | None = None) -> list[Path]:
    """``metric`` against budget, one small panel per method on its own budget axis (top: units
    differ between methods, so they never share an axis), and against seconds per problem, every
    method on one axis (bottom).

    Lines join the measured budgets; the band is the 95 % interval at each budget (pointwise). A
    hollow point rests on fewer than 90 % of the problems. Incomplete budgets are left out unless
    ``show_incomplete``. Metrics led by their median (R², raw FVU) are drawn as medians, no band.
    Titled by the metric's display name (its code is in the caption of index.md). Colours: one per
    method (``srbf.report.palette``), as in the explorer. units: what each method's budget counts
    (its budget axis' label), when known.
    """
    rule = rule_for(metric)
    use_median = rule.primary == "median"
    rows = aggregates[(aggregates["axis"] == "budget") & (aggregates["metric"] == metric)]
    if not show_incomplete:
        rows = rows[rows["complete"].astype(bool)]
    methods = sorted(aggregates["method"].unique())
    summary = "median" if use_median else ("geometric mean" if rule.scale == "log" else "mean")
    groups = [rows[rows["method"] == method].sort_values("budget") for method in methods]
    # one kept figure per layout and set of empty panels (an empty panel gets no axis label, grid or tick size)
    fig, ax_time, budget_axes = kept_layout(("curves", len(methods), tuple(g.empty for g in groups)),
                                            lambda: _curves_layout(len(methods)))
    height = fig.get_figheight()
    ncols = _curves_columns(len(methods))
    colors = method_colors(methods)
    units = units or {}
    for i, (method, group, ax) in enumerate(zip(methods, groups, budget_axes)):
        color = colors[method]
        if i % ncols:
            ax.tick_params(labelleft=False)
        else:
            ax.set_ylabel(summary, fontsize=8)
        ax.set_title(mathtext(f"{method} ({provenance.get(method, '?')})"), fontsize=8.5, loc="left")
        if group.empty:
            ax.text(0.5, 0.5, "no complete budget", ha="center", va="center", fontsize=8, color="0.5",
                    transform=ax.transAxes)
            continue
        y = group["median" if use_median else "estimate"].to_numpy(dtype=float)
        low_share = group["low_share"].to_numpy(dtype=bool)
        band = None if use_median else (group["ci_low"].to_numpy(dtype=float), group["ci_high"].to_numpy(dtype=float))
        budgets = group["budget"].to_numpy(dtype=float)
        _curve(ax, budgets, y, band, low_share, color, None)
        _curve(ax_time, group["seconds"].to_numpy(dtype=float), y, band, low_share, color,
               mathtext(f"{method} ({provenance.get(method, '?')})"))
        if (budgets > 0).all():
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.tick_params(labelsize=7.5)
        ax.set_xlabel(mathtext(f"budget ({units.get(method) or 'its own unit'})"), fontsize=7.5, labelpad=1)
        ax.grid(True, alpha=0.3)
    drawn_marks = [float(t) for t in times if ax_time.has_data()]
    for t in drawn_marks:
        ax_time.axvline(t, color="0.6", lw=0.8, ls=":")
    if ax_time.has_data():
        ax_time.set_xscale("log")
    if budget_axes:
        fig.text(0.08, 1 - 0.5 / height, "against budget: one panel per method, each on its own unit",
                 fontsize=9, ha="left")
    ax_time.set_ylabel(summary, fontsize=8)
    ax_time.set_xlabel("seconds per problem, s (median of usable fits)", fontsize=8.5)
    ax_time.set_title("against time, every method on one axis" + (" (dotted: the time marks)" if drawn_marks else ""),
                      fontsize=9, loc="left")
    ax_time.grid(True, alpha=0.3)
    title = display_name(metric) + (f": {rule.better} is better" if rule.better else "")
    fig.suptitle(title + ("" if use_median else "; bands: 95 % intervals"), fontsize=11, x=0.08, ha="left",
                 y=1 - 0.12 / height)
    if ax_time.get_legend_handles_labels()[0]:
        fig.legend(loc="lower center", ncol=min(len(methods), 4), fontsize=8, bbox_to_anchor=(0.5, 0.0),
                   frameon=False)
    return files.save(fig, path, DEFAULT_DPI)  # a fixed layout: one draw (a "tight" box would draw twice)


def _curves_columns(n_methods: int) -> int:
    return min(max(n_methods, 1), 4)


def _curves_layout(n_methods: int) -> tuple[Figure, object, list]:
    """The curves figure's axes for ``n_methods``: the time axis (bottom, created first) and one
    budget panel per method, up to 4 a row, sharing their y axis."""
    ncols = _curves_columns(n_methods)
    nrows = -(-max(n_methods, 1) // ncols)
    height = 2.2 * nrows + 3.9
    fig = Figure(figsize=(10, height))
    grid = fig.add_gridspec(nrows + 1, ncols, height_ratios=[1.0] * nrows + [1.55], left=0.08, right=0.98,
                            top=1 - 0.9 / height, bottom=1.05 / height, hspace=0.75, wspace=0.12)
    ax_time = fig.add_subplot(grid[nrows, :])
    budget_axes = []
    for i in range(n_methods):
        budget_axes.append(fig.add_subplot(grid[i // ncols, i % ncols], sharey=budget_axes[0] if budget_axes else None))
    return fig, ax_time, budget_axes


def _curve(ax, x, y, band, low_share, color, label) -> None:
    """One method's line, band (or a bar at a single point) and points on ``ax``."""
    ok = np.isfinite(x) & (x > 0) & np.isfinite(y)
    if not ok.any():
        return
    ax.plot(x[ok], y[ok], color=color, lw=1.5, label=label)
    if band is not None:
        low, high = band[0][ok], band[1][ok]
        if ok.sum() == 1:  # one budget: its interval as a bar
            ax.vlines(x[ok], low, high, color=color, alpha=0.5, lw=3)
        else:
            ax.fill_between(x[ok], low, high, color=color, alpha=0.18, lw=0)
    full = ok & ~low_share
    ax.plot(x[full], y[full], "o", color=color, ms=4)
    ax.plot(x[ok & low_share], y[ok & low_share], "o", mfc="white", mec=color, ms=5)


def verdict_figure(table: pd.DataFrame, metric: str, marks, methods, path: str | Path,
                   files: FigureFiles = FigureFiles()) -> list[Path]:
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
    title = f"{display_name(metric)}: verdict on the row method against the column method"
    fig.suptitle(textwrap.fill(title, max(20, int(fig_w * 72 / 10 / 0.55))), fontsize=10)  # ~0.55 em a character
    return files.save(fig, path, DEFAULT_DPI, bbox_inches="tight", pad_inches=0.15)  # a title is never clipped


def _rgb(color: str) -> tuple[float, float, float]:
    color = color.lstrip("#")
    return tuple(int(color[i:i + 2], 16) / 255 for i in (0, 2, 4))
