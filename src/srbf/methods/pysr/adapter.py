"""PySR (SymbolicRegression.jl; Cranmer) as an srbf method file.

Runs under the method's own interpreter (``pip install numpy pysr``); PySR installs Julia and its
Julia packages on first import, which needs Julia's package servers. Imports only the standard
library, NumPy and pysr. What the adapter sets, for every method alike:

- **budget** -> ``niterations``;
- **seed** -> ``random_state``. PySR's default search is multithreaded and, as its documentation
  says, not reproducible from the seed alone (that needs ``deterministic=True`` with
  ``parallelism="serial"``); the defaults are kept and the result says ``reproducible: false``;
- **operators** -> ``binary_operators`` / ``unary_operators``: the options ``binary`` and ``unary``
  (srbf names; by default the benchmark's ``add sub mul div`` and ``sin cos exp log sqrt``) in
  PySR's spelling, instead of PySR's default set (``+ - * /`` and no unary operator); operators
  PySR lacks are listed in ``operators_unavailable``;
- **files**: the hall of fame goes to a private temporary folder (``output_directory``, ``run_id``)
  instead of ``./outputs`` in the worker's folder; it is removed after the fit.

Everything else keeps PySR's defaults. In particular ``maxsize`` stays at 30, which some benchmark
formulas exceed; the result records it under ``size_limit``. The option ``params`` may set other
PySRRegressor arguments (``maxsize`` included) for side experiments, never the budget, the seed or
the operators; ``warmup`` (default true) runs one tiny search in ``setup``.

Trajectory. SymbolicRegression.jl rewrites ``hall_of_fame.csv`` (``Complexity,Loss,Equation``)
whenever its hall of fame changes during the search, and PySR runs the search without holding
Python's GIL. A thread of the adapter polls that file and reports the equation PySR's default
``model_selection="best"`` would pick from it (highest score among losses within 1.5x of the
lowest; the score is minus the slope of log loss against complexity).

Output. PySR's equation strings are Julia infix over ``x0, x1, ...``: ``^`` for powers, Float32
constants such as ``1.5f-3``, operators named as in PySR (``neg``, ``inv``, ``square`` ...). The
adapter renames the variables to the problem's names, writes ``^`` as ``**`` and Julia's float
exponents as ``e``; the result is srbf infix, no parse hints needed. The front is PySR's
``equations_`` (complexity, loss, score). ``setup`` imports PySR (starting Julia) and runs one tiny
search so that compilation happens before any timed fit.
"""

import csv
import io
import math
import os
import re
import shutil
import sys
import tempfile
import threading
import time

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "shared"))
import _shared  # noqa: E402  the adapters' shared helpers: srbf/methods/shared/_shared.py

NAME = "pysr"
OPTION_DEFAULTS = {"unary": list(_shared.DEFAULT_UNARY), "binary": list(_shared.DEFAULT_BINARY),
                   "params": {}, "warmup": True}

BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "^", "max": "max", "min": "min"}
UNARY = {"neg": "neg", "abs": "abs", "sqrt": "sqrt", "cbrt": "cbrt", "exp": "exp", "log": "log",
         "log10": "log10", "log2": "log2", "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin",
         "acos": "acos", "atan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
         "asinh": "asinh", "acosh": "acosh", "atanh": "atanh", "inv": "inv", "square": "square",
         "cube": "cube"}
POLL_SECONDS = 0.25

_pysr = None


def setup(options):
    """Import PySR (which starts Julia) and compile the search on a tiny problem, once per worker."""
    global _pysr
    options = _shared.with_defaults(options, OPTION_DEFAULTS)
    import pysr

    _pysr = pysr
    if options["warmup"]:
        import numpy as np

        X = np.linspace(-1.0, 1.0, 16).reshape(-1, 1)
        folder = tempfile.mkdtemp(prefix="srbf-pysr-warmup-")
        try:
            kwargs = pysr_options(1, 0, options, folder)
            _pysr.PySRRegressor(**kwargs).fit(X, 2.0 * X[:, 0] + 1.0)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def operator_lists(unary, binary):
    """PySR's (binary_operators, unary_operators) for srbf operator names, and the names PySR
    has no operator for (or that are given with the wrong arity)."""
    binary_ops, binary_missing = _shared.translate(binary, BINARY)
    unary_ops, unary_missing = _shared.translate(unary, UNARY)
    if not binary_ops:
        raise ValueError("%s: PySR needs at least one binary operator; %r has none it knows" % (NAME, list(binary)))
    return binary_ops, unary_ops, list(dict.fromkeys(binary_missing + unary_missing))


