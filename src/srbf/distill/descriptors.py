"""Task descriptors from probe runs (SymbolicArena's Appendix C.3), one row per task.

Per task i and probe p, over the runs with a valid evaluable output (a valid formula with a finite
NMSE on the ID points, and on the OOD points when the task has them):

- l(x), the clipped log NMSE (``scores.log_error``);
- m_id, m_ood: the median of l over those runs; iqr_id, iqr_ood: their interquartile range
  (NumPy's linear percentiles); all unavailable when no run was valid; v: valid runs / scheduled
  runs (the records' ``repeats``). A task without OOD points uses its ID values for OOD.

Per task:

- Disc = 0.45 N(Var_p m_id) + 0.45 N(Var_p m_ood) + 0.10 N(H), N a min-max normalisation to
  [0, 1] over the eligible tasks (0 where all are equal), Var the population variance over the
  probes with a valid run (0 with fewer than two), H the binary entropy (bits) of the share of
  valid runs over all the task's probe runs (0 when every run or no run is valid);
- u = Mean_p [iqr_id + iqr_ood + 1 - v] (an unavailable IQR counts 0), Stab = 1 - N(u);
- Info = Disc * Stab;
- difficulty = Mean_p (m_id + m_ood) / 2, a probe without a valid run counting 12 (the worst);
  its bin (easy, medium, hard, extreme) by the eligible tasks' 15 %, 55 % and 90 % quantiles, so
  the bins hold about 15, 40, 35 and 10 % of them (SymbolicArena's Core50 ranges, 4-10, 14-24,
  12-22 and 3-6 of 50, are centred on about those shares);
- winner: the probe with the best task score z (``scores``), empty on a tie;
- failure annotations: ``limited`` (some probe had runs without a valid output), ``one_sided``
  (exactly one probe solved it: m_id <= -6, an NMSE of 1e-6), ``unstable`` (some probe's
  (iqr_id + iqr_ood) / 2 exceeds one decade), ``all_struggle`` (no probe reached a mean log error
  of -1: every NMSE above 0.1), ``ood_degraded`` (OOD is on average two decades worse than ID);
- eligible: at least one probe had a valid run (a task with no usable probe response is out).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from srbf.distill.errors import DistillError
from srbf.distill.records import Records
from srbf.distill.scores import LOG_CLIP, run_log_errors, task_scores

__all__ = ["ANNOTATIONS", "BINS", "descriptors", "normalise"]

BINS = ("easy", "medium", "hard", "extreme")
BIN_QUANTILES = (0.15, 0.55, 0.90)
ANNOTATIONS = ("limited", "one_sided", "unstable", "all_struggle", "ood_degraded")
SOLVED, STRUGGLE, UNSTABLE, DEGRADED = -6.0, -1.0, 1.0, 2.0


def normalise(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Min-max to [0, 1] over ``values[mask]``; 0 where they are all equal (and outside the mask)."""
    values = np.asarray(values, dtype=float)
    out = np.zeros_like(values)
    if mask.any():
        low, high = values[mask].min(), values[mask].max()
        if high > low:
            out[mask] = (values[mask] - low) / (high - low)
    return out


def _entropy(share: float) -> float:
    if share <= 0.0 or share >= 1.0:
        return 0.0
    return float(-(share * np.log2(share) + (1 - share) * np.log2(1 - share)))


