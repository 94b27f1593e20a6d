"""SymRegg (e-graph based symbolic regression, de Franca) as an srbf method file.

Runs under the method's own interpreter (``pip install numpy symregg==1.0.4``); imports only the
standard library, NumPy and symregg. What the adapter sets, for every method alike:

- **budget** -> ``gen``, the number of iterations of its search;
- **operators** -> ``nonterminals``: the options ``unary`` and ``binary`` (srbf operator names; by
  default the benchmark's ``sin cos exp log sqrt`` and ``add sub mul div``) in SymRegg's names
  (its own default is ``add,sub,mul,div``); operators it lacks are listed in
  ``operators_unavailable``;
- **seed**: SymRegg has no seed parameter (its Haskell core draws its own), so a fit cannot be
  repeated exactly; the result says so (``reproducible: false``).

Everything else keeps SymRegg's defaults (``alg="BestFirst"``, ``maxSize=15``, MSE, ...;
``maxSize`` is recorded in ``size_limit``); the option ``params`` may override them for side
experiments, never the budget or the operators.

Output. SymRegg's results table gives each expression as display text (``(Sqrt(x0) ^ -0.5)``:
fully bracketed, constants in Haskell's shortest exact form) and as NumPy code over ``x[:, i]``
and parameters ``t[j]``. As in eggp, the NumPy code drops the brackets of a power inside a power
(``((a ^ b) ^ c)`` becomes ``a ** b ** c``, read as ``a ** (b ** c)``), so the adapter writes the
display text in the problem's variable names (``x3`` is ``variables[3]``, ``^`` is ``**``,
``Recip`` is ``inv``); no parse hints are needed. The fit runs with ``trace=True`` (every
expression visited, numbered by its e-class id, which grows as the search inserts them); from
the trace come the returned expression (lowest training loss: the last row of SymRegg's own
front), the front (Pareto set of size against training loss) and ``trajectory_by_evaluation``:
the best-so-far expression each time it improved, in id order. SymRegg reports nothing while it
runs, so those steps carry no timestamps and ``report`` is called once, with the final
expression. SymRegg writes the data to a temporary CSV file in the current folder; the adapter
runs it inside a private temporary folder. With ``cbrt`` among its operators, SymRegg 1.0.4 did
not finish 15 iterations on a small problem within minutes (the time limit ends such a fit).
"""

import math
import os
import re
import tempfile
import time

NAME = "symregg"
DEFAULT_UNARY = ("sin", "cos", "exp", "log", "sqrt")  # the benchmark's vocabulary (srbf's defaults)
DEFAULT_BINARY = ("add", "sub", "mul", "div")
OPTIONS = ("unary", "binary", "params")

# srbf operator name -> SymRegg nonterminal; neg has no counterpart (constants carry signs)
NONTERMINALS = {
    "add": "add", "sub": "sub", "mul": "mul", "div": "div", "pow": "power", "abs": "abs",
    "sqrt": "sqrt", "exp": "exp", "log": "log", "sin": "sin", "cos": "cos", "tan": "tan",
    "asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh", "cosh": "cosh",
    "tanh": "tanh", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh", "cbrt": "cbrt",
    "square": "square", "cube": "cube", "inv": "recip",
}
FIXED = {"gen", "nonterminals", "trace"}  # set by the benchmark, not by params

# the display's function names (Haskell constructors) -> srbf's
FUNCTIONS = {"Abs": "abs", "Sqrt": "sqrt", "Cbrt": "cbrt", "Exp": "exp", "Log": "log", "Sin": "sin",
             "Cos": "cos", "Tan": "tan", "ASin": "asin", "ACos": "acos", "ATan": "atan", "Sinh": "sinh",
             "Cosh": "cosh", "Tanh": "tanh", "ASinh": "asinh", "ACosh": "acosh", "ATanh": "atanh",
             "Square": "square", "Cube": "cube", "Recip": "inv"}
_TOKEN = re.compile(r"(?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)|(?P<name>[^\W\d]\w*)|(?P<other>.)", re.DOTALL)
_SPECIAL = {"Infinity": "inf", "NaN": "nan"}
_OPERAND_FOLLOWS = {"(", ",", "+", "-", "*", "/", "^"}  # after these a "-" is a sign, not a subtraction

_symregg = None


def setup(options):
    """Import SymRegg and start its Haskell runtime once per worker (not part of any fit)."""
    global _symregg
    import symregg

    symregg.version()  # initialises the GHC runtime
    _symregg = symregg


def check_options(options):
    """The options with their defaults filled in; ValueError for anything the adapter does not take."""
    options = dict(options or {})
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ValueError("%s: unknown option(s) %s (known: %s)" % (NAME, ", ".join(map(repr, unknown)), ", ".join(OPTIONS)))
    for key, default in (("unary", DEFAULT_UNARY), ("binary", DEFAULT_BINARY)):
        names = options.get(key, default)
        if isinstance(names, str) or not isinstance(names, (list, tuple)):
            raise ValueError("%s: option %r must be a list of srbf operator names, got %r" % (NAME, key, names))
        options[key] = [str(n) for n in names]
    params = options.get("params") or {}
    if not isinstance(params, dict):
        raise ValueError("%s: option 'params' must be a mapping of SymRegg arguments, got %r" % (NAME, params))
    clash = sorted(FIXED & set(params))
    if clash:
        raise ValueError("%s: 'params' may not set %s: the benchmark sets budget and operators" % (NAME, ", ".join(clash)))
    options["params"] = dict(params)
    return options


