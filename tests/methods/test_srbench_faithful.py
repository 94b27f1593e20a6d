"""SRBench folders read as SRBench runs them: gplearn's protected operators, Operon's X1..Xd on a
bare array, a folder without a model string, and each formula checked against the estimator's
own predict. The folders are written here in SRBench's format (est, model, eval_kwargs)."""

from __future__ import annotations

import numpy as np
import pytest

from srbf.core import FitTask, TaskKey
from srbf.expr import compile_expr, parse
from srbf.methods import envs, srbench
from srbf.methods.own_predictions import compare

# An estimator that "finds" a fixed gplearn program and predicts with gplearn's protected
# functions (log: log|a|, 0 within 0.001 of zero; sqrt: sqrt|a|; div: 1 within 0.001 of zero).
GPLEARN_LIKE = '''
import numpy as np


def _log(a):
    with np.errstate(all="ignore"):
        return np.where(np.abs(a) > 0.001, np.log(np.abs(a)), 0.0)


class Program:
    def __str__(self):
        return "sqrt(log(sub(X0, X1)))"


class Fake:
    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self

    def fit(self, X, y):
        self.fitted_on = type(X).__name__
        self._program = Program()
        return self

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        return np.sqrt(np.abs(_log(X[:, 0] - X[:, 1])))


est = Fake()


def model(est, X=None):
    return str(est._program)
'''

# An estimator fitted on a bare array (use_dataframe False) that names columns X1..Xd, as
# pyoperon does, and uses only the first two of three variables.
OPERON_LIKE = '''
import numpy as np


class OneBased:
    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self

    def fit(self, X, y):
        assert isinstance(X, np.ndarray), type(X)
        self.model = "(X1 * 2.5) + X2"
        return self

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        return X[:, 0] * 2.5 + X[:, 1]


est = OneBased()


def model(est, X=None):
    return est.model


eval_kwargs = {"use_dataframe": False}
'''

NO_MODEL = '''
class Fitted:
    def fit(self, X, y):
        raise AssertionError("srbf must not fit a folder it cannot score")


est = Fitted()
model = None
'''


def folder(root, name, source):
    path = root / name
    path.mkdir()
    (path / "regressor.py").write_text(source)
    return path


def task(X, y, variables, options):
    key = TaskKey("m", "h", "demo", 1, "p1", 0, 1, "n_support=%d" % len(y), 0)
    return FitTask(key, X, y, variables, options=options, time_limit=120)


def run(path, X, y, variables, options=None, python=None):
    options = srbench.worker_options(path, options)
    with srbench.srbench_worker(path, python=python, options=options) as worker:
        return worker.fit(task(X, y, variables, options))


def points(d, low=-2.0, high=2.0, n=64, seed=0):
    return np.random.default_rng(seed).uniform(low, high, size=(n, d))


@pytest.mark.slow
def test_gplearn_protected_operators_are_read_with_gplearns_semantics(tmp_path):
    path = folder(tmp_path, "gplearn", GPLEARN_LIKE)
    X = points(2)
    result = run(path, X, X[:, 0] - X[:, 1], ("u", "v"))
    assert result.status == "ok", result.error
    assert result.internals["srbench_model"] == "sqrt(log(sub(X0, X1)))"
    assert result.expression == "sqrt(abs(log(abs(sub(u, v)))))"
    value = compile_expr(parse(result.expression, ("u", "v")), ("u", "v"))(X)
    diff = np.abs(X[:, 0] - X[:, 1])
    np.testing.assert_allclose(value, np.sqrt(np.abs(np.log(diff))), rtol=1e-12)
    assert np.isfinite(value).all()  # read unprotected, log of a negative difference is NaN
    assert "model_string_mismatch" not in result.internals  # no point within 0.001 of a guard


@pytest.mark.slow
def test_the_same_printout_in_an_unknown_folder_is_read_as_srbfs_operators(tmp_path):
    path = folder(tmp_path, "someone_else", GPLEARN_LIKE)
    X = points(2)
    result = run(path, X, X[:, 0] - X[:, 1], ("u", "v"))
    assert result.expression == "sqrt(log(sub(u, v)))"
    mismatch = result.internals["model_string_mismatch"]  # NaN where u < v, unlike its predict
    expected_bad = int(np.sum(X[:, 0] - X[:, 1] < 1))  # log < 0 too: sqrt of a negative
    assert mismatch["points"] == expected_bad and mismatch["of"] == len(X)


@pytest.mark.slow
def test_operon_one_based_names_on_a_problem_whose_last_variable_is_unused(tmp_path):
    path = folder(tmp_path, "operon", OPERON_LIKE)
    X = points(3)
    y = 2.5 * X[:, 0] + X[:, 1]
    result = run(path, X, y, ("a", "b", "c"))
    assert result.status == "ok", result.error
    assert result.expression == "(a * 2.5) + b"
    assert "model_string_mismatch" not in result.internals


@pytest.mark.slow
def test_one_based_names_from_an_undeclared_array_fit_are_refused(tmp_path):
    path = folder(tmp_path, "mine", OPERON_LIKE)
    X = points(3)
    result = run(path, X, 2.5 * X[:, 0] + X[:, 1], ("a", "b", "c"))
    assert result.status == "failed"
    assert "names X1" in result.error and "set options.index_base to 0 or 1" in result.error


@pytest.mark.slow
def test_a_wrong_declared_base_is_recorded_never_silent(tmp_path):
    path = folder(tmp_path, "mine", OPERON_LIKE)
    X = points(3)
    result = run(path, X, 2.5 * X[:, 0] + X[:, 1], ("a", "b", "c"), {"index_base": 0})
    assert result.status == "ok" and result.expression == "(b * 2.5) + c"
    assert result.internals["model_string_mismatch"]["points"] == len(X)


