"""The srbench adapter: SRBench-style method folders run through the real Worker (a few seconds)."""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest

from srbf.expr import compile_expr, parse
from srbf.methods import WorkerStartError
from srbf.methods import srbench
from srbf.methods import srbench_main as generic
from srbf.core import FitTask, TaskKey

# A least-squares "method" in SRBench's shape: est, model(est, X), complexity, hyper_params,
# eval_kwargs with pre_train and test_params; it imports a helper beside it, relatively.
REGRESSOR = '''
import numpy as np
from .helpers import fmt

hyper_params = [{"n_iter": [10, 20], "ridge": [0.0]}, {"n_iter": [99], "ridge": [1.0]}]


class LeastSquares:
    def __init__(self, n_iter=5, ridge=0.0, random_state=None):
        self.n_iter = n_iter
        self.ridge = ridge
        self.random_state = random_state

    def get_params(self, deep=True):
        return {"n_iter": self.n_iter, "ridge": self.ridge, "random_state": self.random_state}

    def set_params(self, **params):
        for key, value in params.items():
            if key not in self.get_params():
                raise ValueError("unknown parameter " + key)
            setattr(self, key, value)
        return self

    def fit(self, X, y):
        self.fit_type_ = type(X).__name__
        X = np.asarray(X, dtype=float)
        A = np.column_stack([X, np.ones(len(y))])
        self.coef_ = np.linalg.lstsq(A, y, rcond=None)[0]
        return self

    def predict(self, X):
        return np.asarray(X, dtype=float) @ self.coef_[:-1] + self.coef_[-1]


est = LeastSquares()
PRE_TRAIN = []


def pre_train(est, X, y):
    PRE_TRAIN.append(list(X.columns))
    est.n_iter = 1000  # SRBench's pre_train may set a budget from the data; srbf's budget wins


eval_kwargs = {"pre_train": pre_train, "test_params": {"ridge": 0.5}}


def model(est, X=None):
    terms = [fmt(c) + "*" + name for c, name in zip(est.coef_, X.columns)]
    return " + ".join(terms + [fmt(est.coef_[-1])])


def complexity(est):
    return 2 * len(est.coef_) - 1
'''

# The same, with model(est) that ignores the columns and writes SRBench-generic x_0, x_1, ...
GENERIC_MODEL = '''
def model(est):
    return " + ".join("%r*x_%d" % (float(c), i) for i, c in enumerate(est.coef_[:-1])) + " + %r" % float(est.coef_[-1])
'''


@pytest.fixture
def folder(tmp_path):
    return make_folder(tmp_path)


def make_folder(root):
    path = root / "lsq"
    path.mkdir()
    (path / "regressor.py").write_text(REGRESSOR)
    (path / "helpers.py").write_text("def fmt(c):\n    return repr(float(c))\n")
    return path


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One worker on one folder for the tests that only change the fits' options."""
    path = make_folder(tmp_path_factory.mktemp("shared"))
    with srbench.srbench_worker(path, options={}) as worker:
        yield path, worker


def task(options, *, budget=7, seed=3, variables=("a", "b")):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(50, 2))
    y = 0.5 * X[:, 0] + 2.1 * X[:, 1] - 1.0
    key = TaskKey("lsq", "h", "demo", 1, "p1", 0, budget, "n_support=50", seed)
    return FitTask(key, X, y, variables, options=dict(options), time_limit=30)


def check_formula(result, variables=("a", "b")):
    X = np.random.default_rng(1).uniform(-1, 1, size=(20, 2))
    got = compile_expr(parse(result.expression, variables), variables)(X)
    np.testing.assert_allclose(got, 0.5 * X[:, 0] + 2.1 * X[:, 1] - 1.0, atol=1e-9)


@pytest.mark.slow
def test_srbench_folder_runs_through_the_worker(shared):
    folder, worker = shared
    options = srbench.worker_options(folder, {"budget_param": "n_iter"})
    assert options["srbench_dir"] == str(folder)
    first = worker.fit(task(options))
    second = worker.fit(task(options, budget=9, seed=11))
    assert first.status == "ok", first.error
    check_formula(first)
    assert "*a + " in first.expression and first.internals["srbench_model"] == first.expression
    assert first.internals["complexity"] == 5
    assert "model_string_mismatch" not in first.internals  # model() prints what predict() computes
    assert "support_predictions" not in first.internals  # checked, then dropped
    assert first.internals["params"] == {"n_iter": 7, "random_state": 3}  # budget after pre_train, seed
    assert second.internals["params"] == {"n_iter": 9, "random_state": 11}
    assert worker.info["setup_seconds"] >= 0


def test_options_from_setup_reach_every_fit(shared):
    """The driver may hand fits the config's options without srbench_dir: setup's are kept."""
    _, worker = shared
    result = worker.fit(task({"budget_param": "n_iter"}))
    assert result.status == "ok", result.error
    assert result.internals["params"]["n_iter"] == 7


def test_hyper_params_test_params_params_and_pre_train_switch(shared):
    folder, worker = shared
    options = srbench.worker_options(folder, {"hyper_params": 2, "test_params": True, "pre_train": False,
                                              "params": {"ridge": 0.25}})  # fmt: skip
    result = worker.fit(task(options))
    assert result.status == "ok", result.error
    # grid combination 2 is {n_iter: 99, ridge: 1.0}; test_params then params override ridge
    assert result.internals["params"] == {"n_iter": 99, "ridge": 0.25, "random_state": 3}
    options["hyper_params"] = 3
    result = worker.fit(task(options))
    assert result.status == "failed" and "must be an index from 0 to 2, got 3" in result.error


