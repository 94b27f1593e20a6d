"""The PySR adapter without PySR: its reading of PySR's output and its option mapping.

PySR needs Julia and Julia's package registry, which this machine cannot reach, so nothing here
was recorded from a real run. The strings below are written by hand in the formats PySR 2.7.2 and
SymbolicRegression.jl produce (read from their source): ``hall_of_fame.csv`` with the header
``Complexity,Loss,Equation`` and each equation quoted (``string_tree(...; pretty=false)``: binary
operators infix and bracketed, ``^`` for powers, functions by their PySR names without ``safe_``,
Float32 constants shortest, ``f`` exponents for Float32 such as ``1.0f-5``); ``equations_`` holds
the same strings in its ``equation`` column, which is what the adapter converts. The real package
runs through the Worker only where its environment and Julia exist.
"""

from __future__ import annotations

import math
import os
import shutil

import numpy as np
import pytest

from recorded.adapter_checks import adapter, evaluate, method_python, r2, toy, worker_fits

NAME = "pysr"
ps = adapter(NAME)
_shared = ps._shared  # the helpers the adapter runs with
V = ["u", "v", "w"]

# written by hand in SymbolicRegression.jl's format (see the module docstring)
HALL = (
    "Complexity,Loss,Equation\n"
    '1,2.3452168,"0.8927394"\n'
    '3,1.0142,"(x0 * 1.5017f0)"\n'
    '5,0.31250003,"((x0 * x0) + -0.23141f0)"\n'
    '6,0.30123,"((x0 * x0) + sin(x1))"\n'
    '8,0.0071,"((x0 ^ 2.0) + (sin(x1) * 0.98345))"\n'
    '10,0.0068,"(((x0 ^ 2.0) + (sin(x1) * 0.98345)) - 1.0e-5)"\n'
)  # fmt: skip


@pytest.mark.parametrize("equation, expected", [
    ("(x0 * 1.5017f0)", "(u * 1.5017e0)"),
    ("((x0 ^ 2.0) + (sin(x1) * 0.98345))", "((u ** 2.0) + (sin(v) * 0.98345))"),
    ("(((x0 ^ 2.0) + (sin(x1) * 0.98345)) - 1.0e-5)", "(((u ** 2.0) + (sin(v) * 0.98345)) - 1.0e-5)"),
    ("(x2 * -3.2f-4)", "(w * (-3.2e-4))"),
    ("(-0.5 ^ x0)", "((-0.5) ** u)"),  # a negative constant is one leaf
    ("neg(sqrt(x1)) / inv(x0)", "neg(sqrt(v)) / inv(u)"),
    ("square(cos(x0)) + cube(exp(x2))", "square(cos(u)) + cube(exp(w))"),
    ("(x₀ + x₂)", "(u + w)"),  # PySR's display names, in case they reach a string
    ("((x1 * Inf32) + NaN)", "((v * inf) + nan)"),
    ("max(x0, x1)", "max(u, v)"),
])  # fmt: skip
def test_equations_become_srbf_infix(equation, expected):
    assert ps.julia_to_infix(equation, V) == expected
    evaluate(expected, V, np.ones((2, 3)))  # srbf reads it


def test_converted_equation_means_what_julia_means():
    X = np.random.default_rng(0).uniform(0.5, 2.0, (20, 3))
    expression = ps.julia_to_infix("((x0 ^ 2.0) - (-0.5f0 * (x1 / x2))) ^ 0.5f0", V)
    u, v, w = X.T
    assert evaluate(expression, V, X) == pytest.approx(((u**2.0) - (-0.5 * (v / w))) ** 0.5, rel=1e-15)
    # Julia's and Python's precedence agree: -x^2 is -(x^2), x^y^z is x^(y^z); a negative constant
    # is a leaf of the tree
    assert evaluate(ps.julia_to_infix("-x0 ^ 2.0", V), V, X) == pytest.approx(-(u**2.0))
    assert evaluate(ps.julia_to_infix("(-0.5 ^ 2.0) * x0", V), V, X) == pytest.approx(0.25 * u)
    assert evaluate(ps.julia_to_infix("x0 ^ x1 ^ 0.5", V), V, X) == pytest.approx(u ** (v**0.5))


def test_variable_names_are_swapped_in_one_pass():
    assert ps.julia_to_infix("(x0 + x1)", ["x1", "x0"]) == "(x1 + x0)"
    with pytest.raises(ValueError, match="x3"):
        ps.julia_to_infix("(x3 + 1.0)", V)


