"""SRBench's SymPy check, standalone: importable, and runnable as the worker process script.

This file imports nothing from srbf, so a worker started as ``python sympy_check.py`` loads only
SymPy (about half a second) and never re-imports the caller's main module. Formulas arrive as a
flat postorder list of nodes (see ``srbf.judge.srbench.encode``):

    ("n", value) a number, ("v", name) a variable, ("c", name) pi or e, ("f", op, k) an operator
    applied to the k values before it.

Protocol on stdin/stdout: pickled messages. The worker first writes ("ready", None); then for
each (truth, prediction, work_limit) it reads it writes ("ok", bool), ("undecided", text) or
("error", text); None or end of input stops it. Anything SymPy prints goes to stderr, never into
the protocol stream.

**Work, not time.** A check is limited by the number of Python function calls it makes
(``work_limit``), counted with ``sys.settrace``: the same pair gets the same answer on a fast or
a loaded machine. So that the count depends on the pair alone, every check starts from an empty
SymPy cache and a freshly seeded SymPy random generator (``is_constant`` evaluates at random
points), the worker runs with a fixed hash seed, and it warms up SymPy's lazily imported modules
before it says it is ready. What remains is SymPy ordering a few internal sets by memory address:
the count of one pair varies by a few hundredths of a percent between processes, so only a
check finishing that close to the limit could change its answer.
"""

from __future__ import annotations

import math
import os
import pickle
import sys

DEFAULT_WORK_LIMIT = 1_000_000  # Python calls per check: about 1 s of SymPy on one core, untraced


class WorkLimitReached(BaseException):
    """Raised inside SymPy when a check has made ``work_limit`` calls (a BaseException, so that
    SymPy's own ``except Exception`` blocks let it through)."""

_UNARY = {
    "neg": lambda s, a: -a,
    "abs": lambda s, a: s.Abs(a),
    "sqrt": lambda s, a: s.sqrt(a),
    "cbrt": lambda s, a: s.cbrt(a),
    "exp": lambda s, a: s.exp(a),
    "log": lambda s, a: s.log(a),
    "log10": lambda s, a: s.log(a, 10),
    "log2": lambda s, a: s.log(a, 2),
    "sin": lambda s, a: s.sin(a),
    "cos": lambda s, a: s.cos(a),
    "tan": lambda s, a: s.tan(a),
    "asin": lambda s, a: s.asin(a),
    "acos": lambda s, a: s.acos(a),
    "atan": lambda s, a: s.atan(a),
    "sinh": lambda s, a: s.sinh(a),
    "cosh": lambda s, a: s.cosh(a),
    "tanh": lambda s, a: s.tanh(a),
    "asinh": lambda s, a: s.asinh(a),
    "acosh": lambda s, a: s.acosh(a),
    "atanh": lambda s, a: s.atanh(a),
    "inv": lambda s, a: 1 / a,
    "square": lambda s, a: a**2,
    "cube": lambda s, a: a**3,
}
_BINARY = {
    "sub": lambda s, a, b: a - b,
    "div": lambda s, a, b: a / b,
    "pow": lambda s, a, b: a**b,
    "max": lambda s, a, b: s.Max(a, b),
    "min": lambda s, a, b: s.Min(a, b),
    "atan2": lambda s, a, b: s.atan2(a, b),
}


def build(nodes, symbols=None):
    """A SymPy expression from the flat postorder encoding. Integral numbers (below 2**53)
    become SymPy integers, so a fitted exponent 2.0 reads as the square it is."""
    import sympy

    symbols = {} if symbols is None else symbols
    stack: list = []
    for node in nodes:
        kind = node[0]
        if kind == "n":
            value = float(node[1])
            if math.isnan(value):
                stack.append(sympy.nan)
            elif math.isinf(value):
                stack.append(sympy.oo if value > 0 else -sympy.oo)
            elif value.is_integer() and abs(value) < 2.0**53:
                stack.append(sympy.Integer(int(value)))
            else:
                stack.append(sympy.Float(value))
        elif kind == "v":
            if node[1] not in symbols:
                symbols[node[1]] = sympy.Symbol(node[1])
            stack.append(symbols[node[1]])
        elif kind == "c":
            stack.append({"pi": sympy.pi, "e": sympy.E}[node[1]])
        else:
            _, op, k = node
            args = stack[len(stack) - k :]
            del stack[len(stack) - k :]
            if op == "add":
                stack.append(sympy.Add(*args))
            elif op == "mul":
                stack.append(sympy.Mul(*args))
            elif k == 1:
                stack.append(_UNARY[op](sympy, args[0]))
            else:
                stack.append(_BINARY[op](sympy, *args))
    return stack[0]


