"""Which figures a report draws, as jobs for :mod:`srbf.report.drawing`, without matplotlib.

A job names its figure function as ``"module:function"`` text: the process that builds the
report never imports the drawing modules (and matplotlib with them), only the drawing process
does. :func:`cd_panels` is the data of a CD diagram, read from the ranks table.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from srbf.report.figure_files import FigureFiles
from srbf.report.markdown_tables import Mark

CURVES = "srbf.report.figures:curves_figure"
VERDICTS = "srbf.report.figures:verdict_figure"
CD = "srbf.report.cd:cd_figure"
PARETO = "srbf.report.picture_figures:pareto_figure"
DISTRIBUTIONS = "srbf.report.picture_figures:distribution_figure"


def curve_job(aggregates: pd.DataFrame, metric: str, folder: Path, files: FigureFiles, *, provenance: dict,
              times, show_incomplete: bool, units: dict | None = None):
    """``metric`` against budget and time (``srbf.report.figures.curves_figure``)."""
    return (CURVES, (aggregates, metric), {"path": folder / f"curve_{metric}.png", "provenance": provenance,
                                            "times": times, "show_incomplete": show_incomplete, "files": files,
                                            "units": units})


def verdict_job(verdicts: pd.DataFrame, metric: str, marks, methods, folder: Path, files: FigureFiles):
    """The matrices of paired verdicts on ``metric`` (``srbf.report.figures.verdict_figure``)."""
    return (VERDICTS, (verdicts, metric, marks, methods), {"path": folder / f"verdicts_{metric}.png", "files": files})


def cd_job(panels: list[dict], metric: str, title: str, folder: Path, files: FigureFiles):
    """The CD diagrams of ``metric`` (``srbf.report.cd.cd_figure``)."""
    return (CD, (panels,), {"path": folder / f"cd_{metric}.png", "title": title, "files": files})


def pareto_job(table: pd.DataFrame, provenance: dict, folder: Path, files: FigureFiles):
    """Median R² against median formula size, the front joined (``picture_figures.pareto_figure``)."""
    return (PARETO, (table,), {"path": folder / "pareto.png", "provenance": provenance, "files": files})


def distribution_job(points: pd.DataFrame, boxes: pd.DataFrame, folder: Path, files: FigureFiles):
    """Box and strip plots of R² and log10 FVU per method (``picture_figures.distribution_figure``)."""
    return (DISTRIBUTIONS, (points, boxes), {"path": folder / "distributions.png", "files": files})


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