@pytest.mark.slow
def test_generic_column_names_are_rewritten_to_the_problems_variables(folder):
    (folder / "regressor.py").write_text(REGRESSOR + GENERIC_MODEL)
    with srbench.srbench_worker(folder) as worker:
        result = worker.fit(task(srbench.worker_options(folder), variables=("theta", "omega")))
    assert result.status == "ok", result.error
    assert "x_0" in result.internals["srbench_model"] and "x_0" not in result.expression
    check_formula(result, ("theta", "omega"))


@pytest.mark.slow
def test_a_folder_without_est_does_not_start(folder):
    (folder / "regressor.py").write_text("def model(est, X=None):\n    return 'x0'\n")
    assert srbench.check_method_dir(folder) == [
        f"{folder / 'regressor.py'} defines no est at the top level (the estimator SRBench fits)"
    ]
    with pytest.raises(WorkerStartError, match="defines no est"):
        srbench.srbench_worker(folder).start()


def test_check_method_dir(folder, tmp_path):
    assert srbench.check_method_dir(folder) == []
    assert srbench.check_method_dir(folder / "regressor.py") == []
    assert "has no regressor.py" in srbench.check_method_dir(tmp_path)[0]
    assert "no such file or folder" in srbench.check_method_dir(tmp_path / "nope")[0]
    (folder / "regressor.py").write_text("est = 1\ndef model(:\n")
    assert "is not valid Python" in srbench.check_method_dir(folder)[0]
    (folder / "regressor.py").write_text("from x import est\nmodel = lambda est: 'x0'\n")
    assert srbench.check_method_dir(folder) == []
    with pytest.raises(srbench.SRBenchError, match="has no regressor.py"):
        srbench.worker_options(tmp_path)


def test_content_hash_follows_the_code_not_the_place(folder, tmp_path):
    before = srbench.content_hash(folder)
    copy = tmp_path / "elsewhere"
    copy.mkdir()
    (copy / "regressor.py").write_text(REGRESSOR)
    assert srbench.content_hash(copy) == before
    (copy / "regressor.py").write_text(REGRESSOR + "\n# changed\n")
    assert srbench.content_hash(copy) != before


# --- the generic method file's helpers (imported directly: standalone, stdlib + NumPy) ----------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("0.5*x_0 + 2.1*x_1", "0.5*a + 2.1*b"),
        ("X0*X1 - x1", "a*b - b"),
        ("sin(X[:, 1]) + X[:,0]**2 + x[1]", "sin(b) + a**2 + b"),
        ("1e-5*x_0 + exp(x_1)", "1e-5*a + exp(b)"),
        ("a*b + c[0]", "a*b + c[0]"),  # other arrays stay as they are
        ("np.x1 + foo", "np.x1 + foo"),
    ],
)
def test_rename(text, expected):
    assert generic.rename(text, ["a", "b"], ["a", "b"]) == expected


@pytest.mark.parametrize("text", ["x_7", "X[:, 2]", "X2"])
def test_rename_refuses_a_position_past_the_last_variable(text):
    with pytest.raises(generic.UnreadableNames, match="the problem has 2 variables"):
        generic.rename(text, ["a", "b"], ["a", "b"])


def test_rename_refuses_positional_names_nobody_numbers():
    with pytest.raises(generic.UnreadableNames, match="set options.index_base"):
        generic.rename("X1 + a", ["a", "b"], ["a", "b"], index_base=None)
    assert generic.rename("b + a", ["a", "b"], ["a", "b"], index_base=None) == "b + a"


def test_rename_columns_and_one_based_and_variables_first():
    assert generic.rename("2*col_0 + col_1", ["a", "b"], ["col_0", "col_1"]) == "2*a + b"
    assert generic.rename("x1 + x2", ["a", "b"], ["a", "b"], index_base=1) == "a + b"
    # a variable's own name is never renumbered, even when it looks generic
    assert generic.rename("x1 + x_0", ["x1", "x2"], ["x1", "x2"]) == "x1 + x1"
    assert generic.column_names(("a", "b"), {"columns": "x_{i}"}) == ["x_0", "x_1"]
    assert generic.column_names(("a", "b"), {}) == ["a", "b"]


def test_table_without_pandas_has_columns(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas -> ImportError
    X = np.arange(6.0).reshape(3, 2)
    frame = generic.table(np, X, ["a", "b"])
    assert list(frame.columns) == ["a", "b"] and frame.columns.tolist() == ["a", "b"]
    np.testing.assert_array_equal(frame.values, X)
    assert type(frame.values) is np.ndarray


def test_grid_combination():
    grid = [{"b": [1, 2], "a": ["x"]}, {"c": [True]}]
    assert [generic.grid_combination(grid, i) for i in range(3)] == [
        {"a": "x", "b": 1}, {"a": "x", "b": 2}, {"c": True}
    ]
    assert generic.grid_combination({"k": [5]}, 0) == {"k": 5}
    with pytest.raises(ValueError, match="grid is empty"):
        generic.grid_combination([], 0)


@pytest.mark.slow
def test_srbench_main_is_standalone():
    source = (srbench.SRBENCH_MAIN).read_text()
    assert "import srbf" not in source and "from srbf" not in source
    compile(textwrap.dedent(source), str(srbench.SRBENCH_MAIN), "exec", flags=0, dont_inherit=True)
