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
| ``columns`` | the column names the estimator and ``model(est, X)`` see: a format such as ``"x_{i}"``; default the problem's variable names |
| ``index_base`` | 0 or 1: how the method numbers positional names (``X1``, ``x_0``, ``X[:, 2]``) that are not columns; default the method's known convention (below) |
| ``front`` | true: also return ``model(p, X)`` for each member of ``get_population(est)`` |
| ``clone`` | false: fit the module's ``est`` itself instead of a fresh clone per fit |

What the estimator is fitted on follows the folder's ``eval_kwargs["use_dataframe"]``, as in
SRBench: a pandas DataFrame with srbf's column names (True, SRBench's default) or a bare NumPy
array (False). ``model`` then gets X as a DataFrame either way, as SRBench hands it.

Names in the returned formula are read, never guessed (``rename``, ``index_base_of``): a column
name is its variable; a positional name (``X3``) follows the method's declared numbering, and is
refused when nothing declares it for an array fit or it lies past the last variable. Printed
operators with a method's own semantics (gplearn's protected ``log``, ``sqrt``) are read by the
folder's name (``KNOWN_PRINTERS``). ``est.predict`` on the support points goes back as
``support_predictions`` for srbf's check (``model_string_mismatch``). A folder whose ``model`` is
None fails each fit with ``unsupported: no model string``, without fitting. docs/methods.md says
all of this for users.
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
MAX_CHECKED = 10000  # support points whose est.predict goes back for the check
_STATE = {"path": None, "module": None, "options": {}}
_IDENTIFIER = re.compile(r"(?<![\w.])([A-Za-z_]\w*)(?:\s*\[\s*(?::\s*,\s*)?(\d+)\s*\])?")
_GENERIC = re.compile(r"^[xX]_?(\d+)$")
_KNOWN_OPTIONS = {
    "srbench_dir", "budget_param", "seed_param", "params", "hyper_params", "test_params", "pre_train",
    "columns", "index_base", "front", "clone",
}
# Methods whose printout srbf reads by the folder's name: how they number array columns, and
# which printed operators mean something else than srbf's operator of that name.
KNOWN_PRINTERS = {
    "gplearn": {"index_base": 0, "protected": True},  # str(est._program): add(X0, log(X1))
    "operon": {"index_base": 1},  # pyoperon names array columns X1..Xd
    "ffx": {"index_base": 0},  # est.model_.str2() prints X0.. even for a DataFrame
}
# gplearn's protected log and sqrt, as srbf's gplearn adapter writes them (away from the guards);
# div and inv differ from a/b and 1/a only within 0.001 of a zero, which the predict check catches.
_PROTECTED_WRAPS = {"log": "abs", "sqrt": "abs"}


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
    if module.model is not None and not callable(module.model):
        raise TypeError("%s: model is neither a function nor None" % path)
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


class UnreadableNames(ValueError):
    """A formula whose variable names cannot be read without guessing; the message says why."""


def rename(text, variables, columns, index_base=0):
    """``text`` with column names and positional names rewritten to the problem's variables.

    ``index_base`` is how the method numbers positional names (``X1``, ``x_0``): 0, 1, or None
    when nothing declares it, which refuses any positional name that is not a column. A subscript
    (``X[:, 3]``) is Python code and always 0-based. A position past the last variable is refused."""
    variables = list(variables)
    known = set(variables)
    by_column = {c: v for c, v in zip(columns, variables) if c != v}

    def position(index, base, spelled):
        if base is None:
            raise UnreadableNames(
                "the model string names %s, but the estimator was fitted on a bare array "
                "(eval_kwargs use_dataframe False) and nothing says how it numbers columns: "
                "set options.index_base to 0 or 1" % spelled
            )
        if not 0 <= index - base < len(variables):
            first, last = base, base + len(variables) - 1
            raise UnreadableNames(
                "the model string names %s, but the problem has %d variables (%d-based: %d..%d)"
                % (spelled, len(variables), base, first, last)
            )
        return variables[index - base]

    def replace(match):
        name, index = match.group(1), match.group(2)
        if index is not None:  # X[:, 3] or x[3]
            if name in ("X", "x"):
                return position(int(index), 0, match.group(0))
            return match.group(0)
        if name in by_column:
            return by_column[name]
        if name in known:
            return name
        generic = _GENERIC.match(name)
        if generic:
            return position(int(generic.group(1)), index_base, name)
        return name

    return _IDENTIFIER.sub(replace, text)


