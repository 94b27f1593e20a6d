"""Holm and Benjamini-Hochberg against statsmodels' multipletests."""

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from srbf.stats import benjamini_hochberg, holm


@pytest.mark.parametrize("m", [1, 5, 45, 180, 1000])
def test_holm_and_bh_match_statsmodels(m, global_random_seed):
    rng = np.random.default_rng([global_random_seed, m])
    p = np.concatenate([rng.uniform(0, 1, m - m // 3), rng.uniform(0, 0.01, m // 3)])
    rng.shuffle(p)
    assert holm(p) == pytest.approx(multipletests(p, method="holm")[1], rel=1e-12)
    assert benjamini_hochberg(p) == pytest.approx(multipletests(p, method="fdr_bh")[1], rel=1e-12)


def test_ties_and_input_order_are_kept():
    p = np.array([0.04, 0.01, 0.04, 0.5, 0.01])
    assert holm(p) == pytest.approx(multipletests(p, method="holm")[1])
    assert benjamini_hochberg(p) == pytest.approx(multipletests(p, method="fdr_bh")[1])


def test_nan_stays_nan_and_does_not_count():
    p = np.array([0.01, np.nan, 0.02, 0.03])
    kept = np.array([0.01, 0.02, 0.03])
    assert np.isnan(holm(p)[1]) and np.isnan(benjamini_hochberg(p)[1])
    assert holm(p)[[0, 2, 3]] == pytest.approx(multipletests(kept, method="holm")[1])
    assert benjamini_hochberg(p)[[0, 2, 3]] == pytest.approx(multipletests(kept, method="fdr_bh")[1])
    assert holm([]).size == 0


def test_out_of_range_is_refused():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm([0.5, 1.2])
