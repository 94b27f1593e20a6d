"""What the adapter files share: options over their defaults, operator vocabularies, number
formatting, and the reading of eggp's and SymRegg's traces (the two have the same API and display
text).

Not an adapter: a module in ``srbf/methods/shared/`` that every method folder's ``adapter.py``
imports as ``import _shared`` after appending this folder (``../shared`` from its own) to
``sys.path``. The adapter runs under the method's own interpreter, where srbf is not installed,
so the path is found from the adapter file itself, never through srbf. Like the adapters and the
worker it imports only the standard library (NumPy is not needed here), never srbf, and keeps to
Python 3.8 syntax.

Every error is a ``ValueError`` whose message starts with the method's name, as the adapters'
own checks do.
"""

import math
import re

DEFAULT_UNARY = ("sin", "cos", "exp", "log", "sqrt")  # the benchmark's vocabulary (srbf's defaults)
DEFAULT_BINARY = ("add", "sub", "mul", "div")


# --- options ---------------------------------------------------------------------------------------


def with_defaults(options, defaults):
    """What the adapter runs with: ``options`` (a mapping, or None for none) over ``defaults``, a
    mapping default (``params``) updated key by key rather than replaced. srbf checked every
    option against the method's method.yaml when the config was loaded (srbf.methods.options)."""
    merged = {key: dict(value) if isinstance(value, dict) else value for key, value in defaults.items()}
    for key, value in (options or {}).items():
        merged[key] = dict(merged[key], **value) if isinstance(merged.get(key), dict) and isinstance(value, dict) else value
    return merged


def wanted_operators(options):
    """The options' unary then binary operator names (the benchmark's where missing), as one list."""
    return list(options.get("unary", DEFAULT_UNARY)) + list(options.get("binary", DEFAULT_BINARY))


def positive_integer(name, budget, unit):
    """The budget as an int; ValueError unless it is a positive whole number of ``unit``."""
    if isinstance(budget, bool) or float(budget) < 1 or not float(budget).is_integer():
        raise ValueError("%s: the budget is a number of %s, a positive integer; got %r" % (name, unit, budget))
    return int(budget)


# --- operator vocabularies -------------------------------------------------------------------------


def unavailable(names, have):
    """The ``names`` not in ``have``, in order, without repeats (``operators_unavailable``)."""
    return list(dict.fromkeys(n for n in names if n not in have))


def translate(names, table):
    """(``table``'s values for ``names``, the ``names`` the table lacks), each in order and
    without repeats."""
    return list(dict.fromkeys(table[n] for n in names if n in table)), unavailable(names, table)


# --- formatting ------------------------------------------------------------------------------------


def number(value):
    """A constant at full precision (shortest round-trip repr), bracketed when negative."""
    text = repr(float(value))
    return "(%s)" % text if text.startswith("-") else text


def column_name(name, index, variables):
    """The problem's name for 0-based column ``index``; ValueError past the last column."""
    if index >= len(variables):
        raise ValueError("%s: expression uses column %d, the problem has %d" % (name, index, len(variables)))
    return variables[index]


def prefix_infix(name, tokens, variables, arity, spell):
    """srbf infix over ``variables`` for a prefix token list: function names (str), 0-based
    columns (int), constants (float). ``arity(name)`` is a function's argument count (it may raise
    for a name it does not know), ``spell(name, args)`` its infix over its arguments' infix."""
    stack = []
    for token in reversed(tokens):
        if isinstance(token, str):
            args = [stack.pop() for _ in range(arity(token))]
            stack.append(spell(token, args))
        elif isinstance(token, int) and not isinstance(token, bool):
            stack.append(variables[token])
        else:
            stack.append(number(token))
    if len(stack) != 1:
        raise ValueError("%s: malformed program of %d nodes" % (name, len(tokens)))
    return stack[0]


# --- eggp and SymRegg: display text and trace ------------------------------------------------------

