"""The accuracy-size figure (median R² against median formula size, 95 % bootstrap intervals, the
Pareto front joined) and the per-problem distributions (box and strip of R² and of log10 FVU),
drawn from the tables of :mod:`srbf.report.pictures` (``Figure``, no pyplot state).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from srbf.report.escape import mathtext
from srbf.report.figure_files import FigureFiles
from srbf.report.pictures import ACCURACY, FIT, LIMITS
from srbf.stats import display_name
from srbf.stats.figure_style import DEFAULT_DPI, method_colors


def pareto_figure(table: pd.DataFrame, path: str | Path, provenance: dict, files: FigureFiles = FigureFiles()
                  ) -> list[Path]:
    """One point per placed method at (median size, median R²) with both 95 % intervals as bars;
    the front's methods filled and joined by a step line, the others hollow; a method resting on
    fewer than 90 % of the problems drawn faded. Methods not placed are named below."""
    fig = Figure(figsize=(7.5, 5.2))
    ax = fig.add_subplot()
    colors = method_colors(table["method"])
    placed = table[table["placed"].astype(bool)]
    for row in placed.itertuples():
        color = colors[row.method]
        ax.errorbar(row.size, row.accuracy, xerr=[[row.size - row.size_low], [row.size_high - row.size]],
                    yerr=[[row.accuracy - row.accuracy_low], [row.accuracy_high - row.accuracy]], fmt="none",
                    ecolor=color, alpha=0.6, lw=1.2, capsize=2)
        ax.plot(row.size, row.accuracy, "o", ms=8, color=color, mfc=color if row.on_front else "white",
                mec=color, mew=1.8, ls="none", alpha=0.5 if row.low_share else 1.0,
                label=mathtext(f"{row.method} ({provenance.get(row.method, '?')})"))
        ax.annotate(mathtext(row.method), (row.size, row.accuracy), textcoords="offset points", xytext=(5, 5),
                    fontsize=7.5, color=color)
    on_front = placed[placed["on_front"].astype(bool)].sort_values(["size", "accuracy"])
    if len(on_front) > 1:
        ax.step(on_front["size"], on_front["accuracy"], where="post", color="0.3", lw=1, ls="--", zorder=0,
                label="Pareto front")
    if len(placed) and (placed["size_low"] > 0).all():
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        narrow = placed["size_high"].max() < 10 * placed["size_low"].min()  # under a decade: label every minor tick
        ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if narrow or f"{v:g}"[0] in "25" else ""))
    ax.yaxis.get_major_formatter().set_useOffset(False)  # R² near 1: 0.99998, not an offset and steps
    ax.set_xlabel("median formula size, tokens (token_count_prediction)", fontsize=9)
    ax.set_ylabel(f"median R² on validation points (floor {LIMITS[ACCURACY][1]:g})", fontsize=9)
    ax.set_title("Accuracy against size: up and left is better; filled: on the Pareto front", fontsize=10,
                 loc="left")
    ax.grid(True, alpha=0.3)
    missing = table[~table["placed"].astype(bool)]
    if len(missing):
        fig.text(0.01, 0.01, mathtext("not placed: " + "; ".join(f"{r.method} ({r.note})"
                                                                 for r in missing.itertuples())), fontsize=7.5)
    if placed.empty:
        ax.text(0.5, 0.5, "no method has both an R² and a size", ha="center", va="center", transform=ax.transAxes)
    else:
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    return files.save(fig, path, DEFAULT_DPI, bbox_inches="tight", pad_inches=0.15)


def distribution_figure(points: pd.DataFrame, boxes: pd.DataFrame, path: str | Path,
                        files: FigureFiles = FigureFiles()) -> list[Path]:
    """Two panels (R², log10 FVU on validation points), one row per method: its box (quartiles,
    median, Tukey whiskers) and its problems as points at their fixed offsets; a clipped value is
    drawn as a hollow diamond at the limit, which is marked by a dotted line."""
    metrics = [m for m in (ACCURACY, FIT) if (boxes["metric"] == m).any()]
    methods = sorted(boxes["method"].unique())
    colors = method_colors(methods)
    height = 1.2 + 0.42 * max(len(methods), 1)
    fig = Figure(figsize=(10, height))
    fig.subplots_adjust(top=1 - 0.6 / height, bottom=0.55 / height, wspace=0.08)
    axes = fig.subplots(1, max(len(metrics), 1), sharey=True, squeeze=False)[0]
    for ax, metric in zip(axes, metrics):
        side, limit = LIMITS[metric]
        stats, where = [], []
        for i, method in enumerate(methods):
            row = boxes[(boxes["metric"] == metric) & (boxes["method"] == method)]
            if row.empty or row["n"].iloc[0] == 0:
                ax.text(0.02, i, "no value", transform=ax.get_yaxis_transform(), va="center", fontsize=7, color="0.5")
                continue
            r = row.iloc[0]
            stats.append({"med": r["median"], "q1": r["q1"], "q3": r["q3"], "whislo": r["whisker_low"],
                          "whishi": r["whisker_high"], "fliers": []})
            where.append(i)
            mine = points[(points["metric"] == metric) & (points["method"] == method)]
            kept = mine[mine["clipped"] == ""]
            cut = mine[mine["clipped"] != ""]
            color = colors[method]
            ax.plot(kept["shown"], i + kept["jitter"], "o", ms=3.2, color=color, alpha=0.75, ls="none")
            ax.plot(cut["shown"], i + cut["jitter"], "D", ms=4.5, mfc="white", mec=color, ls="none")
        if stats:
            ax.bxp(stats, positions=where, vert=False, widths=0.6, showfliers=False, patch_artist=True,
                   boxprops={"facecolor": "none", "edgecolor": "0.25"}, medianprops={"color": "0.1", "lw": 1.6},
                   whiskerprops={"color": "0.35"}, capprops={"color": "0.35"})
        ax.axvline(limit, color="0.5", ls=":", lw=1)
        name = "R²" if metric == ACCURACY else "log10 FVU"
        better = "right" if metric == ACCURACY else "left"
        ax.set_xlabel(f"{name} on validation points ({better} is better; {side} {limit:g}, ◇: clipped)", fontsize=8.5)
        ax.set_title(display_name(metric), fontsize=9.5, loc="left")
        ax.grid(True, axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(methods)), [mathtext(m) for m in methods], fontsize=8)
    axes[0].set_ylim(len(methods) - 0.5, -0.5)
    fig.suptitle("Per-problem distributions: one point per problem (draws averaged), each method at its largest "
                 "complete budget", fontsize=10, x=0.01, ha="left", y=1 - 0.08 / height, va="top")
    if not metrics:
        axes[0].text(0.5, 0.5, "no R² or log10 FVU values", ha="center", va="center", transform=axes[0].transAxes)
    return files.save(fig, path, DEFAULT_DPI, bbox_inches="tight", pad_inches=0.15)
