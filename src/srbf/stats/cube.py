"""The long table of per-prediction metrics as dense arrays: method x budget x problem x draw.

Every statistic needs the values of one method at one budget for every problem, with the draws
side by side; a dense array with NaN for the missing cells makes all of them plain vectorised NumPy.
Problems are keyed by (catalog, problem_id), sorted by catalog, so a set is a contiguous block.
A run with ``repeats`` (the method refitted on the same points with another seed) has one run per
draw and repeat: they share the draws axis, so they are averaged per formula like draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from srbf.stats.errors import StatsError

KEY_COLUMNS = ("method", "catalog", "catalog_version", "problem_id", "draw", "budget")


@dataclass
class Cube:
    """Dense per-prediction arrays of shape (methods, budgets, problems, draws)."""

    methods: list
    budgets: np.ndarray
    catalogs: list
    versions: dict
    problem_ids: np.ndarray
    set_codes: np.ndarray
    draws: np.ndarray
    present: np.ndarray
    columns: dict = field(default_factory=dict)

    @property
    def shape(self) -> tuple[int, int, int, int]:
        return self.present.shape

    @property
    def n_sets(self) -> int:
        return len(self.catalogs)


def _codes(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    codes, uniques = pd.factorize(values, sort=True)
    return codes.astype(np.int64), np.asarray(uniques)


def _runs_on_the_draws_axis(frame: pd.DataFrame) -> pd.DataFrame:
    """With repeats, number each (draw, repeat) as one run: draw * R + repeat, R the repeats."""
    if "repeat" not in frame.columns:
        return frame
    repeat = pd.to_numeric(frame["repeat"], errors="coerce").fillna(0).astype(np.int64)
    width = int(repeat.max()) + 1
    if width == 1:
        return frame
    return frame.assign(draw=frame["draw"].astype(np.int64) * width + repeat)


def build_cube(frame: pd.DataFrame, columns) -> Cube:
    """Arrange ``frame``'s ``columns`` (metrics, ``success``, ``seconds``) as dense arrays.

    Rows with a true ``placeholder`` column are left out (a draw that could not be realised never
    enters a statistic). Refuses a frame holding two versions of one catalog (their problems are
    not the same problems) and two rows with the same key.
    """
    missing = [c for c in KEY_COLUMNS if c not in frame.columns]
    if missing:
        raise StatsError(f"the frame lacks the key column(s) {missing}; it needs {list(KEY_COLUMNS)}")
    absent = [c for c in columns if c not in frame.columns]
    if absent:
        raise StatsError(f"the frame has no column(s) {absent}")
    if "placeholder" in frame.columns:
        frame = frame[~frame["placeholder"].eq(True)]  # NaN or False: a real draw
    if frame.empty:
        raise StatsError("the frame has no rows (after leaving out placeholders)")
    frame = _runs_on_the_draws_axis(frame)

    versions = frame.groupby("catalog", sort=True)["catalog_version"].unique()
    mixed = {str(c): sorted(map(str, v)) for c, v in versions.items() if len(v) > 1}
    if mixed:
        detail = "; ".join(f"{c}: versions {', '.join(v)}" for c, v in mixed.items())
        raise StatsError(
            "refusing to pair results from different catalog versions (" + detail + "): select one version per catalog"
        )

    m_code, methods = _codes(frame["method"])
    b_code, budgets = _codes(frame["budget"].astype(float))
    d_code, draws = _codes(frame["draw"])
    c_code, catalogs = _codes(frame["catalog"])
    i_code, ids = _codes(frame["problem_id"])
    p_code, pairs = pd.factorize(c_code * len(ids) + i_code, sort=True)  # by catalog, then problem id
    p_code = p_code.astype(np.int64)
    set_code = (pairs // len(ids)).astype(np.intp)
    problem_ids = ids[pairs % len(ids)]

    shape = (len(methods), len(budgets), len(pairs), len(draws))
    flat = ((m_code * shape[1] + b_code) * shape[2] + p_code) * shape[3] + d_code
    counts = np.bincount(flat, minlength=int(np.prod(shape)))
    if (counts > 1).any():
        first = int(np.flatnonzero(counts > 1)[0])
        row = frame.iloc[int(np.flatnonzero(flat == first)[0])]
        key = {c: row[c] for c in KEY_COLUMNS}
        raise StatsError(
            f"two rows share the key {key}: one row per method, catalog, problem, draw and budget "
            "(filter the frame to one configuration and condition first: srbf.open(RESULTS)"
            ".where(condition=...).metrics() reads the newest configuration of each method, docs/python.md)"
        )
    present = (counts > 0).reshape(shape)
    # draws outermost in memory (one contiguous block per draw), viewed as (M, B, P, D)
    outer = ((d_code * shape[0] + m_code) * shape[1] + b_code) * shape[2] + p_code
    arrays = {}
    for name in columns:
        values = np.full(int(np.prod(shape)), np.nan)
        values[outer] = pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        arrays[name] = np.moveaxis(values.reshape((shape[3], *shape[:3])), 0, -1)
    return Cube(
        methods=list(methods),
        budgets=budgets.astype(float),
        catalogs=list(catalogs),
        versions={str(c): v[0] for c, v in versions.items()},
        problem_ids=problem_ids,
        set_codes=set_code,
        draws=draws,
        present=present,
        columns=arrays,
    )
