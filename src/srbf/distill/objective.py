"""The distillation objective J = 0.45 Coverage + 0.35 MeanInfo + 0.20 Balance (SymbolicArena's
Appendix C.3), over the eligible tasks' descriptors.

- Coverage = 0.6 StructuralCoverage + 0.4 ResponseCoverage. Each is a facility-location
  coverage: the mean over every eligible task j of its similarity to the most similar task of S,
  similarity = 1 - distance on [0, 1]. Structural distance: the mean of four parts: the families
  differ (0 or 1), |difference in variable count| and |difference in complexity| over their ranges,
  and the Jaccard distance of the operator sets. Response distance: the mean absolute difference
  of the response vectors, per probe (m_id + 12) / 24, (m_ood + 12) / 24 (1, the worst, without
  a valid run) and v.
- MeanInfo = the mean Info over S.
- Balance = 1 - (W + D) / 2. W measures how far S's difficulty distribution is from the eligible
  tasks': the Wasserstein-1 distance between the two empirical distributions of difficulty over
  the eligible tasks' mean absolute deviation from their mean difficulty (the distance of a
  single task of average difficulty), capped at 1. D is the mean over the failure annotations of
  the absolute difference between their shares in S and among the eligible tasks. A distance on
  the difficulty values, rather than on the four bins alone, sees a core that packs a bin with
  its easiest tasks: the aggregate scores the core is meant to reproduce move with exactly that.

Every term is on [0, 1]. ``Objective.swap_values`` evaluates J for every single swap at once, the
step the search repeats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from srbf.distill.descriptors import ANNOTATIONS
from srbf.distill.scores import LOG_CLIP

__all__ = ["WEIGHTS", "Objective", "Terms", "response_vectors", "structural_distance"]

WEIGHTS = {"coverage": 0.45, "mean_info": 0.35, "balance": 0.20}
STRUCTURAL_SHARE = 0.6


@dataclass(frozen=True)
class Terms:
    """The objective's value and its terms for one subset."""

    j: float
    coverage: float
    structural_coverage: float
    response_coverage: float
    mean_info: float
    balance: float

    def as_dict(self) -> dict[str, float]:
        return {k: float(v) for k, v in asdict(self).items()}


def _range_distance(values: np.ndarray) -> np.ndarray:
    spread = values.max() - values.min() if len(values) else 0.0
    diff = np.abs(values[:, None] - values[None, :])
    return diff / spread if spread > 0 else np.zeros_like(diff)


def structural_distance(tasks: pd.DataFrame) -> np.ndarray:
    """The structural distance matrix of ``tasks`` (see the module docstring)."""
    family = tasks["family"].to_numpy()
    sets = [set(str(text).split()) for text in tasks["operators"].fillna("")]
    jaccard = np.array([[1.0 - len(a & b) / len(a | b) if a | b else 0.0 for b in sets] for a in sets])
    parts = [
        (family[:, None] != family[None, :]).astype(float),
        _range_distance(tasks["n_vars"].to_numpy(float)),
        _range_distance(tasks["complexity"].to_numpy(float)),
        jaccard,
    ]
    return sum(parts) / len(parts)


def response_vectors(tasks: pd.DataFrame, probes: Sequence[str]) -> np.ndarray:
    """Each task's response vector on [0, 1] (see the module docstring)."""
    columns = []
    for probe in sorted(probes):
        for split in ("id", "ood"):
            m = tasks[f"m_{split}@{probe}"].to_numpy(float)
            columns.append(np.where(np.isfinite(m), (m + LOG_CLIP) / (2 * LOG_CLIP), 1.0))
        columns.append(tasks[f"v@{probe}"].to_numpy(float))
    return np.column_stack(columns)


class Objective:
    """J over subsets (index lists) of ``tasks``, the eligible tasks' descriptor rows."""

    def __init__(self, tasks: pd.DataFrame, probes: Sequence[str], weights: dict[str, float] = WEIGHTS):
        self.weights = dict(weights)
        self.n_tasks = len(tasks)
        self.structural = 1.0 - structural_distance(tasks)
        vectors = response_vectors(tasks, probes)
        self.response = 1.0 - np.abs(vectors[:, None, :] - vectors[None, :, :]).mean(axis=2)
        self.info = tasks["info"].to_numpy(float)
        difficulty = tasks["difficulty"].to_numpy(float)
        grid = np.unique(difficulty)
        self.widths = np.diff(grid)
        self.below = (difficulty[:, None] <= grid[None, :-1]).astype(float)  # F at each grid step
        self.population_cdf = self.below.mean(axis=0)
        spread = float(np.abs(difficulty - difficulty.mean()).mean()) if len(difficulty) else 0.0
        self.spread = spread if spread > 0 else 1.0
        self.annotations = tasks[list(ANNOTATIONS)].to_numpy(float).reshape(len(tasks), len(ANNOTATIONS))
        self.annotation_share = self.annotations.mean(axis=0)

    def _balance(self, below_counts: np.ndarray, annotation_counts: np.ndarray, size: int) -> np.ndarray:
        w1 = (np.abs(below_counts / size - self.population_cdf) * self.widths).sum(axis=-1)
        gap = np.abs(annotation_counts / size - self.annotation_share).mean(axis=-1)
        return 1.0 - (np.minimum(w1 / self.spread, 1.0) + gap) / 2.0

    def _j(self, coverage, mean_info, balance):
        w = self.weights
        return w["coverage"] * coverage + w["mean_info"] * mean_info + w["balance"] * balance

    def terms(self, subset: Sequence[int]) -> Terms:
        s = list(subset)
        structural = float(self.structural[s].max(axis=0).mean())
        response = float(self.response[s].max(axis=0).mean())
        coverage = STRUCTURAL_SHARE * structural + (1 - STRUCTURAL_SHARE) * response
        mean_info = float(self.info[s].mean())
        balance = float(self._balance(self.below[s].sum(axis=0), self.annotations[s].sum(axis=0), len(s)))
        return Terms(float(self._j(coverage, mean_info, balance)), coverage, structural, response, mean_info, balance)

    def _coverage_with(self, base_structural: np.ndarray, base_response: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        structural = np.maximum(base_structural[None, :], self.structural[candidates]).mean(axis=1)
        response = np.maximum(base_response[None, :], self.response[candidates]).mean(axis=1)
        return STRUCTURAL_SHARE * structural + (1 - STRUCTURAL_SHARE) * response

    def add_values(self, subset: Sequence[int], candidates: np.ndarray) -> np.ndarray:
        """J of ``subset`` plus each candidate (greedy steps; an empty subset is allowed)."""
        s = list(subset)
        zeros = np.zeros(self.n_tasks)
        base_s = self.structural[s].max(axis=0) if s else zeros
        base_r = self.response[s].max(axis=0) if s else zeros
        size = len(s) + 1
        info = (self.info[s].sum() + self.info[candidates]) / size
        below = self.below[s].sum(axis=0)[None, :] + self.below[candidates]
        annotations = self.annotations[s].sum(axis=0)[None, :] + self.annotations[candidates]
        return self._j(self._coverage_with(base_s, base_r, candidates), info, self._balance(below, annotations, size))

    def swap_values(self, subset: Sequence[int], out: int, candidates: np.ndarray) -> np.ndarray:
        """J of ``subset`` with ``out`` replaced by each candidate (none of them in ``subset``)."""
        rest = [i for i in subset if i != out]
        return self.add_values(rest, candidates)
