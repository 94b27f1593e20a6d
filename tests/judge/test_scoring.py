"""The scoring function: every metric on small hand-worked problems, and the failure rules."""

import math

import numpy as np
import pytest

from srbf.expr import compile_expr, parse
from srbf.judge import (
    COMPARISON_KEYS,
    FIT_KEYS,
    JUDGE_VERSION,
    LENGTH_KEYS,
    OVERLAP_KEYS,
    RATE_KEYS,
    Judge,
    JudgeInputError,
    score,
    score_many,
)
from srbf.judge.fit import EPS32

V2 = ["x1", "x2"]
V3 = ["x1", "x2", "x3"]


def make_data(formula, variables, n=64, low=1.0, high=3.0, seed=0):
    rng = np.random.default_rng(seed)
    f = compile_expr(parse(formula, variables), variables)
    X = rng.uniform(low, high, size=(n, len(variables)))
    Xv = rng.uniform(low, high, size=(n, len(variables)))
    return {"X_support": X, "y_support": f(X), "X_validation": Xv, "y_validation": f(Xv), "variables": variables}


def judge_one(truth, prediction, variables=V2, **options):
    return score(truth, prediction, make_data(truth, variables), **options)


# ---- comparison with the truth ------------------------------------------------------------


def test_the_truth_itself_scores_perfectly():
    r = judge_one("2.5*x1*sin(x2)", "2.5*x1*sin(x2)")
    assert r["success"] == 1 and r["failure_reason"] is None
    assert r["fvu_validation"] == 0.0 and r["log10_fvu_validation"] == pytest.approx(-15.6536, abs=1e-4)
    assert r["r2_validation"] == 1.0
    for key in ("nrr_support", "nrr_validation", "srr_structure", "srr_exponents", "srr_all", "srr_raw"):
        assert r[key] == 1, key
    assert r["numeric_equivalence"] == 1
    assert r["token_f1"] == r["variable_f1"] == 1.0
    assert r["levenshtein_normalized"] == 0.0 and r["tree_edit_distance"] == 0
    assert r["mdl_ratio"] == 1.0 and r["token_count_ratio"] == 1.0 and r["token_count_mismatch"] == 0.0
    assert r["constant_count_ratio"] == 1.0 and r["constant_count_difference"] == 0
    assert r["nesting_difference"] == 0
    assert r["srbench_accuracy_solution"] == 1
    assert r["canonical_complete"] is True and r["judge_version"] == JUDGE_VERSION


def test_x_times_x_against_x_squared():
    r = score("x**2", "x*x", make_data("x**2", ["x"]))
    assert (r["srr_structure"], r["srr_exponents"], r["srr_raw"]) == (1, 1, 0)
    assert r["numeric_equivalence"] == 1  # the canonical forms are equal


def test_truth_plus_tiny_offset():
    r = judge_one("x1*sin(x2)", "x1*sin(x2) + 1e-8")
    assert r["nrr_validation"] == 1 and r["nrr_support"] == 1
    assert r["srr_structure"] == 0 and r["srr_all"] == 0
    assert r["numeric_equivalence"] == 0  # the values are of order one: 1e-8 is a real difference
    # skeletons: + <constant> * x1 sin x2  vs  * x1 sin x2
    assert r["token_count_prediction"] == 6 and r["token_count_truth"] == 4
    assert r["token_count_ratio"] == 1.5 and r["token_count_mismatch"] == pytest.approx(math.log2(1.5))
    assert r["levenshtein_normalized"] == pytest.approx(2 / 6)
    assert r["tree_edit_distance"] == 1 + 10  # delete "+" and "<constant>"
    assert r["token_precision"] == pytest.approx(4 / 6) and r["token_recall"] == 1.0
    assert r["token_f1"] == pytest.approx(2 * (4 / 6) / (4 / 6 + 1))
    assert r["constant_count_prediction"] == 1 and r["constant_count_truth"] == 0
    assert r["constant_count_ratio"] is None and r["constant_count_difference"] == 1