def test_hall_of_fame_file_is_read_and_a_torn_write_is_refused():
    rows = ps.read_hall_of_fame(HALL)
    assert [r["complexity"] for r in rows] == [1, 3, 5, 6, 8, 10]
    assert rows[1] == {"complexity": 3, "loss": 1.0142, "equation": "(x0 * 1.5017f0)"}
    assert ps.read_hall_of_fame(HALL[:-1]) is None  # caught before its last newline
    assert ps.read_hall_of_fame(HALL[: HALL.index("5,0.3")]) is not None  # a complete shorter file
    assert ps.read_hall_of_fame("Complexity,Loss,Equation\n3,0.5\n") is None
    assert ps.read_hall_of_fame("") is None and ps.read_hall_of_fame("a,b,c\n1,2,3\n") is None
    quoted = 'Complexity,Loss,Equation\n5,1.2f-5,"max(x0, x1)"\n'
    assert ps.read_hall_of_fame(quoted) == [{"complexity": 5, "loss": 1.2e-5, "equation": "max(x0, x1)"}]


def test_scores_and_selection_follow_pysr():
    rows = ps.read_hall_of_fame(HALL)
    scores = ps.scores(rows)
    assert scores[0] == 0.0
    assert scores[1] == pytest.approx(-math.log(1.0142 / 2.3452168) / 2)
    assert scores[4] == pytest.approx(-math.log(0.0071 / 0.30123) / 2)
    # "best": the highest score among losses within 1.5x of the lowest (0.0068): rows 8 and 10
    assert ps.select_best(rows) == 4
    assert ps.select_best(rows, "accuracy") == 5
    assert ps.select_best(rows, "score") == 4
    assert ps.select_best([{"complexity": 1, "loss": 1.0, "equation": "x0"}]) == 0
    zero = rows[:2] + [{"complexity": 5, "loss": 0.0, "equation": "x0"}]
    assert ps.scores(zero)[2] == math.inf and ps.select_best(zero) == 2


def test_julia_floats():
    assert ps.julia_float("1.5f-3") == 0.0015 and ps.julia_float("-Inf32") == -math.inf
    assert math.isnan(ps.julia_float("NaN")) and ps.julia_float("0.19951081") == 0.19951081


def test_watcher_reports_each_new_complete_hall_of_fame(tmp_path):
    path = tmp_path / "hall_of_fame.csv"
    reports = []
    watcher = ps.HallOfFameWatcher(str(path), V, reports.append)
    watcher.poll()  # no file yet
    path.write_text(HALL[: HALL.index("5,0.3")], encoding="utf-8")
    watcher.poll()
    watcher.poll()  # unchanged: nothing new
    path.write_text(HALL[:-5], encoding="utf-8")  # torn write, and no complete backup
    watcher.poll()
    (tmp_path / "hall_of_fame.csv.bak").write_text(HALL, encoding="utf-8")
    watcher.poll()  # the backup is complete
    path.write_text(HALL, encoding="utf-8")
    watcher.poll()  # same content again
    assert reports == ["(u * 1.5017e0)", "((u ** 2.0) + (sin(v) * 0.98345))"]
    assert watcher.updates == 2


def test_watcher_thread_polls_until_stopped(tmp_path):
    path = tmp_path / "hall_of_fame.csv"
    path.write_text(HALL, encoding="utf-8")
    reports = []
    with ps.HallOfFameWatcher(str(path), V, reports.append, interval=0.01) as watcher:
        for _ in range(500):
            if reports:
                break
            watcher._stop.wait(0.01)
    assert reports == ["((u ** 2.0) + (sin(v) * 0.98345))"]


def test_options_map_to_pysr_arguments(tmp_path):
    kwargs = ps.pysr_options(16, 7, {}, str(tmp_path))
    assert kwargs == {
        "niterations": 16,
        "random_state": 7,
        "binary_operators": ["+", "-", "*", "/"],
        "unary_operators": ["sin", "cos", "exp", "log", "sqrt"],
        "output_directory": str(tmp_path),
        "run_id": "srbf",
    }  # maxsize and everything else: PySR's defaults
    wide = ps.pysr_options(1, 0, {"unary": ["neg", "abs", "square", "inv", "tanh", "asin"],
                                  "binary": ["add", "pow", "max"], "params": {"maxsize": 40}}, "d")  # fmt: skip
    assert wide["binary_operators"] == ["+", "^", "max"]
    assert wide["unary_operators"] == ["neg", "abs", "square", "inv", "tanh", "asin"]
    assert wide["maxsize"] == 40  # a side experiment's size limit


