"""``score_arena``: a results store in, the arena's folder out (what ``srbf arena score`` writes).

The folder holds the profile table (``profile.md``, ``profile.csv``), the noise robustness table
when the results have more than one noise level (``robustness.md``, ``robustness.csv``), one radar
figure per method (``figures/``), and the evidence behind them: ``runs.csv`` (every run's axes and
what they came from), ``stability.csv`` (every repeated fit's N, V, C and STAB),
``judgments.csv`` (every symbolic judgment with the rule that decided it) and ``skipped.csv``
(predictions that could not be evaluated, with the reason) when there are any.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from srbf.arena.bootstrap import DEFAULT_REPLICATES, DEFAULT_SEED
from srbf.arena.collect import collect
from srbf.arena.errors import ArenaError
from srbf.arena.figures import profile_figures
from srbf.arena.profile import profile, robustness
from srbf.arena.reading import arena_reading, read_profile
from srbf.arena.tables import write_tables
from srbf.stats.reading import Reading
from srbf.store.csv_cells import write_csv

__all__ = ["ArenaResult", "score_arena"]


@dataclass
class ArenaResult:
    """What a pass wrote, and the tables themselves."""

    directory: Path
    profile: pd.DataFrame
    robustness: pd.DataFrame
    files: list[Path] = field(default_factory=list)
    skipped: int = 0
    configs_note: str | None = None  # the configurations set aside (srbf.store.configurations)
    reading: Reading | None = None  # the rows profile.md and the figures show (srbf.arena.reading)


def score_arena(
    results: Any = None, output: str | Path = "arena", *, replicates: int = DEFAULT_REPLICATES, seed: int = DEFAULT_SEED,
    configs: Any = ("latest",), at_budget: str | None = None, at_seconds=None,
) -> ArenaResult:
    """Score the store at ``results`` on the six axes and write the arena folder ``output``;
    ``configs`` chooses the configurations read (``srbf.store.configurations``). ``at_budget`` /
    ``at_seconds``: the reading of profile.md and the figures (``srbf.arena.reading``; default:
    chosen from the data, as every verdict command chooses it)."""
    if isinstance(replicates, bool) or not isinstance(replicates, int) or replicates < 1:
        raise ArenaError(f"replicates must be a positive integer, got {replicates!r}")
    directory = Path(output)
    if directory.exists() and not directory.is_dir():
        raise ArenaError(f"{directory}: exists and is not a directory")
    data = collect(results, configs)
    if data.runs.empty:
        reasons = "; ".join(sorted(set(data.skipped["reason"]))[:3])
        raise ArenaError(f"no prediction could be evaluated: {reasons}")
    try:
        reading = arena_reading(data.runs, at_budget=at_budget, at_seconds=at_seconds)
    except ValueError as error:
        raise ArenaError(str(error)) from None
    table = profile(data, replicates=replicates, seed=seed)
    robust = robustness(table)
    shown = read_profile(table, data.runs, reading)
    directory.mkdir(parents=True, exist_ok=True)
    files = write_tables(table, robust, directory, shown, reading.line)
    evidence = {"runs": data.runs, "stability": data.stability, "judgments": data.judgments, "skipped": data.skipped}
    for name, frame in evidence.items():
        if len(frame) or name != "skipped":
            write_csv(frame, directory / f"{name}.csv")
            files.append(directory / f"{name}.csv")
    files += profile_figures(shown, directory / "figures")
    return ArenaResult(directory, table, robust, files, skipped=len(data.skipped), configs_note=data.configs_note,
                       reading=reading)