def test_scaled_truth_matches_structure_but_not_all_numbers():
    r = judge_one("2.5*x1*sin(x2)", "1.01 * (2.5*x1*sin(x2))")
    assert r["srr_structure"] == 1 and r["srr_exponents"] == 1
    assert r["nrr_validation"] == 0 and r["srr_all"] == 0 and r["srr_raw"] == 0
    assert r["numeric_equivalence"] == 0
    assert r["srbench_accuracy_solution"] == 1  # R^2 = 1 - 0.01^2 * (mean square / variance) > 0.999
    assert r["tree_edit_distance"] == 0 and r["token_count_ratio"] == 1.0
    assert r["mdl_ratio"] > 1  # 2.525 needs more digits than 2.5


def test_exponent_mismatch():
    r = score("x**2", "x**3", make_data("x**2", ["x"]))
    assert r["srr_structure"] == 1 and r["srr_exponents"] == 0 and r["srr_all"] == 0
    assert r["tree_edit_distance"] == 1  # rename the label "2" -> "3"
    assert r["levenshtein_normalized"] == pytest.approx(1 / 3)


def test_sum_in_another_order():
    r = judge_one("x1 + x2*x3", "x3*x2 + x1", variables=V3)
    assert r["srr_raw"] == 0 and r["srr_structure"] == 1 and r["srr_exponents"] == 1 and r["srr_all"] == 1


def test_written_exactly_like_the_truth_counts_as_a_structure_match():
    # the canonical forms differ (2*3 folds to 6, 2*0.5 to 1) but the formulas are written alike
    r = judge_one("x1*2*3 + x2", "x1*2*0.5 + x2")
    assert r["srr_raw"] == 1 and r["srr_structure"] == 1
    # a literal 0 is worked out first: x1*2*0 + x2 is x2, written or not
    r = judge_one("x1*2*3 + x2", "x1*2*0 + x2")
    assert r["srr_raw"] == 0 and r["srr_structure"] == 0 and r["srr_exponents"] == 0


def test_renamed_function():
    r = judge_one("x1*sin(x2)", "x1*cos(x2)")
    assert r["tree_edit_distance"] == 3  # sin -> cos: three characters differ
    assert r["levenshtein_normalized"] == pytest.approx(1 / 4)
    assert r["token_precision"] == r["token_recall"] == r["token_f1"] == pytest.approx(3 / 4)
    assert r["variable_precision"] == r["variable_recall"] == 1.0


def test_an_extra_variable_lowers_variable_precision():
    truth = "x1*x2"
    r = score(truth, "x1*x2 + 0.001*x3", make_data(truth, V3))
    assert r["variable_precision"] == pytest.approx(2 / 3) and r["variable_recall"] == 1.0
    assert r["variable_f1"] == pytest.approx(0.8)
    r = score(truth, "x1", make_data(truth, V3))
    assert r["variable_precision"] == 1.0 and r["variable_recall"] == 0.5


def test_nesting_and_constant_counts():
    r = judge_one("sin(x1) + x2", "sin(log(exp(x1) + 1)) + 2*x2")
    assert r["nesting_difference"] == 1
    assert r["constant_count_truth"] == 0 and r["constant_count_prediction"] == 2


def test_identity_the_canonical_form_misses_is_numerically_equivalent():
    r = judge_one("x1 + x2", "x1 + x2*(sin(x1)**2 + cos(x1)**2)")
    assert r["nrr_validation"] == 1 and r["srr_structure"] == 0
    assert r["numeric_equivalence"] == 1


# ---- special predictions and targets ------------------------------------------------------


def assert_failure(r, fragment):
    assert r["success"] == 0
    assert fragment in r["failure_reason"]
    for key, value in r.items():
        if key in RATE_KEYS or key in OVERLAP_KEYS:
            assert value == 0, key
        elif key in FIT_KEYS + COMPARISON_KEYS + LENGTH_KEYS:
            assert value is None, key


