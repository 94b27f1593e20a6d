"""One radar figure per method: its six axes (0-100) with one outline per condition and budget.

matplotlib through ``Figure`` (no screen, no pyplot state), PNG, as the report draws. An axis a
row does not have (OOD without out-of-range points, EFF without a trajectory, STAB without
repeats) is drawn at 0 and its label says "n/a", so a missing axis never looks like a score.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.figure import Figure

from srbf.arena.profile import AXES, AXIS_NAMES

__all__ = ["profile_figures"]


def _file_name(method: str) -> str:
    return "profile-" + (re.sub(r"[^A-Za-z0-9._-]+", "_", method).strip("_") or "method") + ".png"


def _radar(rows: pd.DataFrame, method: str, path: Path) -> Path:
    angles = np.linspace(0, 2 * np.pi, len(AXES), endpoint=False)
    fig = Figure(figsize=(6, 6))
    ax = fig.add_subplot(projection="polar")
    colors = colormaps["tab10"]
    missing: set[str] = set()
    for i, row in enumerate(rows.to_dict("records")):
        values = [row[a] for a in AXES]
        missing |= {a for a, v in zip(AXES, values) if v is None or math.isnan(v)}
        closed = [0.0 if v is None or math.isnan(v) else v for v in values]
        label = f"{row['condition']}" + (f", budget {row['budget']:g}" if rows["budget"].nunique() > 1 else "")
        ax.plot(np.append(angles, angles[0]), closed + closed[:1], color=colors(i % 10), label=label)
        ax.fill(np.append(angles, angles[0]), closed + closed[:1], color=colors(i % 10), alpha=0.1)
    ax.set_xticks(angles)
    ax.set_xticklabels([AXIS_NAMES[a] + (" (n/a)" if a in missing else "") for a in AXES])
    ax.set_ylim(0, 100)
    ax.set_yticks([25, 50, 75, 100])
    ax.set_title(f"{method}: six-axis profile (0-100)")
    ax.legend(loc="upper right", bbox_to_anchor=(1.3, 1.12), fontsize="small")
    fig.savefig(path, dpi=100, bbox_inches="tight")
    return path


def profile_figures(table: pd.DataFrame, directory: Path) -> list[Path]:
    """Write one radar figure per method of the profile ``table`` into ``directory``; return the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    return [_radar(rows, str(method), directory / _file_name(str(method))) for method, rows in table.groupby("method")]
