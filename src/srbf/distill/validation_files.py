"""The validation's files: the fidelity table (Markdown and CSV), every random draw, the scores per
method on the full set and the core, and one figure of the MAE of every selector."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from srbf.arena.tables import markdown_table
from srbf.distill.selectors import RANDOM
from srbf.distill.validate import Validation
from srbf.store.csv_cells import write_csv

__all__ = ["fidelity_markdown", "write_validation"]


def _n(value, digits: int = 4) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def fidelity_markdown(validation: Validation) -> str:
    """The fidelity table: MAE (mean ± sd [2.5 %, 97.5 %] for the random selectors), NMAE, the rank
    agreement over the methods that were not probes, and the mean Info."""
    rows = []
    for r in validation.table.to_dict("records"):
        mae = _n(r["mae"])
        if r["selector"] in RANDOM:
            mae += f" ± {_n(r['mae_sd'])} [{_n(r['mae_low'])}, {_n(r['mae_high'])}]"
        rows.append([r["selector"], str(r["draws"]), mae, f"{_n(100 * r['nmae'], 2)} %", _n(r["spearman"], 3),
                     _n(r["kendall"], 3), _n(r["kendall_all"], 3), _n(r["mean_info"], 3)])  # fmt: skip
    header = ["selector", "draws", "MAE", "NMAE", "Spearman (non-probes)", "Kendall (non-probes)", "Kendall (all)",
              "mean Info"]  # fmt: skip
    return markdown_table(header, rows)


def _figure(validation: Validation, path: Path) -> Path:
    fig = Figure(figsize=(7, 4))
    ax = fig.add_subplot()
    table = validation.table
    names = list(table["selector"])
    for i, name in enumerate(names):
        if name in RANDOM:
            values = validation.draws.loc[validation.draws["selector"] == name, "mae"].to_numpy(float)
            ax.boxplot([values], positions=[i], widths=0.5, showfliers=True)
        else:
            value = float(table.loc[table["selector"] == name, "mae"].iloc[0])
            ax.plot([i], [value], marker="*" if name == "core" else "o", markersize=12 if name == "core" else 7,
                    color="tab:red" if name == "core" else "tab:blue")  # fmt: skip
    core = float(table.loc[table["selector"] == "core", "mae"].iloc[0])
    ax.axhline(core, color="tab:red", linestyle=":", linewidth=1)
    ax.set_xticks(np.arange(len(names)))
    ax.set_xticklabels([n.replace("_", "\n") for n in names], fontsize="small")
    ax.set_ylabel("aggregate score MAE vs the full set")
    ax.set_title("Core fidelity against six selectors (lower is better)")
    fig.savefig(path, dpi=100, bbox_inches="tight")
    return path


def write_validation(validation: Validation, directory: str | Path) -> list[Path]:
    """Write fidelity.md/.csv, draws.csv, scores.csv and fidelity.png into ``directory``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "fidelity.md").write_text(fidelity_markdown(validation), encoding="utf-8")
    write_csv(validation.table, directory / "fidelity.csv")
    write_csv(validation.draws, directory / "draws.csv")
    write_csv(validation.scores, directory / "scores.csv")
    files = [directory / n for n in ("fidelity.md", "fidelity.csv", "draws.csv", "scores.csv")]
    return files + [_figure(validation, directory / "fidelity.png")]
