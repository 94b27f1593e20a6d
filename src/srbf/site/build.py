"""``build_site``: a results store to a self-contained folder that any static host (or a double
click, from ``file://``) can show.

    site/index.html, boot.js, app.js, sketch.js, charts.js, views.js, pictures.js, style.css   the page (copied)
    site/plotly.min.js                                          plotly.js as the ``plotly`` package ships it,
                                                                loaded once the first view is drawn (app.js)
    site/data/manifest.js                                       conditions, sets, scopes, provenance of the build
    site/data/c<i>.js                                           one condition's sets, progress and problems
    site/data/c<i>-s<j>.js, c<i>-s<j>-paired.js                one scope's numbers; its comparisons (Paired only)

Data files are JSON wrapped in one call, ``SRBF.receive("name", {...})``, because a page opened
from ``file://`` may load scripts but not fetch files.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import pandas as pd

import srbf
from srbf.core import to_plain
from srbf.report.readings import choose_metrics, reading_of
from srbf.report.data import ReportInputError, require_scores
from srbf.site.analysis import scope_data
from srbf.site.problems import condition_data
from srbf.stats import DECLARED_TIMES
from srbf.stats.figure_style import method_colors

ASSETS = ("index.html", "boot.js", "app.js", "sketch.js", "charts.js", "views.js", "pictures.js", "style.css")
ALL_SETS = "all sets"


@dataclass
class Site:
    """What :func:`build_site` wrote."""

    directory: Path
    index: Path
    data_files: list[Path] = field(default_factory=list)

    @property
    def data_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.data_files)


def plotly_bundle() -> Path:
    """plotly.min.js inside the installed ``plotly`` package (a runtime dependency of srbf)."""
    import plotly

    path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    if not path.is_file():
        raise ReportInputError(f"the plotly package at {path.parent} has no plotly.min.js: reinstall plotly")
    return path


def write_data(path: Path, name: str, value) -> Path:
    """``value`` as compact JSON inside ``SRBF.receive(name, ...)``; NaN and infinities as strings."""
    text = json.dumps(to_plain(value, non_finite="string"), separators=(",", ":"), allow_nan=False)
    path.write_text(f"SRBF.receive({json.dumps(name)},{text});\n", encoding="utf-8")
    return path


def read_data(path: str | Path):
    """A data file's JSON back (tests, and anyone reusing the numbers)."""
    text = Path(path).read_text(encoding="utf-8")
    start, end = text.index(",") + 1, text.rindex(");")
    return json.loads(text[start:end])


def split_conditions(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The frame per data condition (one entry "" when the frame has no condition column)."""
    if "condition" not in frame.columns:
        return {"": frame}
    return {str(c): rows.reset_index(drop=True) for c, rows in frame.groupby(frame["condition"].astype(str), sort=True)}


def build_site(frame: pd.DataFrame, out: str | Path, *, metrics=None, times=None, statistic: str = "meta",
               confirmatory=(), seed: int = 0, n_resamples: int = 1000, source: str = "",
               per_set: bool = True, timing=None, at_budget: str | None = None, on_reading=None) -> Site:
    """Analyse ``frame`` (one or several data conditions) and write the explorer into ``out``.

    The options mean what they mean to ``srbf analyze`` (``srbf.report.build_report``). per_set:
    also analyse each problem set on its own (the page's set filter); off, the filter offers only
    all sets together. timing: a timing readout's time axis (``srbf.stats.timing_readout.TimeAxisSource``)
    in place of the measured times; the page's footer says so. times / at_budget: the reading asked
    for (``srbf analyze --at-seconds`` / ``--at-budget``); by default each condition's reading is
    chosen from its data as the report chooses it, and the page offers the other reading beside it.
    on_reading: called with each condition's reading (the command prints its line).
    """
    frame = require_scores(frame, source or "the frame")
    metrics = choose_metrics(frame, metrics)
    out = Path(out)
    data = out / "data"
    if data.exists():
        shutil.rmtree(data)
    data.mkdir(parents=True)
    for name in ASSETS:
        (out / name).write_bytes(resources.files("srbf.site").joinpath("assets", name).read_bytes())
    shutil.copyfile(plotly_bundle(), out / "plotly.min.js")

    site = Site(out, out / "index.html")
    conditions = []
    time_axis = None if timing is None else timing.frame
    options = {"metrics": metrics, "times": times, "statistic": statistic, "confirmatory": confirmatory,
               "seed": seed, "n_resamples": n_resamples, "time_axis": time_axis}
    shown = []
    for condition, rows in split_conditions(frame).items():
        rows = rows[~rows["placeholder"].eq(True)] if "placeholder" in rows.columns else rows
        if not rows.empty:
            shown.append((condition, rows))
    for i, (condition, rows) in enumerate(shown):  # c<i>: the i-th condition the page offers
        catalogs = sorted(rows["catalog"].astype(str).unique())
        scopes = [ALL_SETS] + (catalogs if per_set and len(catalogs) > 1 else [])
        site.data_files.append(write_data(data / f"c{i}.js", f"c{i}", condition_data(rows, metrics)))
        reading = reading_of(rows, times=times, at_budget=at_budget, time_axis=time_axis)  # the report's, of this condition
        if on_reading is not None:
            on_reading(reading)
        for j, scope in enumerate(scopes):
            subset = rows if scope == ALL_SETS else rows[rows["catalog"].astype(str) == scope]
            numbers = scope_data(subset, reading=reading, **options)
            paired = {"cells": numbers.pop("cells"), "between_cells": numbers["between"].pop("cells")}
            site.data_files.append(write_data(data / f"c{i}-s{j}.js", f"c{i}-s{j}", numbers))
            site.data_files.append(write_data(data / f"c{i}-s{j}-paired.js", f"c{i}-s{j}-paired", paired))
        first = rows.iloc[0]
        conditions.append({"key": f"c{i}", "condition": condition, "scopes": scopes, "reading": reading.to_dict(),
                           "n_support": _number(first.get("n_support")), "noise": _number(first.get("noise"))})
    if not conditions:
        raise ReportInputError(f"no scored predictions in {source or 'the frame'}: run `srbf score` first")
    manifest = {"srbf": srbf.__version__, "built": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
                "source": source, "statistic": statistic, "conditions": conditions,
                "declared_times": [float(t) for t in (times or DECLARED_TIMES)], "metrics": metrics,
                "time_axis": None if timing is None else timing.note,
                "colors": method_colors(frame["method"].astype(str).unique()),  # as the report's figures colour them
                "predictions": int((~frame["placeholder"].eq(True)).sum()) if "placeholder" in frame else len(frame)}
    site.data_files.insert(0, write_data(data / "manifest.js", "manifest", manifest))
    return site


def _number(value):
    try:
        return None if value is None or pd.isna(value) else float(value)
    except (TypeError, ValueError):
        return None
