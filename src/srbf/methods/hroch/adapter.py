"""HROCH (Hrosik, HROCH 1.4.12) in srbf: a hill-climbing symbolic solver on linear programs.

Runs ``HROCH.SymbolicRegressor`` at its own defaults (population 64, code size 32, 8 constants,
float32 search, one thread) except for what the benchmark sets for every method alike:

- **budget** = ``iter_limit``, with ``time_limit`` 0 (off) so that the budget alone stops the
  search: HROCH's default stop is 5 s of wall time, which a budget in iterations replaces. With
  ``budget_unit: seconds`` the budget is ``time_limit`` instead (and ``iter_limit`` stays 0,
  off); fits are then not reproducible, as with any wall-time stop.
- **seed** = ``random_state`` = seed + 1: HROCH reads 0 as "seed from the clock", so the
  benchmark's seed 0 must not reach it as 0.
- **operators**: the options ``unary`` and ``binary`` (srbf names; by default the benchmark's
  ``sin cos exp log sqrt`` and ``add sub mul div``) become a ``problem`` instruction set with the
  mutation weights of HROCH's own ``math`` set (``SymbolicSolver.MATH``) for the instructions it
  has, 0.001 (its weight for rare functions) for the ones only its full list has, and its ``nop``.
  ``neg`` and ``inv`` are HROCH's ``inv`` (-x) and ``minv`` (1/x), ``square`` its ``sq2``.
  Operators HROCH lacks are listed in ``operators_unavailable``.

**Trajectory**: none (the native solver offers no callback).

**Conversion**: HROCH prints infix over 0-based ``x0, x1, ...`` with constants as ``c0, c1, ...``
(its ``equation`` substitutes them with ``str``); the adapter substitutes the constants at full
precision and the problem's variable names, and writes ``pdiv(a, b)`` as
``a/sqrt(1e-08 + b**2)`` and ``aq(a, b)`` as ``a/sqrt(1 + b**2)`` (the formulas HROCH's own
Python code evaluates; neither is in the default instruction set). HROCH's ``predict`` evaluates
the model's Python code in float64, so srbf's parse of the expression matches it to rounding.

**Front**: HROCH keeps a population of models rather than a Pareto set; all distinct models of
the final population are returned as candidates, with HROCH's score (its error on the search
sample, lower is better) as loss and the number of operators, variables and constants as
complexity. The returned expression is ``models_[0]``, the best by score, which is what HROCH
predicts with. **Size**: ``code_settings`` (``min_size``, ``max_size``: instructions of the
linear program; ``const_size``: constants) are recorded in ``size_limit``.

Options: ``unary``, ``binary`` (srbf operator names), ``budget_unit`` (``iterations`` or
``seconds``), ``params`` (further ``SymbolicRegressor`` arguments for side experiments; not
budget, seed or operators).

Worker protocol: ``fit(X, y, *, budget, seed, variables, options, report) -> dict``; only the
standard library, NumPy and HROCH (with scikit-learn < 1.6) are imported.
"""

from __future__ import annotations

import os
import re
import sys
import time
import warnings

import numpy as np

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "shared"))
import _shared  # noqa: E402  the adapters' shared helpers: srbf/methods/shared/_shared.py

NAME = "hroch"
OPTION_DEFAULTS = {"budget_unit": "iterations", "params": {}}  # unary, binary: the benchmark's
BUDGET_UNITS = ("iterations", "seconds")
RARE_WEIGHT = 0.001  # HROCH's MATH weight for rarely used functions

# srbf operator name -> HROCH instruction
SUPPORTED = {
    "add": "add", "sub": "sub", "mul": "mul", "div": "div", "neg": "inv", "inv": "minv", "square": "sq2",
    "pow": "pow", "exp": "exp", "log": "log", "sqrt": "sqrt", "cbrt": "cbrt",
    "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "max": "max", "min": "min", "abs": "abs",
}  # fmt: skip
BINARY_INSTRUCTIONS = ("add", "sub", "mul", "div", "pow", "max", "min")

_SYMBOL = re.compile(r"\b([cx])(\d+)\b")
_REWRITES = {"pdiv": "({0}/sqrt(1e-08 + ({1})**2))", "aq": "({0}/sqrt(1 + ({1})**2))"}
_TOKENS = re.compile(r"[A-Za-z_]\w*|\d+\.?\d*(?:[eE][-+]?\d+)?|\*\*|[-+*/]")


# --- conversion (pure: no HROCH needed, tested on recorded models) -------------------------------


number = _shared.number  # a constant at full precision, bracketed when negative


def to_infix(representation: str, coefficients, variables) -> str:
    """srbf infix over ``variables`` for a HROCH model's ``str_representation`` and constants."""

    def substitute(match):
        index = int(match.group(2))
        if match.group(1) == "c":
            return number(coefficients[index])
        return variables[index]

    text = representation
    for name, template in _REWRITES.items():
        text = _rewrite_calls(text, name, template)
    return _SYMBOL.sub(substitute, text)


