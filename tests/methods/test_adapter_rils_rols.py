"""The RILS-ROLS adapter: its reading of the printed formula and the recovery of the constants
checked on models recorded from rils-rols 1.6.7 (no rils-rols needed), its progress-line parser,
options and config, and real fits through the Worker when its environment exists
(``srbf methods install rils_rols``, or a development venv at /tmp/env-rils_rols)."""

from __future__ import annotations

import numpy as np
import pytest

from recorded.adapter_checks import adapter, cases, evaluate, method_python, mismatch, r2, recording, worker_fits

NAME = "rils_rols"
rr = adapter(NAME)
_shared = rr._shared  # the helpers the adapter runs with
CASES = cases(NAME)


def test_the_recording_covers_what_the_tests_below_need():
    assert len(CASES) == 4 and sum(c["constants_source"] == "recovered" for c in CASES) >= 2


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_recovery_here_reproduces_the_packages_predictions(case):
    """The adapter's reading and recovery, rerun in srbf's environment from the printed text."""
    formula = rr.Formula(case["raw"]["printed"])
    X = np.asarray(case["X"])
    values, error, how = rr.recover_constants(formula, X, np.asarray(case["predictions"]))
    assert how == case["constants_source"] and error <= rr.RECOVERY_TOLERANCE
    expression = formula.infix(case["variables"], values)
    for points, key in (("X", "predictions"), ("X_eval", "predictions_eval")):
        ours = evaluate(expression, case["variables"], np.asarray(case[points]))
        assert not mismatch(ours, case[key], rtol=1e-9).any()


def test_printed_constants_alone_are_not_the_model():
    """Six decimals: the printed formula misses the package's predictions by far more than
    rounding wherever a constant is not a short decimal."""
    worst = 0.0
    for case in CASES:
        formula = rr.Formula(case["raw"]["printed"])
        printed = formula.infix(case["variables"])
        theirs = np.asarray(case["predictions"])
        ours = evaluate(printed, case["variables"], np.asarray(case["X"]))
        worst = max(worst, float(np.max(np.abs(ours - theirs)) / np.max(np.abs(theirs))))
    assert 1e-8 < worst < 1e-3


def test_adapter_fit_reports_each_new_incumbent():
    fit = recording(NAME)["adapter_fit"]
    assert fit["constants_source"] == "recovered" and fit["stopped_by"] == "budget"
    assert fit["reports"][-1] == fit["expression"]
    assert [p["expression"] for p in fit["progress"]][-1] == fit["reports"][-2]  # the printed incumbent
    assert all(p["fit_calls"] <= fit["fit_calls"] for p in fit["progress"])


def test_reading_printed_formulas():
    v = ["a", "b", "c"]
    formula = rr.Formula("((((0.300666*(x0*(x0*x0)))+(2.353206*((cos(x1)/x2)/exp(x0))))+(3.745610*(((-0.151555/x2)/exp(x0))/x1)))+-0.002396)")
    assert formula.values == [0.300666, 2.353206, 3.74561, -0.151555, -0.002396]
    assert formula.infix(v) == ("((((0.300666 * (a * (a * a))) + (2.353206 * ((cos(b) / c) / exp(a)))) + "
                                "(3.74561 * ((((-0.151555) / c) / exp(a)) / b))) + (-0.002396))")  # fmt: skip
    assert rr.Formula("(((x0)**2)+sin(x1))").infix(v) == "((a ** 2) + sin(b))"  # squaring: a fixed exponent
    assert rr.Formula("(2*ln(x2))").values == []  # a printed integer is exact (within 1e-12)
    assert rr.Formula("pow(x0,0.500000)").infix(v) == "(a ** 0.5)"
    assert rr.Formula("MIN(x0, -x1)").infix(v) == "min(a, (-b))"
    X = np.array([[1.0, 2.0, 4.0]])
    assert rr.Formula("(sqrt(x2)+(1.5*x0))").evaluate(X)[0] == 3.5
    for bad in ("(x0+", "foo(x0)", "x0 ? 1", "pow(x0)"):
        with pytest.raises(rr.FormulaError):
            rr.Formula(bad)
    with pytest.raises(rr.FormulaError, match="x3"):
        rr.Formula("x3").infix(v)