def iterations_of(budget):
    return _shared.positive_integer(NAME, budget, "iterations")


def pysr_options(budget, seed, options, folder, run_id="srbf"):
    """The PySRRegressor keyword arguments for one fit: the benchmark's settings over PySR's
    defaults, plus the option ``params`` (side experiments only)."""
    options = _shared.with_defaults(options, OPTION_DEFAULTS)
    binary, unary, _ = operator_lists(options["unary"], options["binary"])
    kwargs = {
        "niterations": iterations_of(budget),
        "random_state": int(seed),
        "binary_operators": binary,
        "unary_operators": unary,
        "output_directory": folder,
        "run_id": run_id,
    }
    kwargs.update(options["params"])
    return kwargs


# ---------------------------------------------------------------- reading PySR's output

_TOKEN = re.compile(r"(?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eEfF][+-]?\d+)?)|(?P<name>[^\W\d]\w*)|(?P<other>.)", re.DOTALL)
_SUBSCRIPTS = str.maketrans("\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089", "0123456789")
_OPERAND_FOLLOWS = {"(", ",", "+", "-", "*", "/", "^", "**"}  # after these a "-" is a sign
_SPECIAL = {"Inf": "inf", "Inf16": "inf", "Inf32": "inf", "Inf64": "inf",
            "NaN": "nan", "NaN16": "nan", "NaN32": "nan", "NaN64": "nan"}


def julia_float(text):
    """A number as Julia prints it (``1.5f-3``, ``2.0e10``, ``Inf32``, ``-NaN``) as a float."""
    text = text.strip()
    sign, body = ("-", text[1:]) if text[:1] in "+-" else ("", text)
    if body in _SPECIAL:
        return float(sign + _SPECIAL[body])
    return float(sign + re.sub(r"[fF]", "e", body))


def julia_to_infix(equation, variables):
    """One of PySR's equation strings as srbf infix over ``variables``: ``x3`` (or ``x\u2083``)
    becomes ``variables[3]``, ``^`` becomes ``**``, ``1.5f-3`` becomes ``1.5e-3`` and ``Inf32``
    ``inf``. A negative constant is one leaf of the tree, so it is bracketed: ``(-0.5 ^ x0)`` is
    ``((-0.5) ** x0)``, not ``-(0.5 ** x0)``."""
    text = str(equation).strip().strip('"').translate(_SUBSCRIPTS)
    pieces, significant = [], []  # significant: (token, index in pieces), spaces left out
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        token = match.group(kind)
        if kind == "num":
            token = re.sub(r"[fF]", "e", token)
            if significant and significant[-1][0] == "-" and (
                    len(significant) == 1 or significant[-2][0] in _OPERAND_FOLLOWS):
                pieces[significant[-1][1]] = "(-"
                token += ")"
        elif kind == "name":
            index = re.fullmatch(r"x(\d+)", token)
            if index is not None:
                i = int(index.group(1))
                if i >= len(variables):
                    raise ValueError("PySR equation %r uses %s, the problem has %d variables"
                                     % (equation, token, len(variables)))
                token = variables[i]
            else:
                token = _SPECIAL.get(token, token)
        elif token == "^":
            token = "**"
        if not token.isspace():
            significant.append((match.group(kind), len(pieces)))
        pieces.append(token)
    return "".join(pieces)


def read_hall_of_fame(text):
    """``hall_of_fame.csv`` as a list of {complexity, loss, equation}, or None when the text is
    not a complete file (caught in the middle of a write)."""
    if not text or not text.endswith("\n"):
        return None
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or [c.strip() for c in rows[0][:3]] != ["Complexity", "Loss", "Equation"]:
        return None
    out = []
    for row in rows[1:]:
        if not row:
            continue
        if len(row) < 3:
            return None
        try:
            complexity = int(float(row[0]))
            loss = julia_float(row[1])
        except ValueError:
            return None
        equation = ",".join(row[2:]).strip()  # an unquoted equation with commas (max(a, b))
        if not equation:
            return None
        out.append({"complexity": complexity, "loss": loss, "equation": equation})
    return out or None