@pytest.mark.parametrize(
    "prediction, fragment",
    [
        ("nan", "non-finite"),
        ("inf", "non-finite"),
        ("x1 / 0", "non-finite"),
        ("log(x1 - 2)", "non-finite"),  # NaN on part of the points only
        ("x1 +", "does not parse"),
        ("foo(x1)", "does not parse"),
        ("x9", "does not parse"),  # a variable the problem does not have
        (None, "no prediction"),
        (42, "not a formula"),
    ],
)
def test_failures(prediction, fragment):
    assert_failure(judge_one("x1*sin(x2)", prediction), fragment)


def test_huge_prediction_is_a_success_with_infinite_error():
    r = judge_one("x1*sin(x2)", "1e300")
    assert r["success"] == 1
    assert r["fvu_validation"] == math.inf and r["log10_fvu_validation"] == math.inf
    assert r["r2_validation"] == -math.inf
    assert r["nrr_validation"] == 0 and r["srbench_accuracy_solution"] == 0


def test_constant_prediction():
    r = judge_one("x1*sin(x2)", "2.0")
    assert r["success"] == 1 and r["fvu_validation"] > 1
    assert r["variable_precision"] == 0.0 and r["variable_recall"] == 0.0 and r["variable_f1"] == 0.0
    assert r["token_count_prediction"] == 1 and r["constant_count_prediction"] == 1


def test_constant_targets():
    data = make_data("3 + 0*x1", V2)
    assert np.all(data["y_validation"] == 3.0)
    exact = score("3", "3", data)
    assert exact["fvu_validation"] == 0.0 and exact["nrr_validation"] == 1 and exact["srr_all"] == 1
    close = score("3", "3.0000001", data)
    assert close["fvu_validation"] == math.inf and close["nrr_validation"] == 0
    assert close["log10_fvu_validation"] == math.inf and close["r2_validation"] == -math.inf
    assert close["srr_structure"] == 1 and close["srr_all"] == 0


def test_numeric_recovery_threshold_through_score():
    # y = x on the two points -1 and 1; prediction misses the first point by d: FVU = d^2 / 2
    data = {
        "X_support": [[-1.0], [1.0]],
        "y_support": [-1.0, 1.0],
        "X_validation": [[-1.0], [1.0]],
        "y_validation": [-1.0, 1.0],
    }
    d_pass, d_fail = 2.0**-12, 2.0**-10
    passes = score("x0", f"x0 + {d_pass!r}*(1 - x0)/2", data)
    fails = score("x0", f"x0 + {d_fail!r}*(1 - x0)/2", data)
    assert passes["fvu_validation"] == 0.25 * EPS32 and passes["nrr_validation"] == 1
    assert fails["fvu_validation"] == 4 * EPS32 and fails["nrr_validation"] == 0


# ---- interfaces -------------------------------------------------------------------------


def test_key_set_and_numeric_only_mode():
    data = make_data("x1*x2", V2)
    full = score("x1*x2", "x1*x2", data)
    assert set(FIT_KEYS + COMPARISON_KEYS + LENGTH_KEYS + ("srbench_accuracy_solution",)) <= set(full)
    assert "srbench_symbolic_solution" not in full
    numeric = score("x1*x2", "x1*x2", data, numeric_only=True)
    assert set(FIT_KEYS) <= set(numeric) and not set(COMPARISON_KEYS) & set(numeric)


def test_score_many_and_trees():
    data = make_data("x1*x2", V2)
    truth = parse("x1*x2", V2)
    results = score_many(truth, ["x1*x2", parse("x2*x1", V2), "x1 +", None], data)
    assert [r["success"] for r in results] == [1, 1, 0, 0]
    assert results[1]["srr_structure"] == 1 and results[1]["srr_raw"] == 0


def test_variables_come_from_the_data_or_default_to_x0():
    data = make_data("x1*x2", V2)
    assert Judge("x1*x2", data).variables == ("x1", "x2")
    del data["variables"]
    judge = Judge("x0*x1", data)
    assert judge.variables == ("x0", "x1")
    assert judge.score("x0*x1")["nrr_validation"] == 1
    assert Judge("a*b", data, variables="a,b").score("b*a")["srr_structure"] == 1