def _per_probe(records: Records, probes: Sequence[str]) -> pd.DataFrame:
    """One row per task and probe: m, iqr, v (NaN where unavailable)."""
    runs = run_log_errors(records.runs)  # OOD points or not: a fact of the task, from every run of it
    runs = runs[runs["method"].isin(probes)]
    rows = []
    for (task, probe), group in runs.groupby(["task", "method"], sort=True):
        good = group[group["ok"]]
        row = {"task": task, "probe": probe, "v": len(good) / records.repeats}
        for split in ("id", "ood"):
            values = good[f"l_{split}"].to_numpy(float)
            row[f"m_{split}"] = float(np.median(values)) if len(values) else np.nan
            row[f"iqr_{split}"] = float(np.subtract(*np.percentile(values, [75, 25]))) if len(values) else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def descriptors(records: Records, probes: Sequence[str], structure: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per task of the records: the response descriptors of each probe (``m_id@P``,
    ``m_ood@P``, ``iqr_id@P``, ``iqr_ood@P``, ``v@P``), Disc, Stab, Info, difficulty and its bin,
    the winner, the failure annotations and ``eligible``; joined with ``structure`` when given."""
    probes = sorted(probes)
    missing = [p for p in probes if p not in set(records.methods)]
    if missing:
        raise DistillError(f"records {records.source}: no runs of the probe(s) {', '.join(missing)} "
                           f"(methods: {', '.join(records.methods)})")  # fmt: skip
    if len(probes) < 2:
        raise DistillError(f"distillation needs at least 2 probes, got {len(probes)}")
    long = _per_probe(records, probes)
    wide = long.pivot(index="task", columns="probe")
    tasks = list(wide.index)
    m_id = wide["m_id"].reindex(columns=probes).to_numpy(float)
    m_ood = wide["m_ood"].reindex(columns=probes).to_numpy(float)
    iqr_id = wide["iqr_id"].reindex(columns=probes).to_numpy(float)
    iqr_ood = wide["iqr_ood"].reindex(columns=probes).to_numpy(float)
    v = wide["v"].reindex(columns=probes).fillna(0.0).to_numpy(float)
    available = np.isfinite(m_id)
    eligible = available.any(axis=1)

    def variance(m: np.ndarray) -> np.ndarray:
        out = np.zeros(len(m))
        for i, row in enumerate(m):
            row = row[np.isfinite(row)]
            out[i] = float(np.var(row)) if len(row) >= 2 else 0.0
        return out

    entropy = np.array([_entropy(float(share)) for share in v.mean(axis=1)])
    disc = 0.45 * normalise(variance(m_id), eligible) + 0.45 * normalise(variance(m_ood), eligible)
    disc += 0.10 * normalise(entropy, eligible)
    u = np.mean(np.nan_to_num(iqr_id) + np.nan_to_num(iqr_ood) + 1.0 - v, axis=1)
    stab = 1.0 - normalise(u, eligible)
    mean_error = np.where(available, (m_id + m_ood) / 2.0, LOG_CLIP)
    difficulty = mean_error.mean(axis=1)
    cuts = np.quantile(difficulty[eligible], BIN_QUANTILES) if eligible.any() else np.zeros(3)
    bins = np.array(BINS)[np.searchsorted(cuts, difficulty, side="left")]
    scores = task_scores(records, probes).reindex(index=tasks, columns=probes).to_numpy(float)
    order = np.argsort(-scores, axis=1, kind="stable")
    best, second = scores[np.arange(len(tasks)), order[:, 0]], scores[np.arange(len(tasks)), order[:, 1]]
    winner = np.where(best - second > 1e-9, np.array(probes)[order[:, 0]], "")
    spread = np.nanmax(np.where(available, (iqr_id + iqr_ood) / 2.0, 0.0), axis=1)
    frame = pd.DataFrame({"task": tasks})
    for j, probe in enumerate(probes):
        frame[f"m_id@{probe}"], frame[f"m_ood@{probe}"] = m_id[:, j], m_ood[:, j]
        frame[f"iqr_id@{probe}"], frame[f"iqr_ood@{probe}"], frame[f"v@{probe}"] = iqr_id[:, j], iqr_ood[:, j], v[:, j]
    frame["disc"], frame["stab"] = disc, stab
    frame["info"] = disc * stab
    frame["difficulty"], frame["difficulty_bin"], frame["winner"] = difficulty, bins, winner
    frame["limited"] = (v < 1.0).any(axis=1)
    frame["one_sided"] = (np.where(available, m_id, np.inf) <= SOLVED).sum(axis=1) == 1
    frame["unstable"] = spread > UNSTABLE
    frame["all_struggle"] = mean_error.min(axis=1) > STRUGGLE
    gap = np.where(available, m_ood - m_id, 0.0).sum(axis=1) / np.maximum(available.sum(axis=1), 1)
    frame["ood_degraded"] = gap >= DEGRADED
    frame["eligible"] = eligible
    for column in ("disc", "stab", "info"):
        frame.loc[~eligible, column] = 0.0
    if structure is not None:
        frame = frame.merge(structure, on="task", how="left")
    return frame
