"""An estimator handed to :func:`srbf.evaluate`, written as an SRBench method folder.

``srbf.evaluate`` runs a scikit-learn regressor exactly as ``srbf run`` runs an SRBench-style
folder (``srbf.methods.srbench``): the folder's ``regressor.py`` is written here, with the
estimator (a clone, unfitted) and the way it gives its formula pickled into it by cloudpickle, so
a class defined in a notebook travels by value to the worker process. The folder is named by the
hash of that file, which is also what the configuration hash reads: two different estimators (or
parameters) are two configurations, the same one is the same configuration and resumes.

The formula comes from, in this order: a ``formula`` callable (``formula(est)`` or, SRBench's
``model(est, X)``, ``formula(est, X)``), the estimator's ``sympy()`` method (PySR's), or its
``model()`` method. Anything the worker could not receive is refused here, before any fit.
"""

from __future__ import annotations

import base64
import hashlib
import sys
from pathlib import Path
from typing import Any, Callable

from srbf.core import SrbfError

__all__ = ["EstimatorError", "formula_source", "write_method_folder"]

FOLDER = "estimators"  # under the results root: <results>/estimators/<name>-<hash>/regressor.py

_REGRESSOR = '''"""{name}: an estimator handed to srbf.evaluate, as an SRBench method folder (by srbf.api)."""

_PICKLED = {pickled!r}  # (estimator, formula) by cloudpickle, base64: the configuration hash reads this file

import base64
import inspect
import pickle

est, _formula = pickle.loads(base64.b64decode(_PICKLED))


def _takes_x(function):
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return "X" in parameters or len(parameters) >= 2


def model(est, X=None):
    """The fitted formula as text: {source}."""
    if _formula is not None:
        return str(_formula(est, X) if _takes_x(_formula) else _formula(est))
    if callable(getattr(est, "sympy", None)):
        return str(est.sympy())
    return str(est.model())
'''


class EstimatorError(SrbfError, ValueError):
    """An estimator srbf cannot run: no ``fit``, no way to give its formula, or it does not pickle."""


def formula_source(estimator: Any, formula: Callable | None) -> str:
    """How the estimator gives its formula, in words; EstimatorError when it gives none."""
    if not callable(getattr(estimator, "fit", None)):
        raise EstimatorError(f"srbf.evaluate: estimator {type(estimator).__name__} has no fit(X, y) method")
    if formula is not None:
        if not callable(formula):
            raise EstimatorError(f"srbf.evaluate: formula= must be a callable formula(est) or formula(est, X), "
                                 f"got {type(formula).__name__}")
        return f"the formula= callable {getattr(formula, '__name__', type(formula).__name__)}"
    if callable(getattr(estimator, "sympy", None)):
        return "its sympy() method"
    if callable(getattr(estimator, "model", None)):
        return "its model() method"
    raise EstimatorError(f"srbf.evaluate: estimator {type(estimator).__name__} cannot give its formula: give it a "
                         "sympy() or model() method, or pass formula=lambda est: ... (or SRBench's model(est, X))")


def _fresh(estimator: Any) -> Any:
    """An unfitted clone (scikit-learn's ``clone``), or the estimator itself when it cannot be cloned."""
    try:
        from sklearn.base import clone
    except ImportError:
        return estimator
    try:
        return clone(estimator)
    except Exception:  # not a scikit-learn estimator (no get_params): sent as it is
        return estimator


def _own_modules(estimator: Any, formula: Callable | None) -> list:
    """The modules of the user's own code the estimator and formula come from (a script, a test,
    a package not installed): the worker starts in a clean environment that cannot import them,
    so cloudpickle sends them by value, as it does ``__main__``."""
    import sysconfig

    installed = [Path(sysconfig.get_paths()[k]).resolve() for k in ("purelib", "platlib", "stdlib", "platstdlib")]
    names = {c.__module__ for c in type(estimator).__mro__} | {getattr(formula, "__module__", None)}
    own = []
    for name in sorted(n for n in names if n and n != "__main__" and n.split(".")[0] != "srbf"):
        module = sys.modules.get(name)
        file = getattr(module, "__file__", None)
        if file and not any(Path(file).resolve().is_relative_to(p) for p in installed):
            own.append(module)
    return own


def _received(data: bytes) -> str | None:
    """None when a fresh interpreter, started as a worker is (clean environment, its own temporary
    directory as cwd), loads ``data``; else the last line of its error."""
    import shutil
    import subprocess
    import tempfile

    from srbf.methods.isolation import clean_environment

    private = Path(tempfile.mkdtemp(prefix="srbf-receive-"))
    try:
        done = subprocess.run([sys.executable, "-c", "import pickle, sys; pickle.loads(sys.stdin.buffer.read())"],
                              input=data, capture_output=True, cwd=private, env=clean_environment({}, private),
                              timeout=120)
    finally:
        shutil.rmtree(private, ignore_errors=True)
    lines = done.stderr.decode(errors="replace").strip().splitlines()
    return None if done.returncode == 0 else (lines[-1] if lines else f"exit status {done.returncode}")


def _pickled(estimator: Any, formula: Callable | None) -> bytes:
    import cloudpickle

    what = f"{type(estimator).__name__}" + ("" if formula is None else " (with its formula=)")
    own = _own_modules(estimator, formula)
    try:
        for module in own:
            cloudpickle.register_pickle_by_value(module)
        data = cloudpickle.dumps((estimator, formula))
    except Exception as error:
        raise EstimatorError(f"srbf.evaluate: estimator {what} cannot be sent to a worker process, it does not "
                             f"pickle: {type(error).__name__}: {str(error)[:300]}") from None
    finally:
        for module in own:
            cloudpickle.unregister_pickle_by_value(module)
    problem = _received(data)  # what the worker will do: something that pickles but does not load there fails here
    if problem is not None:
        raise EstimatorError(f"srbf.evaluate: estimator {what} pickles, but a worker process cannot load it: "
                             f"{problem[:300]} (define what it needs in the notebook, or install its package)")
    return data


def write_method_folder(estimator: Any, root: str | Path, name: str, formula: Callable | None = None) -> Path:
    """Write ``<root>/estimators/<name>-<hash>/regressor.py`` for ``estimator`` (cloned) and return
    the folder; the same estimator writes the same file. EstimatorError before anything is written
    when the estimator cannot run (see the module's docstring)."""
    source = formula_source(estimator, formula)
    data = _pickled(_fresh(estimator), formula)
    text = _REGRESSOR.format(name=name, source=source, pickled=base64.b64encode(data).decode())
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    folder = Path(root) / FOLDER / f"{name}-{digest}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "regressor.py").write_text(text, encoding="utf-8")
    return folder
