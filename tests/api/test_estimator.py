"""The SRBench folder srbf.evaluate writes: loadable in a clean interpreter, its model() from the
formula the estimator gives, named by its content."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from srbf.api.estimator import EstimatorError, write_method_folder


class Sloped:
    """y = a * x, with a sympy() method as PySR has (defined here: sent by value)."""

    def __init__(self, scale=1.0):
        self.scale = scale

    def fit(self, X, y):
        X = np.asarray(X, dtype=float)
        self.a_ = float(np.dot(X[:, 0], y) / np.dot(X[:, 0], X[:, 0])) * self.scale
        return self

    def sympy(self):
        return f"{self.a_!r}*x"


class Silent(Sloped):
    sympy = None


def load_and_fit(folder) -> str:
    """model(est) of the folder's estimator fitted on y = 3x, in a fresh interpreter with a clean environment."""
    code = ("import importlib.util, sys, numpy as np\n"
            f"spec = importlib.util.spec_from_file_location('r', {str(folder / 'regressor.py')!r})\n"
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
            "X = np.arange(1.0, 6.0).reshape(-1, 1); m.est.fit(X, 3 * X[:, 0]); print(m.model(m.est, X))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={}, cwd=folder)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_folder_loads_anywhere_and_gives_the_estimators_formula(tmp_path):
    folder = write_method_folder(Sloped(), tmp_path, "sloped")
    assert folder.parent == tmp_path / "estimators" and folder.name.startswith("sloped-")
    assert load_and_fit(folder) == "3.0*x"
    assert write_method_folder(Sloped(), tmp_path, "sloped") == folder  # same estimator, same configuration
    assert write_method_folder(Sloped(scale=2.0), tmp_path, "sloped") != folder  # a parameter changed: a new one


def test_a_formula_callable_wins_and_may_take_x(tmp_path):
    folder = write_method_folder(Sloped(), tmp_path, "f", formula=lambda est, X: f"{est.a_ * len(X)!r}*x")
    assert load_and_fit(folder) == "15.0*x"


def test_what_cannot_run_is_refused_before_anything_is_written(tmp_path):
    with pytest.raises(EstimatorError, match="Silent cannot give its formula"):
        write_method_folder(Silent(), tmp_path, "s")
    with pytest.raises(EstimatorError, match="has no fit"):
        write_method_folder(object(), tmp_path, "s")
    with pytest.raises(EstimatorError, match="formula= must be a callable"):
        write_method_folder(Sloped(), tmp_path, "s", formula="x")
    assert not (tmp_path / "estimators").exists()


def test_what_pickles_but_cannot_load_in_a_worker_is_refused(tmp_path, monkeypatch):
    helper = tmp_path / "helper_module_of_mine.py"  # a module of one's own, importable here only
    helper.write_text("SCALE = 2.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import helper_module_of_mine

    estimator = Sloped(scale=helper_module_of_mine)  # a module object: pickled by reference to its name
    with pytest.raises(EstimatorError, match="a worker process cannot load it: ModuleNotFoundError: No module named "
                                             "'helper_module_of_mine'"):
        write_method_folder(estimator, tmp_path, "s")
