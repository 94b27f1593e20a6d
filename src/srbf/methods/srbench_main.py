"""Run an SRBench-style method folder as an srbf method file (the ``srbench`` adapter).

SRBench wraps a method as a folder holding ``regressor.py``, which defines ``est`` (a scikit-learn
style estimator: ``fit(X, y)``) and ``model(est)`` or ``model(est, X)`` (the fitted formula as a
string), and optionally ``hyper_params``, ``complexity(est)``, ``eval_kwargs`` (``pre_train``,
``test_params``) and ``get_population(est)``. This file follows srbf's worker protocol
(``fit(X, y, *, budget, seed, variables, options, report)``), so any such folder runs under srbf
without new code, in whatever interpreter its config names.

Standalone on purpose: it imports only the standard library and NumPy (pandas and scikit-learn
when the method's environment has them), never srbf, and keeps to Python 3.8 syntax.

Options (the config's ``options``; ``srbench_dir`` is filled in by srbf from the adapter's path):

| option | meaning |
| --- | --- |
| ``srbench_dir`` | the folder holding ``regressor.py`` (or the path of the file itself) |
| ``budget_param`` | the estimator parameter the swept budget is written to, e.g. ``generations`` |
| ``seed_param`` | the parameter the seed is written to when the estimator has it (``random_state``) |
| ``params`` | further parameters set on the estimator before each fit |
| ``hyper_params`` | index of one combination of the folder's ``hyper_params`` grid to use (none by default: no tuning) |
| ``test_params`` | true: apply ``eval_kwargs["test_params"]`` (SRBench's quick test settings) |
| ``pre_train`` | false: skip ``eval_kwargs["pre_train"](est, X, y)`` (called by default, as SRBench does) |
| ``columns`` | the column names ``model(est, X)`` sees: a format such as ``"x_{i}"``; default the problem's variable names |
| ``index_base`` | 0 or 1: how generic names such as ``x3`` or ``X_3`` that are not columns count (default 0) |
| ``fit_dataframe`` | true: ``est.fit`` gets a pandas DataFrame with the columns (default a NumPy array) |
| ``front`` | true: also return ``model(p, X)`` for each member of ``get_population(est)`` |
| ``clone`` | false: fit the module's ``est`` itself instead of a fresh clone per fit |

Names in the returned formula. ``model(est, X)`` gets X with named columns, as SRBench hands it a
DataFrame, and most wrappers write their formula in those names. Whatever comes back is then
rewritten to the problem's variable names: a column name becomes its variable, and a generic name
that is neither (``x3``, ``X_3``, ``X[:, 3]``) becomes the variable at that index. The expression
srbf stores is therefore in the problem's own names and needs no parser flags; the string
``model`` returned is kept as ``srbench_model``.
"""

from __future__ import annotations

import copy
import importlib.util
import inspect
import itertools
import os
import re
import sys
import types

_PACKAGE = "_srbf_srbench_method"
_STATE = {"path": None, "module": None, "options": {}}
_IDENTIFIER = re.compile(r"(?<![\w.])([A-Za-z_]\w*)(?:\s*\[\s*(?::\s*,\s*)?(\d+)\s*\])?")
_GENERIC = re.compile(r"^[xX]_?(\d+)$")
_KNOWN_OPTIONS = {
    "srbench_dir", "budget_param", "seed_param", "params", "hyper_params", "test_params", "pre_train",
    "columns", "index_base", "fit_dataframe", "front", "clone",
}


def regressor_path(options):
    """The absolute path of ``regressor.py`` named by ``options["srbench_dir"]`` (a folder or the file)."""
    where = options.get("srbench_dir")
    if not where:
        raise ValueError("the srbench adapter needs options.srbench_dir: the folder holding regressor.py")
    path = os.path.abspath(os.path.expanduser(str(where)))
    if os.path.isdir(path):
        path = os.path.join(path, "regressor.py")
    if not os.path.isfile(path):
        raise FileNotFoundError("no SRBench regressor file %s" % path)
    return path


def load(options):
    """Import the folder's ``regressor.py`` once per process (as a package module, so that it may
    import its neighbours, relatively or by name) and check that it defines ``est`` and ``model``."""
    path = regressor_path(options)
    if _STATE["path"] == path:
        return _STATE["module"]
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    package = types.ModuleType(_PACKAGE)
    package.__path__ = [folder]
    sys.modules[_PACKAGE] = package
    name = _PACKAGE + "." + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    missing = [n for n in ("est", "model") if not hasattr(module, n)]
    if missing:
        raise AttributeError("%s defines no %s (an SRBench regressor.py defines est and model)" % (path, " and no ".join(missing)))
    if not callable(module.model):
        raise TypeError("%s: model is not a function" % path)
    _STATE["path"], _STATE["module"] = path, module
    return module


def setup(options):
    """Import the method's folder once, before any timed fit."""
    unknown = sorted(set(options) - _KNOWN_OPTIONS)
    if unknown:
        sys.stderr.write("srbench adapter: options it does not know (ignored): %s\n" % ", ".join(unknown))
    _STATE["options"] = dict(options)
    load(options)
    for name in ("pandas", "sklearn.base"):  # used by every fit when present: import them untimed
        try:
            importlib.import_module(name)
        except ImportError:
            pass


# ---------------------------------------------------------------- the estimator


