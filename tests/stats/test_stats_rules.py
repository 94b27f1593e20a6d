"""The per-metric rules table: failures, infinities, floors, scales."""

import math

import numpy as np
import pytest

from srbf.judge import METRIC_KEYS, OVERLAP_KEYS, RATE_KEYS
from srbf.stats import RULES, MetricRule, rule_for
from srbf.stats.rules import LOG10_EPS64, apply_rule, mean_eligible


def test_every_judge_metric_has_a_rule():
    assert [k for k in METRIC_KEYS if k not in RULES] == []
    assert all(RULES[k].kind == "rate" and RULES[k].scale == "logit" and RULES[k].failure == "zero" for k in RATE_KEYS)
    assert all(RULES[k].kind == "overlap" and RULES[k].failure == "zero" for k in OVERLAP_KEYS)


def test_rates_count_failures_as_zero_and_keep_undecided_missing():
    rule = RULES["nrr_validation"]
    values = np.array([1.0, np.nan, np.nan, 0.0])
    success = np.array([1, 0, 1, 1])
    assert np.array_equal(apply_rule(rule, values, success), [1.0, 0.0, np.nan, 0.0], equal_nan=True)


def test_diagnostics_leave_failures_out():
    rule = RULES["levenshtein_normalized"]
    out = apply_rule(rule, np.array([0.2, 0.3]), np.array([1, 0]))
    assert out[0] == 0.2 and np.isnan(out[1])


def test_arena_axes_keep_the_values_the_judge_stored():
    """A failed fit's EFF comes from its trajectory, its OOD is missing without out-of-range points:
    neither is overwritten by the failure rule (0 for ID, SYM and MIN is stored by the judge)."""
    success = np.array([1, 0, 0, 1])
    eff = apply_rule(RULES["arena_eff"], np.array([0.9, 0.75, np.nan, np.nan]), success)
    assert np.array_equal(eff, [0.9, 0.75, np.nan, np.nan], equal_nan=True)
    assert np.isnan(apply_rule(RULES["arena_ood"], np.array([np.nan, np.nan]), np.array([1, 0]))).all()
    assert all(RULES[f"arena_{a}"].better == "higher" for a in ("id", "ood", "sym", "min", "eff"))
    with pytest.raises(ValueError, match="failure must be 'zero', 'omit' or 'stored'"):
        MetricRule("x", "axis", failure="kept")


def test_overlaps_zero_by_default_or_left_out_on_request():
    values, success = np.array([0.5, np.nan]), np.array([1, 0])
    assert apply_rule(rule_for("token_f1"), values, success).tolist() == [0.5, 0.0]
    assert np.isnan(apply_rule(rule_for("token_f1", overlap_failures="omit"), values, success)[1])


def test_log_fvu_floor_and_infinity():
    rule = RULES["log10_fvu_validation"]
    x = apply_rule(rule, np.array([-300.0, -math.inf, -3.0, math.inf]), np.array([1, 1, 1, 1]))
    assert x[:2].tolist() == [LOG10_EPS64, LOG10_EPS64]  # one value on the floor; exact fits count
    eligible = mean_eligible(rule, x)
    assert np.isnan(eligible[3]) and eligible[2] == -3.0  # the mean leaves +inf out
    assert rule.primary == "mean" and RULES["r2_validation"].primary == "median"
    assert np.isnan(mean_eligible(RULES["r2_validation"], np.array([-math.inf]))[0])


def test_ratio_scale_and_directions():
    assert RULES["mdl_ratio"].scale == "log" and RULES["token_count_ratio"].scale == "log"
    assert RULES["mdl_ratio"].better is None and RULES["mdl_ratio"].rank is None
    assert np.isnan(mean_eligible(RULES["mdl_ratio"], np.array([0.0]))[0])
    assert RULES["token_count_prediction"].rank == "property"
    assert RULES["log10_fvu_validation"].rank == "quality"


def test_unknown_metric_default_and_overrides():
    rule = rule_for("my_metric")
    assert rule.name == "my_metric" and rule.better is None and rule.failure == "omit"
    mine = MetricRule("my_metric", "diagnostic", better="higher", rank="quality")
    assert rule_for("my_metric", {"my_metric": mine}) is mine


def test_invalid_rules_are_refused():
    with pytest.raises(ValueError, match="scale"):
        MetricRule("x", "rate", scale="probit")
    with pytest.raises(ValueError, match="direction"):
        MetricRule("x", "diagnostic", rank="quality")
    with pytest.raises(ValueError, match="overlap_failures"):
        rule_for("token_f1", overlap_failures="drop")