# the display's function names (Haskell constructors) -> srbf's
EGRAPH_FUNCTIONS = {
    "Abs": "abs", "Sqrt": "sqrt", "Cbrt": "cbrt", "Exp": "exp", "Log": "log", "Sin": "sin",
    "Cos": "cos", "Tan": "tan", "ASin": "asin", "ACos": "acos", "ATan": "atan", "Sinh": "sinh",
    "Cosh": "cosh", "Tanh": "tanh", "ASinh": "asinh", "ACosh": "acosh", "ATanh": "atanh",
    "Square": "square", "Cube": "cube", "Recip": "inv",
}
# srbf operator name -> eggp/SymRegg nonterminal; neg has no counterpart (constants carry signs)
EGRAPH_NONTERMINALS = {
    "add": "add", "sub": "sub", "mul": "mul", "div": "div", "pow": "power", "abs": "abs",
    "sqrt": "sqrt", "exp": "exp", "log": "log", "sin": "sin", "cos": "cos", "tan": "tan",
    "asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh", "cosh": "cosh",
    "tanh": "tanh", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh", "cbrt": "cbrt",
    "square": "square", "cube": "cube", "inv": "recip",
}
_TOKEN = re.compile(r"(?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)|(?P<name>[^\W\d]\w*)|(?P<other>.)", re.DOTALL)
_SPECIAL = {"Infinity": "inf", "NaN": "nan"}
_OPERAND_FOLLOWS = {"(", ",", "+", "-", "*", "/", "^"}  # after these a "-" is a sign, not a subtraction


def egraph_nonterminals(name, label, operators):
    """eggp's or SymRegg's ``nonterminals`` (comma-separated) for srbf operator names, and the
    names it has no match for; ValueError when none matches (``label`` names the package)."""
    chosen, missing = translate(operators, EGRAPH_NONTERMINALS)
    if not chosen:
        raise ValueError("%s: none of the operators %r exists in %s" % (name, list(operators), label))
    return ",".join(chosen), missing


def egraph_infix(name, display, variables):
    """eggp's or SymRegg's display text of an expression (``(Sqrt(x0) ^ -0.5)``, fully bracketed,
    constants in Haskell's shortest exact form) as srbf infix over ``variables``. A negative
    constant is one leaf, so it is bracketed: ``(-0.5 ^ x0)`` is ``((-0.5) ** x0)``, not
    ``-(0.5 ** x0)``."""
    pieces, significant = [], []  # significant: (token, index in pieces), spaces left out
    for match in _TOKEN.finditer(str(display)):
        kind = match.lastgroup
        token = match.group(kind)
        if kind == "name":
            column = re.fullmatch(r"x(\d+)", token)
            if column is not None:
                token = column_name(name, int(column.group(1)), variables)
            else:
                token = EGRAPH_FUNCTIONS.get(token) or _SPECIAL.get(token) or token
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


def parse_theta(text):
    """The ``theta`` column ("1.5;-2.0e-3", or empty) as a list of floats."""
    if text is None or (isinstance(text, float) and math.isnan(text)):  # pandas 3 reads "" as NaN
        return []
    text = str(text).strip()
    return [float(v) for v in text.split(";")] if text else []


def _loss(value):
    try:
        loss = float(value)
    except (TypeError, ValueError):
        return None
    return loss if math.isfinite(loss) else None


def read_trace(results):
    """The results table (a pandas DataFrame) as plain dicts with a finite training loss, in
    ``id`` order."""
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


def lowest(rows, key):
    """The first row with the smallest ``key(row)``, or None for no rows."""
    best = None
    for row in rows:
        if best is None or key(row) < key(best):
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


def improvements(rows, population=None):
    """The best-so-far row each time it improves, in id order; with a ``population`` size, each
    step also gets its generation (``id // population``)."""
    steps, best = [], math.inf
    for row in rows:
        if row["loss"] < best:
            best = row["loss"]
            step = {"evaluation": row["id"], "loss": row["loss"], "row": row}
            if population:
                step["generation"] = row["id"] // population
            steps.append(step)
    return steps


def trace_result(name, label, results, best_key, variables, fit_seconds, population=None):
    """The result fields eggp and SymRegg share, from the package's results table: the returned
    expression (the row with the smallest ``best_key``), the front, the trajectory (with
    generations when ``population`` is given) and the best row's raw forms. ``label`` names the
    package in errors; RuntimeError when the table holds no usable expression."""
    if results is None or len(results) == 0:
        raise RuntimeError("%s returned no expressions" % label)
    rows = read_trace(results)
    best = lowest(rows, best_key)
    if best is None:
        raise RuntimeError("%s found no expression with a finite training loss" % label)

    def infix(row):
        return egraph_infix(name, row["display"], variables)

    trajectory = []
    for step in improvements(rows, population):
        row = step.pop("row")
        step["expression"] = infix(row)
        trajectory.append(step)
    return {
        "expression": infix(best),
        "front": [{"expression": infix(r), "complexity": r["size"], "loss": r["loss"]} for r in pareto(rows)],
        "fit_seconds": fit_seconds,
        "raw_expression": best["display"],
        "raw_numpy": best["numpy"],
        "constants": best["theta"],
        "loss_train": best["loss"],
        "size": best["size"],
        "trajectory_by_evaluation": trajectory,
        "n_visited": int(len(results)),
    }