def round_floats(expression):
    """SRBench's rounding: floats below 1e-4 in magnitude become 0, others get 3 decimals."""
    import sympy

    replacements = {}
    for number in expression.atoms(sympy.Float):
        replacements[number] = sympy.Integer(0) if abs(number) < 1e-4 else sympy.Float(round(float(number), 3))
    return expression.xreplace(replacements) if replacements else expression


def _is_constant(expression) -> bool:
    try:
        return bool(expression.is_constant())
    except Exception:  # noqa: BLE001 - SymPy raises many kinds; SRBench counts them as misses
        return False


def check(truth_nodes, prediction_nodes) -> bool:
    """SRBench's symbolic-solution rule (without its R^2 gate and without a time limit): the
    rounded ratio prediction/truth is a non-zero constant, or the rounded difference
    truth - prediction is a constant (simplified first when it is not visibly one); a prediction
    that is 0 or NaN never is a solution."""
    import sympy

    symbols: dict = {}
    t = build(truth_nodes, symbols)
    p = build(prediction_nodes, symbols)
    if p == 0 or p is sympy.nan or p.has(sympy.nan, sympy.zoo):
        return False
    ratio = round_floats(p / t)
    if ratio != 0 and _is_constant(ratio):
        return True
    difference = round_floats(t - p)
    if _is_constant(difference):
        return True
    return _is_constant(sympy.simplify(difference, ratio=1))


def counted_check(truth_nodes, prediction_nodes, work_limit: int = DEFAULT_WORK_LIMIT) -> bool | None:
    """``check`` stopped after ``work_limit`` Python calls: its answer, or None (undecided)."""
    from sympy.core.cache import clear_cache
    from sympy.core.random import seed

    clear_cache()
    seed(0)
    calls = 0
    reached = False

    def count(frame, event, arg):
        nonlocal calls, reached
        calls += 1
        if calls > work_limit:
            reached = True
            raise WorkLimitReached
        return None  # no per-line tracing: only calls are counted

    sys.settrace(count)
    try:
        answer = check(truth_nodes, prediction_nodes)
    except WorkLimitReached:
        return None
    finally:
        sys.settrace(None)
    return None if reached else answer  # reached but swallowed somewhere inside SymPy: undecided all the same


_WARM_UP = (  # cheap pairs whose checks go through simplify: SymPy imports most of what it loads lazily
    ([("v", "x"), ("n", 2.0), ("f", "pow", 2)], [("v", "x"), ("n", 3.0), ("f", "pow", 2)]),
    ([("v", "x"), ("f", "sin", 1), ("v", "x"), ("f", "exp", 1), ("f", "add", 2)],
     [("v", "x"), ("f", "cos", 1), ("v", "x"), ("f", "log", 1), ("f", "mul", 2)]),
)


def main() -> None:
    protocol = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever SymPy or Python prints goes to stderr
    sys.stdout = sys.stderr
    requests = sys.stdin.buffer
    import sympy  # noqa: F401 - paid once, before the worker says it is ready

    for truth, prediction in _WARM_UP:
        check(truth, prediction)
    pickle.dump(("ready", None), protocol)
    protocol.flush()
    while True:
        try:
            message = pickle.load(requests)
        except (EOFError, OSError, pickle.UnpicklingError):
            return
        if message is None:
            return
        truth, prediction, work_limit = message
        try:
            answer = counted_check(truth, prediction, work_limit)
            outcome = ("ok", answer) if answer is not None else ("undecided", f"work limit of {work_limit:,} calls reached")
        except RecursionError:
            outcome = ("error", "RecursionError: the formula is nested too deeply for SymPy")
        except Exception as error:  # noqa: BLE001 - SRBench counts SymPy exceptions as misses
            outcome = ("error", f"{type(error).__name__}: {error}")
        pickle.dump(outcome, protocol)
        protocol.flush()


if __name__ == "__main__":
    main()
