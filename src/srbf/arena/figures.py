"""One radar figure per method: its six axes (0-100) with one outline per condition, budget and mark.

matplotlib through ``Figure`` (no screen, no pyplot state), PNG at 200 dpi, as the report draws. An
axis a row does not have (OOD without out-of-range points, EFF without a trajectory, STAB without
repeats) is left as a gap in the outline (never drawn at 0) and its label says "n/a", so a missing
axis never looks like a score. The legend sits below the radar, clear of the title.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from srbf.arena.profile import AXES, AXIS_NAMES
from srbf.stats.figure_style import DEFAULT_DPI, nth_color

__all__ = ["profile_figures"]


def _file_name(method: str) -> str:
    return "profile-" + (re.sub(r"[^A-Za-z0-9._-]+", "_", method).strip("_") or "method") + ".png"


def outline(values) -> np.ndarray:
    """A radar's closed outline: the axes' values, the first repeated at the end; a missing axis
    (None or NaN) stays NaN, which matplotlib draws as a gap in the line, never as 0."""
    closed = np.array([np.nan if v is None else float(v) for v in values], dtype=float)
    return np.append(closed, closed[0])


def _radar(rows: pd.DataFrame, method: str, path: Path) -> Path:
    angles = np.linspace(0, 2 * np.pi, len(AXES), endpoint=False)
    fig = Figure(figsize=(6, 6))
    ax = fig.add_subplot(projection="polar")
    missing: set[str] = set()
    for i, row in enumerate(rows.to_dict("records")):
        values = [row[a] for a in AXES]
        closed = outline(values)
        gaps = np.isnan(closed[:-1])
        missing |= {a for a, gap in zip(AXES, gaps) if gap}
        label = f"{row['condition']}" + (f", budget {row['budget']:g}" if rows["budget"].nunique() > 1 else "")
        if "mark" in row and rows["mark"].nunique() > 1:
            label += f", at {row['mark']}"
        color = nth_color(i)
        ax.plot(np.append(angles, angles[0]), closed, color=color, label=label, marker="o", ms=3)  # NaN: a gap
        if not any(gaps):
            ax.fill(np.append(angles, angles[0]), closed, color=color, alpha=0.1)
    ax.set_xticks(angles)
    ax.set_xticklabels([AXIS_NAMES[a] + (" (n/a)" if a in missing else "") for a in AXES])
    ax.set_ylim(0, 100)
    ax.set_yticks([25, 50, 75, 100])
    ax.set_title(f"{method}: six-axis profile (0-100)", pad=18)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08), fontsize="small", ncol=2, frameon=False)
    fig.savefig(path, dpi=DEFAULT_DPI, bbox_inches="tight")
    return path


def profile_figures(table: pd.DataFrame, directory: Path) -> list[Path]:
    """Write one radar figure per method of the profile ``table`` into ``directory``; return the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    return [_radar(rows, str(method), directory / _file_name(str(method))) for method, rows in table.groupby("method")]