def test_recovery_of_rounded_constants():
    X = np.random.default_rng(0).uniform(0.5, 2, (50, 2))
    true = 0.123456789012 * np.exp(-1.98765432101 * X[:, 0]) / X[:, 1] + 1e-7 * X[:, 1]
    formula = rr.Formula("((0.123457*(exp((-1.987654*x0))/x1))+(0.000000*x1))")  # 1e-7 prints as 0.000000
    values, error, how = rr.recover_constants(formula, X, true)
    assert how == "recovered" and error < 1e-12
    assert values == pytest.approx([0.123456789012, -1.98765432101, 1e-7], rel=1e-9)
    exact = rr.Formula("(2*x0)")
    assert rr.recover_constants(exact, X, 2 * X[:, 0])[2] == "printed"
    values, error, how = rr.recover_constants(rr.Formula("(1.000000*x0)"), X, np.sin(X[:, 0]))
    assert how.startswith("printed (recovery reached only") and values == [1.0]


def test_reading_progress_lines():
    line = ("it=1\tfit_calls=40000\tls_calls=4\tcurr_R2=0.997185\tcurr_RMSE=0.0391152\tcurr_size=28\t"
            "final_R2=0.999232\tfinal_RMSE=0.0204361\tfinal_size=30\tchecks_skip=0/16\tsol=((0.3*x0)+-0.002396)")  # fmt: skip
    fields = rr.read_progress(line + "\n")
    assert fields["it"] == 1 and fields["fit_calls"] == 40000 and fields["final_R2"] == 0.999232
    assert fields["final_size"] == 30 and fields["sol"] == "((0.3*x0)+-0.002396)"
    for other in ("Checking 16 perturbations of starting solution.", "Randomized to (x0+1)", "", "Calling with x=1"):
        assert rr.read_progress(other) is None


def test_pump_passes_lines_and_forwards_bytes():
    import os

    read_end, write_end = os.pipe()
    sink_read, sink_write = os.pipe()
    os.write(write_end, b"it=1\tfit_calls=5\tsol=x0\n\npartial")
    os.close(write_end)
    lines = []
    rr._pump(read_end, lines.append, sink_write)
    os.close(sink_write)
    assert lines == ["it=1\tfit_calls=5\tsol=x0", "", "partial"]
    assert os.read(sink_read, 1000) == b"it=1\tfit_calls=5\tsol=x0\n\npartial"
    os.close(sink_read)


def test_options_over_defaults_and_budget():
    options = _shared.with_defaults({}, rr.OPTION_DEFAULTS)
    assert options["params"] == {"max_time": 100, "complexity_penalty": 0.001, "max_complexity": 50, "sample_size": 1}
    assert _shared.with_defaults({"params": {"sample_size": 0}}, rr.OPTION_DEFAULTS)["params"]["sample_size"] == 0
    with pytest.raises(ValueError, match="positive integer"):
        rr.fit_calls_of(-3)


def test_operator_set_lies_inside_the_default_vocabulary():
    options = _shared.with_defaults({}, rr.OPTION_DEFAULTS)
    assert set(rr.OPERATORS) <= set(options["unary"] + options["binary"])


# --- the real package ----------------------------------------------------------------------------

PYTHON = method_python(NAME)
needs_env = pytest.mark.skipif(PYTHON is None, reason="no RILS-ROLS environment ($SRBF_HOME/envs/rils_rols or /tmp/env-rils_rols)")


@needs_env
def test_real_fits_through_the_worker_repeat_and_report_while_running():
    rng = np.random.default_rng(3)
    X = rng.uniform(0.5, 2, (100, 3))
    y = np.exp(-X[:, 0]) * np.sin(2.3 * X[:, 1]) / X[:, 2] + 0.3 * X[:, 0] ** 3
    problems = [(X, y, ("a", "b", "c"), 30000, 4), (X, y, ("a", "b", "c"), 30000, 4)]
    first, again = worker_fits(NAME, PYTHON, problems)
    for result in (first, again):
        assert result.status == "ok", result.error
    assert first.expression == again.expression  # srand(seed) makes a fit independent of the ones before
    internals = first.internals
    assert internals["c_rand_seeded"] is True and internals["stopped_by"] == "budget"
    assert internals["fit_calls"] >= 30000 and internals["size_limit"] == {"max_complexity": 50}
    assert internals["constants_error"] <= 1e-9
    times = [t for t, _ in first.trajectory]
    assert len(times) >= 2 and times[0] < times[-1]  # incumbents arrive during the search
    assert first.trajectory[-1][1] == first.expression
    assert r2(first.expression, ("a", "b", "c"), X, y) > 0.95