def test_data_object_with_attributes():
    class Problem:
        pass

    problem = Problem()
    for key, value in make_data("x1+x2", V2).items():
        setattr(problem, key, value)
    assert score("x1+x2", "x2+x1", problem)["nrr_validation"] == 1


@pytest.mark.parametrize(
    "change, fragment",
    [
        (lambda d: d.pop("y_validation"), "lacks"),
        (lambda d: d.update(y_support=d["y_support"][:-1]), "rows"),
        (lambda d: d.update(X_validation=d["X_validation"][:, :1]), "columns"),
        (lambda d: d["y_support"].__setitem__(0, np.nan), "non-finite"),
    ],
)
def test_bad_data_is_an_input_error(change, fragment):
    data = make_data("x1+x2", V2)
    change(data)
    with pytest.raises(JudgeInputError, match=fragment):
        score("x1+x2", "x1", data)


def test_unreadable_truth_is_an_input_error():
    with pytest.raises(JudgeInputError, match="truth"):
        score("x1 +* x2", "x1", make_data("x1+x2", V2))
    with pytest.raises(JudgeInputError, match="truth"):
        score("x1 + q", "x1", make_data("x1+x2", V2))


# ---- positive-domain rules ----------------------------------------------------------------


def test_positive_variables_enable_the_domain_rules():
    V = ["V1", "V2"]
    data = make_data("log(V2/V1)", V)  # both on [1, 3]
    plain = score("log(V2/V1)", "log(V2) - log(V1)", data)
    assert plain["nrr_validation"] == 1 and plain["srr_structure"] == 0  # V1, V2 may be negative: log(a/b) stays
    for positive in (["V1", "V2"], "V1, V2", ("V2", "V1")):
        r = score("log(V2/V1)", "log(V2) - log(V1)", data, positive=positive)
        assert r["srr_structure"] == r["srr_exponents"] == r["srr_all"] == 1, positive
    assert score("sqrt(x)", "sqrt(abs(x))", make_data("sqrt(x)", ["x"]), positive=["x"])["srr_exponents"] == 1


@pytest.mark.parametrize(
    "positive, message",
    [
        (["x3"], "positive names x3, not among the data's columns (x1, x2)"),
        ("x1,zz", "positive names zz, not among the data's columns (x1, x2)"),
        (["x2"], "variable x2 is declared positive but has a negative value (-0.5)"),
    ],
)
def test_positive_variables_are_checked_against_the_data(positive, message):
    data = make_data("x1*x2", V2)
    data["X_validation"] = data["X_validation"].copy()
    data["X_validation"][3, 1] = -0.5
    with pytest.raises(JudgeInputError) as error:
        Judge("x1*x2", data, positive=positive)
    assert str(error.value) == message


@pytest.mark.parametrize("srbench", [False, True])
@pytest.mark.parametrize("numeric_only", [False, True])
def test_failure_record_is_the_record_of_a_missing_prediction(srbench, numeric_only):
    record = Judge.failure_record("the fit timed out", srbench=srbench, numeric_only=numeric_only)
    assert record["failure_reason"] == "the fit timed out" and record["success"] == 0
    assert record["nrr_validation"] == 0 and record["srbench_accuracy_solution"] == 0
    assert record["r2_validation"] is None and record["fvu_support"] is None
    if not numeric_only:
        assert record["srr_all"] == 0 and record["token_f1"] == 0 and record["variable_recall"] == 0
        assert record["tree_edit_distance"] is None and record["mdl_ratio"] is None
    assert ("srr_all" in record) == (not numeric_only)
    assert ("srbench_symbolic_solution" in record) == srbench
    data = {"X_support": [[0.5], [1.0]], "y_support": [1.0, 2.0], "X_validation": [[2.0]], "y_validation": [4.0]}
    own = Judge("2 * x0", data, srbench=srbench, numeric_only=numeric_only).score(None)
    own["failure_reason"] = "the fit timed out"
    assert own.pop("positive_variables") == "none given"  # a judge's record says; a problem-free one has none
    assert list(record.items()) == list(own.items())  # the same keys, in the same order, and values