def nonterminals(operators):
    """eggp's ``nonterminals`` for srbf operator names, and the names eggp has no match for."""
    chosen, missing = [], []
    for name in operators:
        if name in NONTERMINALS:
            if NONTERMINALS[name] not in chosen:
                chosen.append(NONTERMINALS[name])
        elif name not in missing:
            missing.append(name)
    if not chosen:
        raise ValueError("%s: none of the operators %r exists in SymRegg" % (NAME, list(operators)))
    return ",".join(chosen), missing


def generations(budget):
    if isinstance(budget, bool) or float(budget) < 1 or not float(budget).is_integer():
        raise ValueError("%s: the budget is a number of iterations, a positive integer; got %r" % (NAME, budget))
    return int(budget)


def parse_theta(text):
    """The ``theta`` column ("1.5;-2.0e-3", or empty) as a list of floats."""
    if text is None or (isinstance(text, float) and math.isnan(text)):  # pandas 3 reads "" as NaN
        return []
    text = str(text).strip()
    return [float(v) for v in text.split(";")] if text else []


def to_infix(display, variables):
    """SymRegg's display text of an expression (``(Sqrt(x0) ^ -0.5)``, fully bracketed, constants in
    Haskell's shortest exact form) as srbf infix over ``variables``. A negative constant is one
    leaf, so it is bracketed: ``(-0.5 ^ x0)`` is ``((-0.5) ** x0)``, not ``-(0.5 ** x0)``."""
    pieces, significant = [], []  # significant: (token, index in pieces), spaces left out
    for match in _TOKEN.finditer(str(display)):
        kind = match.lastgroup
        token = match.group(kind)
        if kind == "name":
            column = re.fullmatch(r"x(\d+)", token)
            if column is not None:
                i = int(column.group(1))
                if i >= len(variables):
                    raise ValueError("%s: expression uses column %d, the problem has %d" % (NAME, i, len(variables)))
                token = variables[i]
            else:
                token = FUNCTIONS.get(token) or _SPECIAL.get(token) or token
        elif kind == "other" and token == "^":
            token = "**"
        elif kind == "num" and significant and significant[-1][0] == "-" and (
                len(significant) == 1 or significant[-2][0] in _OPERAND_FOLLOWS):
            pieces[significant[-1][1]] = "(-"
            token += ")"
        if not token.isspace():
            significant.append((match.group(kind), len(pieces)))
        pieces.append(token)
    return "".join(pieces)


def _loss(value):
    try:
        loss = float(value)
    except (TypeError, ValueError):
        return None
    return loss if math.isfinite(loss) else None


def read_rows(results):
    """The trace as plain dicts with a finite training loss, in id order."""
    rows = []
    for record in results.to_dict("records"):
        loss = _loss(record.get("loss_train"))
        if loss is None:
            continue
        rows.append({
            "id": int(record["id"]),
            "numpy": str(record["Numpy"]),
            "display": str(record["Expression"]),
            "theta": parse_theta(record.get("theta", "")),
            "size": int(record["size"]),
            "loss": loss,
        })
    rows.sort(key=lambda r: r["id"])
    return rows


def best_row(rows):
    """The lowest training loss; among ties the smallest size (the end of SymRegg's front)."""
    best = None
    for row in rows:
        if best is None or (row["loss"], row["size"]) < (best["loss"], best["size"]):
            best = row
    return best


def pareto(rows):
    """Rows not beaten by a smaller-or-equal size with a lower loss, ordered by size."""
    front, best = [], math.inf
    for row in sorted(rows, key=lambda r: (r["size"], r["loss"], r["id"])):
        if row["loss"] < best:
            front.append(row)
            best = row["loss"]
    return front


def improvements(rows):
    """The best-so-far row each time it improves, in id order."""
    steps, best = [], math.inf
    for row in rows:
        if row["loss"] < best:
            best = row["loss"]
            steps.append({"evaluation": row["id"], "loss": row["loss"], "row": row})
    return steps


def fit(X, y, *, budget, seed, variables, options, report):
    options = check_options(options)
    gen = generations(budget)
    nts, missing = nonterminals(options["unary"] + options["binary"])
    if _symregg is None:
        setup(options)
    model = _symregg.SymRegg(gen=gen, nonterminals=nts, trace=True, **options["params"])
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="srbf-symregg-") as folder:
        os.chdir(folder)  # SymRegg writes its data file into the current folder
        try:
            t0 = time.perf_counter()
            model.fit(X, y)
            fit_seconds = time.perf_counter() - t0
        finally:
            os.chdir(here)
    results = getattr(model, "results", None)
    if results is None or len(results) == 0:
        raise RuntimeError("SymRegg returned no expressions")
    rows = read_rows(results)
    best = best_row(rows)
    if best is None:
        raise RuntimeError("SymRegg found no expression with a finite training loss")

    def infix(row):
        return to_infix(row["display"], variables)

    expression = infix(best)
    report(expression)
    trajectory = []
    for step in improvements(rows):
        row = step.pop("row")
        step["expression"] = infix(row)
        trajectory.append(step)
    return {
        "expression": expression,
        "front": [{"expression": infix(r), "complexity": r["size"], "loss": r["loss"]} for r in pareto(rows)],
        "fit_seconds": fit_seconds,
        "raw_expression": best["display"],
        "raw_numpy": best["numpy"],
        "constants": best["theta"],
        "loss_train": best["loss"],
        "size": best["size"],
        "trajectory_by_evaluation": trajectory,
        "n_visited": int(len(results)),
        "knob": {"gen": gen},
        "nonterminals": nts,
        "operators_unavailable": missing,
        "size_limit": {"maxSize": model.get_params().get("maxSize")},
        "reproducible": False,
        "seed_note": "SymRegg has no seed parameter; seed %d was not used by the search" % seed,
        "package": {"name": "symregg", "version": getattr(_symregg, "VERSION", None)},
    }
