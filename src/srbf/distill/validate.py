"""Fidelity of a core to the full task set (SymbolicArena's Appendix C.4), against six selectors.

For a task set S and method p, A_p(S) is the mean task score z (``scores.task_scores``) over S.
Aggregate fidelity: MAE(S) = the mean over the probes of |A_p(S) - A_p(D)|, D the full set (every
task of the records); NMAE = MAE over the range of the probes' A_p(D). Rank agreement: Spearman's
rho and Kendall's tau (SciPy, tau-b) between the methods' A(S) and A(D), over the methods that were
not probes (the evidence that does not come from the construction itself), and over every method.

The core is compared with the six selectors of ``selectors`` at the same size; each random one
is drawn ``draws`` times (seeded), and reported by its mean MAE, sample standard deviation and
empirical 2.5 % and 97.5 % percentiles, the rank agreement averaged over the draws.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from srbf.distill.selectors import DETERMINISTIC, RANDOM, select

__all__ = ["DEFAULT_DRAWS", "Validation", "fidelity", "validate"]

DEFAULT_DRAWS = 100


@dataclass(frozen=True)
class Validation:
    """The summary table (one row per selector, the core first), every draw of the random
    selectors, and A(D) and A(core) per method."""

    table: pd.DataFrame
    draws: pd.DataFrame
    scores: pd.DataFrame


def _rank(full: np.ndarray, subset: np.ndarray) -> tuple[float, float]:
    from scipy.stats import kendalltau, spearmanr

    if len(full) < 2 or np.ptp(full) == 0 or np.ptp(subset) == 0:
        return math.nan, math.nan
    return float(spearmanr(full, subset).statistic), float(kendalltau(full, subset).statistic)


def fidelity(z: pd.DataFrame, positions: Sequence[int], probes: Sequence[str]) -> dict[str, float]:
    """MAE, NMAE and rank agreement of the tasks at ``positions`` (rows of ``z``: tasks x methods)."""
    full, subset = z.mean(axis=0), z.iloc[list(positions)].mean(axis=0)
    probes = list(probes)
    others = [m for m in z.columns if m not in probes]
    mae = float(np.abs(subset[probes] - full[probes]).mean())
    spread = float(full[probes].max() - full[probes].min())
    rho, tau = _rank(full[others].to_numpy(), subset[others].to_numpy())
    rho_all, tau_all = _rank(full.to_numpy(), subset.to_numpy())
    return {"mae": mae, "nmae": mae / spread if spread > 0 else math.nan, "spearman": rho, "kendall": tau,
            "spearman_all": rho_all, "kendall_all": tau_all}  # fmt: skip


def validate(tasks: pd.DataFrame, z: pd.DataFrame, core: Sequence[int], probes: Sequence[str], *,
             draws: int = DEFAULT_DRAWS, seed: int = 0) -> Validation:  # fmt: skip
    """Validate the core (positions in ``tasks``, the full set's descriptor rows, aligned with the
    rows of ``z``) against the six selectors."""
    size = len(core)
    info = tasks["info"].to_numpy(float)
    rows = [{"selector": "core", "draws": 1, **fidelity(z, core, probes), "mean_info": float(info[list(core)].mean())}]
    rng = np.random.default_rng(seed)
    every = []
    for name in RANDOM:
        for draw in range(draws):
            picked = select(name, tasks, size, probes, rng)
            every.append({"selector": name, "draw": draw, **fidelity(z, picked, probes),
                          "mean_info": float(info[picked].mean()), "tasks": " ".join(tasks["task"].iloc[picked])})  # fmt: skip
    for name in DETERMINISTIC:
        picked = select(name, tasks, size, probes)
        rows.append({"selector": name, "draws": 1, **fidelity(z, picked, probes), "mean_info": float(info[picked].mean())})
    drawn = pd.DataFrame(every)
    for name in RANDOM:
        mine = drawn[drawn["selector"] == name]
        mae = mine["mae"].to_numpy(float)
        rows.append({"selector": name, "draws": len(mine), "mae": float(mae.mean()),
                     "mae_sd": float(mae.std(ddof=1)) if len(mae) > 1 else math.nan,
                     "mae_low": float(np.percentile(mae, 2.5)), "mae_high": float(np.percentile(mae, 97.5)),
                     "share_below_core": float((mae < rows[0]["mae"]).mean()),
                     **{k: float(mine[k].mean()) for k in ("nmae", "spearman", "kendall", "spearman_all", "kendall_all",
                                                           "mean_info")}})  # fmt: skip
    order = ["core", *RANDOM, *DETERMINISTIC]
    table = pd.DataFrame(rows).set_index("selector").loc[order].reset_index()
    full, on_core = z.mean(axis=0), z.iloc[list(core)].mean(axis=0)
    scores = pd.DataFrame({"method": z.columns, "probe": [m in set(probes) for m in z.columns],
                           "full": full.to_numpy(), "core": on_core.to_numpy()})  # fmt: skip
    scores["rank_full"] = scores["full"].rank(ascending=False, method="min").astype(int)
    scores["rank_core"] = scores["core"].rank(ascending=False, method="min").astype(int)
    return Validation(table, drawn, scores)
