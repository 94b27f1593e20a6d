"""Each axis of SymbolicArena's Section E on hand-computed values (srbf.judge.axes)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from srbf.judge.axes import (
    EPS,
    L_MAX,
    L_MIN,
    eff_score,
    min_score,
    phi,
    quality,
    stab_score,
    sym_score,
)


@pytest.mark.parametrize(
    ("nmse", "expected"),
    [(0.0, 1.0), (1e-12, 1.0), (1e-15, 1.0), (1e-3, 5 / 14), (1.0, 2 / 14), (100.0, 0.0), (1e5, 0.0), (math.inf, 0.0)],
)
def test_phi_is_the_bounded_log_error_map(nmse, expected):
    assert phi(nmse) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("bad", [None, math.nan, math.inf, -1.0])
def test_an_invalid_output_has_quality_zero(bad):
    assert quality(bad) == 0.0


def test_sym_is_one_when_equivalent_and_half_the_geometric_mean_otherwise():
    assert sym_score(True, True, 0.0, 0.0, 0.0) == 1.0
    assert sym_score(False, True, 0.5, 1.0, 0.25) == pytest.approx(0.5 * 0.125 ** (1 / 3))  # 0.25
    assert sym_score(False, True, 0.5, 1.0, 0.25) == pytest.approx(0.25)
    assert sym_score(False, True, 0.9, 0.0, 1.0) == 0.0
    assert sym_score(True, False, 1.0, 1.0, 1.0) == 0.0  # an invalid formula scores 0 whatever it was judged


def test_min_is_the_size_ratio_capped_at_one():
    assert min_score(9, 12, True) == pytest.approx(0.75)
    assert min_score(9, 5, True) == 1.0
    assert min_score(9, 12, False) == 0.0
    assert min_score(9, None, True) == 0.0


def test_eff_with_q_star_zero_is_zero():
    assert eff_score([math.inf, math.inf, math.nan], None) == 0.0
    assert eff_score([math.inf, math.inf], [math.inf, 1e9]) == 0.0


def test_eff_counts_unavailable_checkpoints_as_zero_and_normalises_by_the_best():
    # no OOD: q = (0, 0, 5/14, 1); q* = 1
    assert eff_score([math.nan, math.nan, 1e-3, 1e-12], None) == pytest.approx((5 / 14 + 1) / 4)
    # with OOD: q = ((0, 0, 5/14, 1) + (0, 0, 2/14, 5/14)) / 2 = (0, 0, 3.5/14, 9.5/14); q* = 9.5/14
    assert eff_score([math.nan, math.nan, 1e-3, 1e-12], [math.nan, math.nan, 1.0, 1e-3]) == pytest.approx(
        (3.5 / 9.5 + 1) / 4
    )


def _eff_on_arrays(nmse_id, nmse_ood):
    """EFF computed the plain way, one array operation over all checkpoints."""

    def qualities(values):
        x = np.asarray(values, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.log10(np.maximum(x, EPS)).clip(L_MIN, L_MAX)
        return np.where(np.isfinite(x) & (x >= 0), (L_MAX - r) / (L_MAX - L_MIN), 0.0)

    q = qualities(nmse_id)
    if nmse_ood is not None:
        q = (q + qualities(nmse_ood)) / 2.0
    best = float(q.max())
    return 0.0 if best == 0.0 else float(np.mean(q / best))


def test_eff_per_distinct_incumbent_is_the_array_value_exactly():
    rng = random.Random(3)
    pool = [math.nan, float("nan"), math.inf, -1.0, 0.0, -0.0, 1e-13, 1e-12, 1e3, 1e9]
    for _ in range(3000):
        n = rng.choice([1, 2, 7, 180])
        ids_pool = [rng.choice(pool) if rng.random() < 0.4 else 10 ** rng.uniform(-14, 4) for _ in range(rng.randint(1, 5))]
        ids = [rng.choice(ids_pool) for _ in range(n)]
        ood = None if rng.random() < 0.5 else [rng.choice(ids_pool + [1e-6, math.nan]) for _ in range(n)]
        assert eff_score(ids, ood) == _eff_on_arrays(ids, ood), (ids, ood)
    values = np.array([math.nan, 1e-3, math.nan, 1e-3, 0.5])  # arrays too: their NaNs are new objects each time
    assert eff_score(values, values) == _eff_on_arrays(values, values)


def test_eff_of_one_incumbent_throughout_is_the_array_value():
    """The path without a Counter (every checkpoint the same value): NaN objects count as themselves."""
    for value in (math.nan, math.inf, 0.0, 1e-13, 1e-3, 1e9):
        for ood in (None, [value] * 180, [1e-3] * 180, [float("nan") for _ in range(180)]):
            ids = [value] * 180
            assert eff_score(ids, ood) == _eff_on_arrays(ids, ood), (value, ood)
            assert eff_score(tuple(ids), ood) == _eff_on_arrays(ids, ood)


def test_eff_of_a_run_without_trajectory_is_missing():
    assert eff_score([], None) is None


def test_stab_needs_two_repeats():
    assert stab_score([(True, 0.5, 0.5)], {}) is None


def test_stab_with_all_seeds_invalid_is_zero():
    stab = stab_score([(False, 0.0, 0.0)] * 3, {})
    assert (stab.n, stab.v, stab.c, stab.score) == (1.0, 0.0, 0.0, 0.0)


def test_stab_with_a_single_valid_seed():
    # deltas: (0,1) = (0.8 + 0.6) / 2 = 0.7, (0,2) = 0.7, (1,2) = 0; N = 1 - 1.4 / 3
    stab = stab_score([(True, 0.8, 0.6), (False, 0.0, 0.0), (False, 0.0, 0.0)], {(0, 1): True})
    assert stab.n == pytest.approx(1 - 1.4 / 3)
    assert stab.v == pytest.approx(1 / 3)
    assert stab.c == 0.0  # a pair with an invalid run never counts, whatever the judge said
    assert stab.score == 0.0


def test_stab_of_three_valid_seeds():
    # deltas: (0,1) = 0.1, (0,2) = 0, (1,2) = 0.1; two of three pairs judged the same answer
    runs = [(True, 0.5, 0.4), (True, 0.7, 0.4), (True, 0.5, 0.4)]
    stab = stab_score(runs, {(0, 1): True, (0, 2): True, (1, 2): False})
    assert stab.n == pytest.approx(1 - 0.2 / 3)
    assert stab.v == 1.0
    assert stab.c == pytest.approx(2 / 3)
    assert stab.score == pytest.approx(((1 - 0.2 / 3) * 2 / 3) ** (1 / 3))


def test_stab_without_ood_points_uses_id_alone():
    stab = stab_score([(True, 0.5, None), (True, 0.9, None)], {(0, 1): True})
    assert stab.n == pytest.approx(0.6)
    assert stab.score == pytest.approx(0.6 ** (1 / 3))
