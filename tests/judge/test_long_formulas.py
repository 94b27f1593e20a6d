"""Long and deep formulas and equations, through the scoring functions and `srbf judge`: a long
sum is scored like a short one, a nesting too deep to read is a failure with its reason (never a
RecursionError), and `y = formula` is scored while `x1 = 2` is not."""

import json

import numpy as np
import pytest

from srbf.cli import main
from srbf.expr import Call, Var
from srbf.judge import Judge, score, score_many

TRUTH = "x0 + x1"


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X, Xv = rng.uniform(1, 2, (64, 2)), rng.uniform(1, 2, (64, 2))
    return {"X_support": X, "y_support": X.sum(axis=1), "X_validation": Xv, "y_validation": Xv.sum(axis=1)}


@pytest.fixture(scope="module")
def npz(data, tmp_path_factory):
    path = tmp_path_factory.mktemp("long") / "points.npz"
    np.savez(path, **data)
    return path


def long_sum(n: int) -> str:
    """x0 + x1 written as n + 1 terms: x0 split into n equal parts (a power of two, so exact)."""
    return " + ".join([f"x0/{n}"] * n) + " + x1"


def cli_json(capsys, prediction: str, npz) -> dict:
    code = main(["judge", "--truth", TRUTH, "--prediction", prediction, "--data", str(npz), "--json"])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


def test_a_600_term_sum_equal_to_the_truth_is_recovered(data, capsys, npz):
    text = long_sum(512) + " + " + " + ".join(["0*x1"] * 88)  # 601 terms
    for metrics in (score(TRUTH, text, data), score_many(TRUTH, [text, "x0"], data)[0], cli_json(capsys, text, npz)):
        assert metrics["success"] == 1 and metrics["failure_reason"] is None
        assert metrics["fvu_validation"] < 1e-20
        assert metrics["canonical_complete"] is True
        assert metrics["srr_structure"] == metrics["srr_exponents"] == metrics["srr_all"] == 1
        assert metrics["numeric_equivalence"] == 1


@pytest.mark.slow
def test_a_20000_term_sum_is_scored(data, capsys, npz):
    text = "(" + " + ".join(["x0"] * 16384) + ")/16384 + " + " + ".join(["x1"] * 3615) + " - 3614*x1"  # 20,000 terms
    metrics = cli_json(capsys, text, npz)
    assert metrics["success"] == 1 and metrics["failure_reason"] is None
    assert metrics["fvu_validation"] < 1e-12 and metrics["nrr_validation"] == 1
    # every metric is computed; on a very slow machine the canonical form's time limit may cut it short
    assert metrics["srr_all"] == 1 or metrics["canonical_complete"] is False
    numeric = Judge(TRUTH, data, numeric_only=True).score(text)
    assert numeric["success"] == 1 and numeric["fvu_support"] < 1e-12


@pytest.mark.slow
def test_a_formula_nested_20000_deep_is_scored(data):
    brackets = Judge(TRUTH, data).score("(" * 20000 + "x0" + ")" * 20000 + " + x1")
    assert brackets["success"] == 1 and brackets["failure_reason"] is None and brackets["srr_structure"] == 1
    functions = Judge(TRUTH, data).score("sin(" * 20000 + "x0" + ")" * 20000 + " + x1")
    assert functions["success"] == 1 and functions["failure_reason"] is None
    assert functions["canonical_complete"] is False  # too deep to canonicalise: the record says so
    assert functions["srr_structure"] == 0


def test_a_text_beyond_the_length_limit_is_a_failure_with_its_reason(data):
    metrics = score(TRUTH, "sin(" * 250001 + "x0" + ")" * 250001, data)
    assert metrics["success"] == 0
    assert "longer than the judge reads" in metrics["failure_reason"]


@pytest.mark.slow
def test_a_deep_tree_is_scored(data):
    deep = Var("x0")
    for _ in range(5000):
        deep = Call("sin", (deep,))
    metrics = score(TRUTH, deep, data)
    assert metrics["success"] == 1 and metrics["failure_reason"] is None
    assert metrics["canonical_complete"] is False  # too deep to canonicalise: the record says so
    assert metrics["srr_structure"] == 0


def test_an_equation_is_scored_only_with_the_target_on_the_left(data, capsys, npz):
    assert score(TRUTH, "y = x1 + x0", data)["srr_all"] == 1
    assert cli_json(capsys, "y = x1 + x0", npz)["srr_all"] == 1
    assert Judge(TRUTH, data, target="F").score("F = x0 + x1")["srr_all"] == 1
    refused = score(TRUTH, "x1 = 2", data)
    assert refused["success"] == 0
    assert "left-hand side 'x1'" in refused["failure_reason"] and "input variable" in refused["failure_reason"]
    other = Judge(TRUTH, data, target="F").score("G = x0 + x1")
    assert other["success"] == 0 and "not the target's name ('F' or 'y')" in other["failure_reason"]
    assert "U+0663" in score(TRUTH, "x0 + x1 + \u0663", data)["failure_reason"]


def test_a_10_mb_expression_fails_at_once(data):
    """A text longer than any 100,000-node formula fails with its reason before parsing (it took
    130 s and gigabytes to score before the cap)."""
    import time

    from srbf.judge.scoring import MAX_PREDICTION_CHARS, Judge

    huge = "+".join(["x1"] * 3_400_000)  # 10.2 MB
    assert len(huge) > MAX_PREDICTION_CHARS
    start = time.perf_counter()
    result = Judge("x1", data).score(huge)
    assert time.perf_counter() - start < 1.0
    assert result["success"] == 0 and "longer than the judge reads" in result["failure_reason"]
