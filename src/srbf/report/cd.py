"""The critical-difference diagram (Demšar 2006), drawn with matplotlib.

An axis of mean ranks, 1 (best) on the left to k on the right; each method hangs from its mean
rank by an elbow line to its label, the better half labelled on the left, the worse half on the
right; a bar of length CD above the axis shows the smallest meaningful gap; thick bars below the
axis join the methods of each group (mean ranks within one CD). Groups are drawn only when the
Friedman test is significant; otherwise the diagram says so. A hollow dot marks a max-tested
method (its position is a worst case).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from srbf.report.escape import mathtext
from srbf.report.figure_files import FigureFiles
from srbf.stats.figure_style import DEFAULT_DPI
from srbf.stats.ranks import cd_groups


def cd_geometry(mean_ranks, cd: float, significant: bool) -> list[list[int]]:
    """The groups the diagram draws: :func:`srbf.stats.ranks.cd_groups`, or none when not significant."""
    return cd_groups(np.asarray(mean_ranks, dtype=float), cd) if significant else []


def draw_cd(ax, names, mean_ranks, cd: float, significant: bool, *, p_value: float = np.nan,
            hollow=(), title: str = "") -> None:
    """Draw one CD diagram on ``ax`` (its frame is switched off)."""
    r = np.asarray(mean_ranks, dtype=float)
    k = len(names)
    order = list(np.argsort(r, kind="stable"))
    groups = cd_geometry(r, cd, significant)
    lo, hi = 1.0, float(max(k, 2))
    ax.set_axis_off()

    # the rank axis with its ticks
    ax.plot([lo, hi], [0, 0], color="black", lw=1)
    for tick in range(1, int(hi) + 1):
        ax.plot([tick, tick], [0, 0.08], color="black", lw=1)
        ax.text(tick, 0.12, str(tick), ha="center", va="bottom", fontsize=9)
    for half in np.arange(1.5, hi, 1.0):
        ax.plot([half, half], [0, 0.04], color="black", lw=0.7)

    # the critical difference above the axis, from rank 1
    if np.isfinite(cd):
        y = 0.55
        end = lo + cd  # may reach past k: then no two methods can differ
        ax.plot([lo, end], [y, y], color="black", lw=1.5)
        for x in (lo, end):
            ax.plot([x, x], [y - 0.05, y + 0.05], color="black", lw=1.5)
        ax.text((lo + end) / 2, y + 0.08, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9)

    # group bars just below the axis
    bar_step = 0.14
    for g, members in enumerate(groups):
        y = -0.18 - g * bar_step
        ax.plot([r[members].min() - 0.03, r[members].max() + 0.03], [y, y], color="black", lw=4,
                solid_capstyle="round")
    top = -0.25 - len(groups) * bar_step

    # labels: best half on the left, worse half on the right, each on its own row
    left = order[: (k + 1) // 2]
    right = order[(k + 1) // 2:][::-1]
    step = 0.32
    span = hi - lo
    for side, members in (("left", left), ("right", right)):
        for row, i in enumerate(members):
            y = top - row * step
            x_text = lo - 0.12 * span - 0.3 if side == "left" else hi + 0.12 * span + 0.3
            ax.plot([r[i], r[i], x_text], [0, y, y], color="0.3", lw=0.9)
            face = "white" if names[i] in hollow else "black"
            ax.plot([r[i]], [0], marker="o", ms=5, mfc=face, mec="black", zorder=3)
            ax.text(x_text + (-0.05 if side == "left" else 0.05), y, mathtext(f"{names[i]} ({r[i]:.2f})"),
                    ha="right" if side == "left" else "left", va="center", fontsize=9)
    bottom = top - (max(len(left), len(right)) - 1) * step - 0.3
    if not significant:
        note = "Friedman test not significant: no groups"
        if np.isfinite(p_value):
            note += f" (p = {p_value:.2g})"
        ax.text((lo + hi) / 2, bottom, note, ha="center", va="top", fontsize=8, style="italic")
        bottom -= 0.25
    ax.set_xlim(lo - 0.12 * span - 0.35, hi + 0.12 * span + 0.35)
    ax.set_ylim(bottom - 0.1, 0.95)
    if title:
        ax.set_title(title, fontsize=10, loc="left")


def cd_figure(panels, path: str | Path, title: str = "", files: FigureFiles = FigureFiles()) -> list[Path]:
    """One figure with a CD diagram per panel; each panel a dict with names, mean_ranks, cd,
    significant, p_value, hollow (names) and title. Returns the paths written (one per format)."""
    panels = list(panels)
    heights = [1.2 + 0.32 * ((len(p["names"]) + 1) // 2)
               + 0.14 * len(cd_geometry(p["mean_ranks"], p["cd"], p["significant"])) for p in panels]
    fig = Figure(figsize=(8, max(sum(heights), 1.5)))
    axes = fig.subplots(len(panels), 1, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    for ax, panel in zip(axes, panels):
        draw_cd(ax, panel["names"], panel["mean_ranks"], panel["cd"], panel["significant"],
                p_value=panel.get("p_value", np.nan), hollow=panel.get("hollow", ()), title=panel.get("title", ""))
    if title:
        axes[0].set_title(f"{title}\n{panels[0].get('title', '')}", fontsize=10, loc="left")
    return files.save(fig, path, DEFAULT_DPI, bbox_inches="tight")
