"""The arena's tables as files: the profile and robustness tables in Markdown and CSV.

The CSV files keep every number as computed (0-100 scale, intervals as ``_low``/``_high``
columns); the Markdown files round to two decimals, write a score with its interval as
``41.20 [38.10, 44.00]`` and a missing axis as ``n/a`` (the row's notes say why).
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from srbf.arena.profile import AXES, AXIS_NAMES
from srbf.store.csv_cells import write_csv

__all__ = ["markdown_table", "profile_markdown", "robustness_markdown", "write_tables"]


def _number(value) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{float(value):.2f}"


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A GitHub Markdown table (pipes in cells escaped)."""
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def profile_markdown(table: pd.DataFrame) -> str:
    header = ["method", "budget", "condition", *(AXIS_NAMES[a] for a in AXES), "tasks", "runs", "notes"]
    rows = []
    for r in table.to_dict("records"):
        scores = []
        for axis in AXES:
            score = _number(r[axis])
            if score != "n/a" and not math.isnan(r[f"{axis}_low"]):
                score += f" [{_number(r[f'{axis}_low'])}, {_number(r[f'{axis}_high'])}]"
            scores.append(score)
        rows.append([r["method"], f"{r['budget']:g}", r["condition"], *scores, str(r["tasks"]), str(r["runs"]), r["notes"]])
    return markdown_table(header, rows)


def robustness_markdown(table: pd.DataFrame) -> str:
    value_columns = [c for c in table.columns if "@" in c]
    header = ["method", "budget", "n_support", *(_column_title(c) for c in value_columns)]
    rows = [[r["method"], f"{r['budget']:g}", str(r["n_support"]), *(_number(r[c]) for c in value_columns)]
            for r in table.to_dict("records")]  # fmt: skip
    return markdown_table(header, rows)


def _column_title(column: str) -> str:
    """``id@0`` -> ``ID clean``, ``id@0.05`` -> ``ID 5 %``, ``id_change@0.05`` -> ``ID Δ 5 %``."""
    name, level = column.split("@")
    change = name.endswith("_change")
    axis = AXIS_NAMES[name.removesuffix("_change")]
    noise = float(level)
    label = "clean" if noise == 0 else f"{noise * 100:g} %"
    return f"{axis} Δ {label}" if change else f"{axis} {label}"


def write_tables(profile: pd.DataFrame, robustness: pd.DataFrame, directory: Path, shown: pd.DataFrame | None = None,
                 reading_line: str = "") -> list[Path]:
    """Write profile.md/.csv, and robustness.md/.csv when there is a robustness table; return the paths.
    ``shown``: the profile rows of the reading (profile.md; profile.csv keeps every budget), under
    ``reading_line``."""
    written = []
    for name, table, markdown in (("profile", profile, profile_markdown), ("robustness", robustness, robustness_markdown)):
        if table.empty:
            continue
        csv, md = directory / f"{name}.csv", directory / f"{name}.md"
        write_csv(table, csv)
        if name == "profile" and shown is not None:
            text = "".join(f"At {mark}:\n\n{markdown(rows.drop(columns='mark'))}\n"
                           for mark, rows in shown.groupby("mark", sort=False))
            md.write_text(f"Reading: {reading_line}. Every budget: profile.csv.\n\n" + (text or "No row at this reading.\n"),
                          encoding="utf-8")
        else:
            md.write_text(markdown(table), encoding="utf-8")
        written += [md, csv]
    return written
