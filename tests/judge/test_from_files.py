"""judge_from_files (what `srbf judge` calls), its input errors, and the printed table."""

import json
import math

import numpy as np
import pytest

from srbf.judge import JudgeInputError, format_metrics, judge_from_files, jsonable


@pytest.fixture
def npz(tmp_path):
    rng = np.random.default_rng(0)
    X, Xv = rng.uniform(1, 2, (32, 2)), rng.uniform(1, 2, (32, 2))
    path = tmp_path / "problem.npz"
    np.savez(
        path,
        X_support=X,
        y_support=X[:, 0] * X[:, 1],
        X_validation=Xv,
        y_validation=Xv[:, 0] * Xv[:, 1],
        variables=np.array(["a", "b"]),
    )
    return path


def test_scores_from_a_file(npz):
    result = judge_from_files("a*b", "b*a", npz)
    assert result["success"] == 1 and result["srr_structure"] == 1 and result["srr_raw"] == 0
    renamed = judge_from_files("p*q", "p*q", npz, variables="p,q")
    assert renamed["nrr_validation"] == 1


def test_an_unreadable_prediction_is_a_scored_failure(npz):
    result = judge_from_files("a*b", "a*(b", npz)
    assert result["success"] == 0 and "does not parse" in result["failure_reason"]


def test_input_errors_are_one_line(npz, tmp_path):
    bad_zip = tmp_path / "bad.npz"
    bad_zip.write_bytes(b"not a zip file")
    partial = tmp_path / "partial.npz"
    np.savez(partial, X_support=np.ones((3, 1)), y_support=np.ones(3))
    mismatch = tmp_path / "mismatch.npz"
    np.savez(mismatch, X_support=np.ones((3, 1)), y_support=np.ones(4), X_validation=np.ones((3, 1)), y_validation=np.ones(3))
    cases = [
        (lambda: judge_from_files("a*b", "a", tmp_path / "missing.npz"), "no such file"),
        (lambda: judge_from_files("a*b", "a", bad_zip), "not an .npz archive"),
        (lambda: judge_from_files("x0", "x0", partial), "lacks the array(s) X_validation, y_validation"),
        (lambda: judge_from_files("x0", "x0", mismatch), "3 rows but y_support has 4"),
        (lambda: judge_from_files("a*(b", "a", npz), "cannot read the truth"),
        (lambda: judge_from_files("a*b", "a", npz, variables="a,b,c"), "3 variable name(s)"),
    ]
    for call, fragment in cases:
        with pytest.raises(JudgeInputError) as error:
            call()
        message = str(error.value)
        assert fragment in message and "\n" not in message, message


def test_format_metrics_and_json(npz):
    result = judge_from_files("a*b", "a*b + 1e300", npz)
    text = format_metrics(result)
    assert "Fit to the data" in text and "Comparison with the truth" in text and "Length" in text
    assert "fvu_validation" in text and "inf" in text
    failed = format_metrics(judge_from_files("a*b", "a +", npz))
    assert "failure_reason" in failed and "does not parse" in failed
    encoded = json.dumps(jsonable(result), allow_nan=False)
    assert json.loads(encoded)["fvu_validation"] == "inf"
    assert math.isinf(result["fvu_validation"])


def test_an_open_npz_is_data(npz):
    from srbf.judge import score

    with np.load(npz) as data:
        result = score("a*b", "a*b", data)
    assert result["nrr_validation"] == 1 and result["srr_raw"] == 1