@pytest.mark.slow
def test_a_folder_without_a_model_string_fails_each_fit_and_keeps_the_worker(tmp_path):
    path = folder(tmp_path, "nomodel", NO_MODEL)
    options = srbench.worker_options(path)
    X = points(1)
    with srbench.srbench_worker(path, options=options) as worker:
        results = [worker.fit(task(X, X[:, 0], ("x",), options)) for _ in range(2)]
        assert worker.restarts == 0
    assert [(r.status, r.error.splitlines()[0]) for r in results] == [("failed", "unsupported: no model string")] * 2


@pytest.mark.skipif(not envs.env_python("gplearn").exists(), reason="gplearn's environment is not installed")
@pytest.mark.slow
def test_real_gplearn_printout_scores_as_gplearn_predicts(tmp_path):
    """SRBench's way of running gplearn (str(est._program)), written here; constants are off so
    that the printout is exact and any difference would come from the operators' reading."""
    source = '''
from gplearn.genetic import SymbolicRegressor

est = SymbolicRegressor(population_size=200, generations=5, function_set=("add", "sub", "mul", "log", "sqrt"),
                        const_range=None, random_state=0)


def model(est, X=None):
    return str(est._program)
'''
    path = folder(tmp_path, "gplearn", source)
    X = points(2, 0.5, 3.0, n=100)
    y = np.log(X[:, 0]) * X[:, 1] + np.sqrt(X[:, 0])
    result = run(path, X, y, ("p", "q"), python=envs.env_python("gplearn"))
    assert result.status == "ok", result.error
    printed = result.internals["srbench_model"]
    assert "X0" in printed or "X1" in printed
    assert "model_string_mismatch" not in result.internals, (printed, result.internals)
    assert np.isfinite(compile_expr(parse(result.expression, ("p", "q")), ("p", "q"))(X)).all()


# --- the comparison itself, against values computed here ---------------------------------------


def test_compare_agrees_within_the_tolerance_and_reports_the_rest():
    X = np.array([[1.0], [2.0], [0.0], [-1.0]])
    exact = [3.0, 6.0, 0.0, -3.0]
    assert compare("3*x", exact, X, ("x",)) is None
    assert compare("3*x", [v * (1 + 5e-7) for v in exact], X, ("x",)) is None
    off = compare("3*x + 0.001", exact, X, ("x",))
    scale = np.sqrt(np.mean(np.square(exact)))  # 3.674...: the zero row is judged against it
    assert off["points"] == 4 and off["of"] == 4
    assert off["max_relative"] == pytest.approx(0.001 / scale)
    assert off["first"] == {"index": 0, "formula": 3.001, "predict": 3.0}


def test_compare_non_finite_values():
    X = np.array([[0.0], [1.0]])
    assert compare("1/x", [None, 1.0], X, ("x",)) is None  # both non-finite at 0
    bad = compare("1/x", [5.0, 1.0], X, ("x",))
    assert bad["points"] == 1 and bad["first"] == {"index": 0, "formula": "inf", "predict": 5.0}
    assert bad["max_relative"] is None
    assert compare("x", [1.0, 1.0, 1.0], X, ("x",)) == {"reason": "3 support_predictions for 2 support points"}
    assert compare("x", [0.0], X, ("x",)) is None  # the first rows only
    assert compare("x", [1.0], X, ("x",))["points"] == 1
    assert "does not evaluate" in compare("x +", [0.0, 1.0], X, ("x",))["reason"]


# --- through a config: the run goes on, status and the report say what disagreed --------------

ROUNDED = '''
import numpy as np


class Rounded:
    def fit(self, X, y):
        return self

    def predict(self, X):
        return 1.0004 * np.asarray(X, dtype=float)[:, 0]


est = Rounded()


def model(est, X=None):
    return "1.000*X0"  # its printout rounds the constant, as gplearn's does
'''


@pytest.mark.slow
def test_a_run_records_mismatches_and_unsupported_folders_and_shows_them(tmp_path, capsys, monkeypatch):
    from srbf.cli import main

    monkeypatch.chdir(tmp_path)
    rounded, nomodel = folder(tmp_path, "rounded", ROUNDED), folder(tmp_path, "nomodel", NO_MODEL)
    (tmp_path / "c.yaml").write_text(f"""experiment: faithful
catalogs: [nguyen]
problems: [Nguyen-1, Nguyen-2]
sampling: {{draws: 1, n_support: 64}}
budgets: [1]
results: {tmp_path / 'results'}
methods:
  - {{name: rounded, adapter: {{type: srbench, path: {rounded}}}}}
  - {{name: nomodel, adapter: {{type: srbench, path: {nomodel}}}}}
""")
    assert main(["run", "-c", "c.yaml", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "2 ok, 2 failed" in out, out
    assert main(["status", "-c", "c.yaml"]) == 0
    out = capsys.readouterr().out
    assert "rounded on nguyen at budget" in out and "2 of 2 formulas disagree" in out
    assert "nomodel" in out and "nomodel on nguyen" not in out
    from srbf.store import ResultsStore

    with ResultsStore.open_readonly(tmp_path / "results") as store:
        frame = store.predictions_frame()
    errors = {r.method: r.error.splitlines()[0] for r in frame.itertuples() if r.status == "failed"}
    assert errors == {"nomodel": "unsupported: no model string"}
    assert main(["score", "--results", str(tmp_path / "results")]) == 0
    assert main(["analyze", "--results", str(tmp_path / "results"), "-o", str(tmp_path / "rep")]) == 0
    capsys.readouterr()
    text = (tmp_path / "rep" / "index.md").read_text()
    assert "disagree with their method's own predict" in text and "rounded 2 of 2" in text
