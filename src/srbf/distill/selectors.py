"""The six alternative selectors a distilled core is validated against (SymbolicArena's Appendix C.4).

Each returns ``size`` task positions of the full set (rows of the descriptor table):

- ``uniform_random``: uniformly, without replacement;
- ``family_stratified``: per family the smoothed target t_f (``constraints.family_targets``) made
  integer by largest remainder rounding (capped at the family's size), drawn uniformly within it;
- ``metadata_diverse``: farthest-point selection in the metadata space (family, variable count,
  complexity: the structural distance without operators), from the task nearest the centre;
- ``response_kmedoids``: k-medoids (alternating assignment and medoid update, from a
  farthest-point start) over the probes' response vectors (``objective.response_vectors``, with
  Stab appended);
- ``top_information``: the ``size`` largest Info;
- ``difficulty_balanced``: per difficulty bin a quota proportional to the bin's share (largest
  remainder), filled by largest Info.

The random ones take a NumPy generator; the others are deterministic (ties by table order).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from srbf.distill.constraints import family_targets
from srbf.distill.objective import response_vectors

__all__ = ["DETERMINISTIC", "RANDOM", "largest_remainder", "select"]

RANDOM = ("uniform_random", "family_stratified")
DETERMINISTIC = ("metadata_diverse", "response_kmedoids", "top_information", "difficulty_balanced")
KMEDOIDS_ROUNDS = 50


def largest_remainder(targets: dict[str, float], size: int, caps: dict[str, int]) -> dict[str, int]:
    """Integer quotas summing to ``size`` (or to the sum of ``caps`` if smaller): the floors, then
    one more each to the largest remainders (ties by name), never above a cap."""
    quotas = {k: min(math.floor(t), caps[k]) for k, t in targets.items()}
    order = sorted(targets, key=lambda k: (-(targets[k] - math.floor(targets[k])), k))
    goal = min(size, sum(caps.values()))
    while sum(quotas.values()) < goal:
        for k in order:
            if sum(quotas.values()) < goal and quotas[k] < caps[k]:
                quotas[k] += 1
    return quotas


def _family_stratified(tasks: pd.DataFrame, size: int, rng: np.random.Generator) -> np.ndarray:
    counts = tasks["family"].value_counts().to_dict()
    quotas = largest_remainder(family_targets(counts, size), size, counts)
    picked = []
    for family, quota in sorted(quotas.items()):
        members = np.flatnonzero(tasks["family"].to_numpy() == family)
        picked.extend(rng.choice(members, size=quota, replace=False))
    return np.array(sorted(picked))


def _farthest_points(distance: np.ndarray, size: int) -> list[int]:
    chosen = [int(np.argmin(distance.sum(axis=1)))]
    nearest = distance[chosen[0]].copy()
    while len(chosen) < size:
        nearest[chosen] = -1.0
        k = int(np.argmax(nearest))
        chosen.append(k)
        nearest = np.minimum(nearest, distance[k])
    return chosen


def _metadata_distance(tasks: pd.DataFrame) -> np.ndarray:
    family = tasks["family"].to_numpy()
    parts = [(family[:, None] != family[None, :]).astype(float)]
    for column in ("n_vars", "complexity"):
        values = tasks[column].to_numpy(float)
        spread = values.max() - values.min()
        parts.append(np.abs(values[:, None] - values[None, :]) / spread if spread > 0 else np.zeros((len(values),) * 2))
    return sum(parts) / len(parts)


def _kmedoids(vectors: np.ndarray, size: int) -> list[int]:
    distance = np.abs(vectors[:, None, :] - vectors[None, :, :]).mean(axis=2)
    medoids = _farthest_points(distance, size)
    for _ in range(KMEDOIDS_ROUNDS):
        assign = np.argmin(distance[:, medoids], axis=1)
        updated = []
        for c in range(size):
            members = np.flatnonzero(assign == c)
            if len(members) == 0:
                updated.append(medoids[c])
                continue
            updated.append(int(members[np.argmin(distance[np.ix_(members, members)].sum(axis=1))]))
        if updated == medoids:
            break
        medoids = updated
    return medoids


def _difficulty_balanced(tasks: pd.DataFrame, size: int) -> np.ndarray:
    counts = tasks["difficulty_bin"].value_counts().to_dict()
    total = sum(counts.values())
    quotas = largest_remainder({b: size * n / total for b, n in counts.items()}, size, counts)
    info = tasks["info"].to_numpy(float)
    picked = []
    for b, quota in sorted(quotas.items()):
        members = np.flatnonzero(tasks["difficulty_bin"].to_numpy() == b)
        picked.extend(members[np.argsort(-info[members], kind="stable")[:quota]])
    return np.array(sorted(picked))


def select(name: str, tasks: pd.DataFrame, size: int, probes, rng: np.random.Generator | None = None) -> np.ndarray:
    """The positions ``name`` selects from ``tasks`` (a descriptor table, one row per task)."""
    if name == "uniform_random":
        return np.sort(rng.choice(len(tasks), size=size, replace=False))
    if name == "family_stratified":
        return _family_stratified(tasks, size, rng)
    if name == "metadata_diverse":
        return np.sort(_farthest_points(_metadata_distance(tasks), size))
    if name == "response_kmedoids":
        vectors = np.column_stack([response_vectors(tasks, probes), tasks["stab"].to_numpy(float)])
        return np.sort(_kmedoids(vectors, size))
    if name == "top_information":
        return np.sort(np.argsort(-tasks["info"].to_numpy(float), kind="stable")[:size])
    if name == "difficulty_balanced":
        return _difficulty_balanced(tasks, size)
    raise ValueError(f"unknown selector {name!r}")