def scores(rows):
    """PySR's score per row (rows ordered by complexity): minus the change of log loss per unit
    of complexity from the previous row; 0 for the first, inf for a zero loss."""
    out, last_loss, last_complexity = [], None, 0
    for row in rows:
        loss, complexity = row["loss"], row["complexity"]
        if last_loss is None:
            score = 0.0
        elif loss > 0.0:
            try:
                score = -math.log(loss / last_loss) / (complexity - last_complexity)
            except (ValueError, ZeroDivisionError):
                score = math.nan
        else:
            score = math.inf
        out.append(score)
        last_loss, last_complexity = loss, complexity
    return out


def select_best(rows, model_selection="best"):
    """The index PySR's ``model_selection`` picks ("best", "accuracy" or "score")."""
    if not rows:
        raise ValueError("no equations to select from")
    losses = [r["loss"] for r in rows]
    if model_selection == "accuracy":
        return min(range(len(rows)), key=lambda i: losses[i])
    s = scores(rows)
    candidates = range(len(rows))
    if model_selection == "best":
        threshold = 1.5 * min(losses)
        candidates = [i for i in candidates if losses[i] <= threshold]
    elif model_selection != "score":
        raise ValueError("model_selection must be best, accuracy or score, got %r" % (model_selection,))
    return max(candidates, key=lambda i: (s[i] if not math.isnan(s[i]) else -math.inf, -i))


class HallOfFameWatcher:
    """Polls ``path`` (and its ``.bak`` copy) in a thread; on each new complete content, reports
    the selected equation in srbf infix."""

    def __init__(self, path, variables, report, model_selection="best", interval=POLL_SECONDS):
        self.paths = (path, path + ".bak")
        self.variables = variables
        self.report = report
        self.model_selection = model_selection
        self.interval = interval
        self.updates = 0
        self._last = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _run(self):
        while not self._stop.wait(self.interval):
            self.poll()

    def poll(self):
        for path in self.paths:
            try:
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
            except OSError:
                continue
            if text == self._last:
                return
            rows = read_hall_of_fame(text)
            if rows is None:
                continue
            self._last = text
            try:
                expression = julia_to_infix(rows[select_best(rows, self.model_selection)]["equation"], self.variables)
            except ValueError:
                return
            self.updates += 1
            self.report(expression)
            return


def fit(X, y, *, budget, seed, variables, options, report):
    options = _shared.with_defaults(options, OPTION_DEFAULTS)
    _, _, missing = operator_lists(options["unary"], options["binary"])
    iterations_of(budget)
    if _pysr is None:
        setup(dict(options, warmup=False))
    folder = tempfile.mkdtemp(prefix="srbf-pysr-")
    try:
        kwargs = pysr_options(budget, seed, options, folder)
        model = _pysr.PySRRegressor(**kwargs)
        selection = model.get_params().get("model_selection", "best")
        hall = os.path.join(folder, kwargs["run_id"], "hall_of_fame.csv")
        with HallOfFameWatcher(hall, variables, report, selection) as watcher:
            t0 = time.perf_counter()
            model.fit(X, y)
            fit_seconds = time.perf_counter() - t0
        table = model.equations_
        best = model.get_best()
        expression = julia_to_infix(best["equation"], variables)
        report(expression)
        front = []
        for record in table.to_dict("records"):
            front.append({
                "expression": julia_to_infix(record["equation"], variables),
                "complexity": int(record["complexity"]),
                "loss": float(record["loss"]),
                "score": float(record.get("score", math.nan)),
            })
        settings = model.get_params()
        return {
            "expression": expression,
            "front": front,
            "fit_seconds": fit_seconds,
            "raw_expression": str(best["equation"]),
            "sympy": str(best.get("sympy_format", "")),
            "loss_train": float(best["loss"]),
            "complexity": int(best["complexity"]),
            "hall_of_fame_updates": watcher.updates,
            "knob": {"niterations": kwargs["niterations"]},
            "binary_operators": kwargs["binary_operators"],
            "unary_operators": kwargs["unary_operators"],
            "operators_unavailable": missing,
            "size_limit": {"maxsize": settings.get("maxsize"), "maxdepth": settings.get("maxdepth")},
            "model_selection": selection,
            "reproducible": bool(settings.get("deterministic")) and settings.get("parallelism") == "serial",
            "package": {"name": "pysr", "version": getattr(_pysr, "__version__", None)},
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)