def test_operators_pysr_lacks_are_listed():
    assert ps.operator_lists(["sin", "atan2"], ["add", "atan2", "neg"]) == (["+"], ["sin"], ["atan2", "neg"])
    with pytest.raises(ValueError, match="binary operator"):
        ps.operator_lists(["sin"], ["atan2"])


def test_options_over_defaults_and_budget():
    options = _shared.with_defaults({}, ps.OPTION_DEFAULTS)
    assert options["warmup"] is True and options["params"] == {}
    with pytest.raises(ValueError, match="positive integer"):
        ps.pysr_options(0, 1, {}, "d")


class FakeRegressor:
    """Stands in for PySRRegressor where Julia is missing: it writes the hall of fame twice during
    ``fit``, as SymbolicRegression.jl does while it searches, and then offers ``equations_``."""

    last = None

    def __init__(self, **kwargs):
        self.kwargs = kwargs
        FakeRegressor.last = self

    def get_params(self):
        return {"model_selection": "best", "maxsize": 30, "maxdepth": None, "deterministic": False,
                "parallelism": None, **self.kwargs}  # fmt: skip

    def fit(self, X, y):
        import time

        import pandas as pd

        folder = os.path.join(self.kwargs["output_directory"], self.kwargs["run_id"])
        os.makedirs(folder)
        early = HALL[: HALL.index("5,0.3")]
        for text in (early, HALL):
            for name in ("hall_of_fame.csv", "hall_of_fame.csv.bak"):
                with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
                    handle.write(text)
            time.sleep(0.6)
        rows = ps.read_hall_of_fame(HALL)
        self.equations_ = pd.DataFrame(rows).assign(score=ps.scores(rows), sympy_format="...")
        return self

    def get_best(self):
        return self.equations_.iloc[ps.select_best(ps.read_hall_of_fame(HALL))]


@pytest.mark.slow
def test_fit_glue_with_a_stand_in_for_pysr(monkeypatch):
    import types

    monkeypatch.setattr(ps, "_pysr", types.SimpleNamespace(PySRRegressor=FakeRegressor, __version__="fake"))
    reports = []
    out = ps.fit(np.ones((4, 2)), np.ones(4), budget=3, seed=1, variables=("p", "q"), options={}, report=reports.append)
    assert out["expression"] == "((p ** 2.0) + (sin(q) * 0.98345))"
    # each hall of fame as it was written, then the result (the worker drops the repeat)
    assert reports == ["(p * 1.5017e0)", out["expression"], out["expression"]]
    assert out["hall_of_fame_updates"] == 2
    assert [f["complexity"] for f in out["front"]] == [1, 3, 5, 6, 8, 10]
    assert out["front"][1]["expression"] == "(p * 1.5017e0)"
    assert out["knob"] == {"niterations": 3} and out["size_limit"] == {"maxsize": 30, "maxdepth": None}
    assert out["reproducible"] is False and out["operators_unavailable"] == []
    assert not os.path.exists(FakeRegressor.last.kwargs["output_directory"])  # removed after the fit


# --- the real package ----------------------------------------------------------------------------

PYTHON = method_python(NAME)
JULIA = shutil.which("julia") or (PYTHON and shutil.which("julia", path=os.path.dirname(PYTHON)))
needs_julia = pytest.mark.skipif(PYTHON is None or not JULIA,
                                 reason="PySR needs its environment and Julia (with its package registry)")  # fmt: skip


@needs_julia
def test_real_fit_through_the_worker():
    X, y = toy(0)
    (result,) = worker_fits(NAME, PYTHON, [(X, y, ("u", "v"), 5, 0)], time_limit=1800)
    assert result.status == "ok", result.error
    internals = result.internals
    assert internals["size_limit"]["maxsize"] == 30 and internals["reproducible"] is False
    assert internals["binary_operators"] == ["+", "-", "*", "/"]
    assert result.trajectory and result.trajectory[-1][1] == result.expression
    assert any(f["expression"] == result.expression for f in internals["front"])
    assert r2(result.expression, ("u", "v"), X, y) > 0.9