def _fresh(est, options):
    """A fresh unfitted copy of the module's estimator (sklearn's clone, else a deep copy)."""
    if options.get("clone", True) is False:
        return est
    try:
        from sklearn.base import clone

        return clone(est)
    except Exception:
        pass
    try:
        return copy.deepcopy(est)
    except Exception:
        return est


def _has_param(est, name):
    try:
        if name in est.get_params(deep=False):
            return True
    except Exception:
        pass
    return hasattr(est, name)


def _set_params(est, params):
    if not params:
        return
    try:
        est.set_params(**params)
        return
    except Exception:
        pass
    for key, value in params.items():
        setattr(est, key, value)


def grid_combination(hyper_params, index):
    """Combination ``index`` (0-based, in SRBench's grid order) of a ``hyper_params`` grid: a dict
    or a list of dicts mapping a parameter to a list of values."""
    grids = [hyper_params] if isinstance(hyper_params, dict) else list(hyper_params or [])
    combos = []
    for grid in grids:
        keys = sorted(grid)
        for values in itertools.product(*(list(grid[k]) for k in keys)):
            combos.append(dict(zip(keys, values)))
    if not combos:
        raise ValueError("options.hyper_params is set but the folder's hyper_params grid is empty")
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(combos):
        raise ValueError("options.hyper_params must be an index from 0 to %d, got %r" % (len(combos) - 1, index))
    return combos[index]


# ---------------------------------------------------------------- columns and names


class _Columns(list):
    def tolist(self):
        return list(self)


def table(np, X, columns):
    """X with named columns: a pandas DataFrame when pandas is there, else an array with ``.columns``."""
    try:
        import pandas

        return pandas.DataFrame(X, columns=list(columns))
    except ImportError:
        pass

    class Frame(np.ndarray):
        @property
        def values(self):
            return np.asarray(self)

    frame = np.asarray(X).view(Frame)
    frame.columns = _Columns(columns)
    return frame


def column_names(variables, options):
    fmt = options.get("columns")
    if not fmt:
        return list(variables)
    return [str(fmt).format(i=i) for i in range(len(variables))]


def rename(text, variables, columns, index_base=0):
    """``text`` with column names and generic column names rewritten to the problem's variables."""
    variables = list(variables)
    known = set(variables)
    by_column = {c: v for c, v in zip(columns, variables) if c != v}

    def replace(match):
        name, index = match.group(1), match.group(2)
        if index is not None:  # X[:, 3] or x[3]
            if name in ("X", "x") and 0 <= int(index) - index_base < len(variables):
                return variables[int(index) - index_base]
            return match.group(0)
        if name in by_column:
            return by_column[name]
        if name in known:
            return name
        generic = _GENERIC.match(name)
        if generic and 0 <= int(generic.group(1)) - index_base < len(variables):
            return variables[int(generic.group(1)) - index_base]
        return name

    return _IDENTIFIER.sub(replace, text)


def _call_model(model, est, X_named):
    try:
        parameters = inspect.signature(model).parameters
    except (TypeError, ValueError):
        parameters = {}
    if "X" in parameters or len(parameters) >= 2:
        return model(est, X_named)
    return model(est)


# ---------------------------------------------------------------- the fit


def fit(X, y, *, budget, seed, variables, options, report):
    merged = dict(_STATE["options"])  # what setup() got, e.g. srbench_dir; the fit's options win
    merged.update(options)
    options = merged
    module = load(options)
    est = _fresh(module.est, options)
    columns = column_names(variables, options)
    index_base = int(options.get("index_base", 0))
    eval_kwargs = getattr(module, "eval_kwargs", None) or {}
    import numpy as np

    X_named = table(np, X, columns)
    params = {}
    if options.get("hyper_params") is not None:
        params.update(grid_combination(getattr(module, "hyper_params", None), options["hyper_params"]))
    if options.get("test_params"):
        params.update(eval_kwargs.get("test_params") or {})
    params.update(options.get("params") or {})
    _set_params(est, params)
    pre_train = eval_kwargs.get("pre_train")
    if pre_train is not None and options.get("pre_train", True) is not False:
        pre_train(est, X_named, y)
    late = {}  # after pre_train, which may have set them from the data
    if options.get("budget_param"):
        late[options["budget_param"]] = budget
    seed_param = options.get("seed_param", "random_state")
    if seed_param and _has_param(est, seed_param):
        late[seed_param] = seed
    _set_params(est, late)
    params.update(late)

    est.fit(X_named if options.get("fit_dataframe") else X, y)

    raw = _call_model(module.model, est, X_named)
    if not isinstance(raw, str):
        raw = str(raw)  # a SymPy expression
    result = {
        "expression": rename(raw, variables, columns, index_base),
        "srbench_model": raw,
        "params": {k: (v if isinstance(v, (int, float, str, bool, type(None))) else repr(v)) for k, v in params.items()},
    }
    complexity = getattr(module, "complexity", None)
    if callable(complexity):
        try:
            result["complexity"] = int(complexity(est))
        except Exception as exc:  # a broken complexity() must not fail a good fit
            result["complexity_error"] = "%s: %s" % (type(exc).__name__, exc)
    population = getattr(module, "get_population", None)
    if options.get("front") and callable(population):
        front = []
        for member in population(est):
            text = _call_model(module.model, member, X_named)
            front.append({"expression": rename(str(text), variables, columns, index_base)})
        result["front"] = front
    return result