def wrap_arguments(text, function, wrapper):
    """``text`` with every call ``function(a)`` written ``function(wrapper(a))``."""
    pattern = re.compile(r"(?<![\w.])%s\s*\(" % re.escape(function))
    out, at = [], 0
    for match in pattern.finditer(text):
        if match.start() < at:
            continue
        depth, end = 1, match.end()
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        if depth:  # unbalanced: leave it to the parser to refuse
            return text
        inner = wrap_arguments(text[match.end():end - 1], function, wrapper)
        out.append(text[at:match.start()] + "%s(%s(%s))" % (function, wrapper, inner))
        at = end
    out.append(text[at:])
    return "".join(out)


def read_protected(text):
    """gplearn's printout with its protected functions written in srbf's operators."""
    for function, wrapper in _PROTECTED_WRAPS.items():
        text = wrap_arguments(text, function, wrapper)
    return text


def printer_of(options):
    """What srbf knows of how the folder's method prints (``KNOWN_PRINTERS``, by folder name)."""
    folder = os.path.basename(os.path.dirname(regressor_path(options))).lower()
    return KNOWN_PRINTERS.get(folder, {})


def index_base_of(options, printer, fitted_on_frame):
    """How positional names count: declared by the config, else by the method, else the position
    in the DataFrame the estimator got; None (refuse) for a bare array nobody describes."""
    declared = options.get("index_base", printer.get("index_base"))
    if declared is not None:
        if declared not in (0, 1) or isinstance(declared, bool):
            raise ValueError("options.index_base must be 0 or 1, got %r" % (declared,))
        return declared
    return 0 if fitted_on_frame else None


def read_model(raw, variables, columns, printer, index_base):
    """The model string as srbf reads it: the method's operator semantics, the problem's names."""
    if not isinstance(raw, str):
        raw = str(raw)  # a SymPy expression
    text = read_protected(raw) if printer.get("protected") else raw
    return rename(text, variables, columns, index_base)


def _call_model(model, est, X_named):
    try:
        parameters = inspect.signature(model).parameters
    except (TypeError, ValueError):
        parameters = {}
    if "X" in parameters or len(parameters) >= 2:
        return model(est, X_named)
    return model(est)


# ---------------------------------------------------------------- the fit


class unsupported(Exception):  # noqa: N801  a folder srbf cannot score; the error reads "unsupported: ..."
    pass


def fit(X, y, *, budget, seed, variables, options, report):
    merged = dict(_STATE["options"])  # what setup() got, e.g. srbench_dir; the fit's options win
    merged.update(options)
    options = merged
    module = load(options)
    if module.model is None:  # SRBench records "not implemented"; srbf has nothing to score
        raise unsupported("no model string")
    est = _fresh(module.est, options)
    columns = column_names(variables, options)
    eval_kwargs = getattr(module, "eval_kwargs", None) or {}
    on_frame = eval_kwargs.get("use_dataframe", True) is not False
    printer = printer_of(options)
    index_base = index_base_of(options, printer, on_frame)
    import numpy as np

    X_named = table(np, X, columns)
    X_fit = X_named if on_frame else np.asarray(X)
    params = {}
    if options.get("hyper_params") is not None:
        params.update(grid_combination(getattr(module, "hyper_params", None), options["hyper_params"]))
    if options.get("test_params"):
        params.update(eval_kwargs.get("test_params") or {})
    params.update(options.get("params") or {})
    _set_params(est, params)
    pre_train = eval_kwargs.get("pre_train")
    if pre_train is not None and options.get("pre_train", True) is not False:
        pre_train(est, X_fit, y)
    late = {}  # after pre_train, which may have set them from the data
    if options.get("budget_param"):
        late[options["budget_param"]] = budget
    seed_param = options.get("seed_param", "random_state")
    if seed_param and _has_param(est, seed_param):
        late[seed_param] = seed
    _set_params(est, late)
    params.update(late)

    est.fit(X_fit, y)

    raw = _call_model(module.model, est, X_named)
    result = {
        "expression": read_model(raw, variables, columns, printer, index_base),
        "srbench_model": str(raw),
        "params": {k: (v if isinstance(v, (int, float, str, bool, type(None))) else repr(v)) for k, v in params.items()},
    }
    result.update(own_predictions(np, est, X_fit))
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
            front.append({"expression": read_model(text, variables, columns, printer, index_base)})
        result["front"] = front
    return result


def own_predictions(np, est, X_fit):
    """``est.predict`` on the support points, for srbf to check the model string against; a
    predict that fails is noted, not fatal (the formula is what srbf scores)."""
    try:
        values = np.asarray(est.predict(X_fit[:MAX_CHECKED]), dtype=float).reshape(-1)
    except Exception as exc:
        return {"predict_error": "%s: %s" % (type(exc).__name__, str(exc)[:500])}
    return {"support_predictions": [float(v) if np.isfinite(v) else None for v in values]}  # None: not finite