def _rewrite_calls(text: str, name: str, template: str) -> str:
    """Replace every call ``name(a, b)`` (innermost first) by ``template.format(a, b)``."""
    pattern = re.compile(r"\b" + name + r"\(")
    while True:
        matches = list(pattern.finditer(text))
        if not matches:
            return text
        start = matches[-1].start()  # the last call has no unrewritten call inside it
        open_at = matches[-1].end() - 1
        depth, split, end = 0, None, None
        for i in range(open_at, len(text)):
            char = text[i]
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    end = i
                    break
            elif char == "," and depth == 1:
                split = i
        if end is None or split is None:
            raise ValueError(f"{NAME}: cannot read the call {name}(...) in {text!r}")
        first, second = text[open_at + 1 : split].strip(), text[split + 1 : end].strip()
        text = text[:start] + template.format(first, second) + text[end + 1 :]


def complexity(representation: str) -> int:
    """Operators, variables and constants in a HROCH model's printed form."""
    return len(_TOKENS.findall(representation))


# --- options -------------------------------------------------------------------------------------


def problem(options: dict, math_weights: dict) -> tuple[dict, tuple[str, ...]]:
    """(HROCH ``problem`` instruction weights, srbf operators HROCH lacks)."""
    wanted = _shared.wanted_operators(options)
    weights = {"nop": float(math_weights.get("nop", 0.01))}
    for name in wanted:
        if name in SUPPORTED:
            instruction = SUPPORTED[name]
            weights[instruction] = float(math_weights.get(instruction, RARE_WEIGHT))
    missing = tuple(_shared.unavailable(wanted, SUPPORTED))
    if not any(i in BINARY_INSTRUCTIONS for i in weights):
        raise ValueError(f"{NAME}: no binary operator HROCH knows among {wanted}; it needs at least one")
    return weights, missing


def limits(budget, unit: str) -> dict:
    """HROCH's ``iter_limit`` and ``time_limit`` for a budget (None: HROCH's default 5 s)."""
    if budget is None:
        return {"iter_limit": 0, "time_limit": 5.0}
    if isinstance(budget, bool) or not float(budget) > 0:
        raise ValueError(f"{NAME}: the budget must be a positive number, got {budget!r}")
    if unit == "seconds":
        return {"iter_limit": 0, "time_limit": float(budget)}
    if not float(budget).is_integer():
        raise ValueError(f"{NAME}: the budget is a number of iterations, a positive integer; got {budget!r}")
    return {"iter_limit": int(budget), "time_limit": 0}


# --- the method ----------------------------------------------------------------------------------


def setup(options):
    """Import HROCH (and load its native library) once per worker, never inside a timed fit."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import HROCH  # noqa: F401


def run(X, y, *, budget, seed, variables, options, report):
    """Fit; return (the fitted SymbolicRegressor, the result dict ``fit`` returns)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from HROCH import SymbolicRegressor

    started = time.perf_counter()
    options = _shared.with_defaults(options, OPTION_DEFAULTS)
    weights, missing = problem(options, SymbolicRegressor.MATH)
    variables = list(variables)
    stop = limits(budget, options["budget_unit"])
    model = SymbolicRegressor(problem=weights, random_state=int(seed) + 1, **stop, **options["params"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(np.asarray(X, dtype=float), np.asarray(y, dtype=float))
    if not getattr(model, "is_fitted_", False) or not getattr(model, "models_", None):
        raise RuntimeError(f"{NAME}: HROCH's solver did not return a model")
    front, seen = [], set()
    for candidate in model.models_:
        expression = to_infix(candidate.m.str_representation, candidate.m.coeffs, variables)
        if expression in seen:
            continue
        seen.add(expression)
        front.append({"expression": expression, "loss": float(candidate.m.score),
                      "complexity": complexity(candidate.m.str_representation)})  # fmt: skip
    best = model.models_[0]
    code = model.code_settings or SymbolicRegressor.CODE_SETTINGS
    result = {
        "expression": to_infix(best.m.str_representation, best.m.coeffs, variables),
        "representation": best.m.str_representation,  # HROCH's own form: x0.. 0-based, c0.. constants
        "coefficients": [float(c) for c in best.m.coeffs],
        "equation": best.equation,  # HROCH's printout with constants substituted
        "score": float(best.m.score),
        "front": front,
        "complexity": complexity(best.m.str_representation),
        "iter_limit": stop["iter_limit"],
        "time_limit": stop["time_limit"],
        "random_state": int(seed) + 1,
        "problem": weights,
        "operators_unavailable": list(missing),
        "size_limit": {k: code.get(k) for k in ("min_size", "max_size", "const_size")},
        "fit_seconds": time.perf_counter() - started,
    }
    return model, result


def fit(X, y, *, budget, seed, variables, options, report):
    """Run HROCH for ``budget`` iterations (or seconds); return its best model as srbf infix."""
    return run(X, y, budget=budget, seed=seed, variables=variables, options=options, report=report)[1]
