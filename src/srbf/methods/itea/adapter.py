"""ITEA (de Franca & Aldeia, itea 1.1.2) in srbf: evolution of Interaction-Transformation
expressions, an intercept plus weighted terms ``f(x1**e1 * ... * xn**en)``.

Runs ``itea.regression.ITEA_regressor`` at its own defaults (population 100, at most 5 terms,
integer exponents in [-2, 2], RMSE fitness) except for what the benchmark sets for every method
alike:

- **budget** = ``gens`` (ITEA's default is 100).
- **seed** = ``random_state``.
- **operators**: the transformation functions are the identity (ITEA's default, and always
  there) plus the options' ``unary`` operators (srbf names; by default the benchmark's ``sin cos
  exp log sqrt``) ITEA can use, each given with its derivative in NumPy (``tfuncs_dx``; without
  it ITEA derives them with JAX, which cannot trace NumPy functions). ITEA has no binary
  operators: its terms are products of integer powers summed with weights, so ``add sub mul div``
  are always what it does and any other binary operator is listed in ``operators_unavailable``.

**Trajectory**: none (ITEA prints each generation's fitness when verbose, never the expression);
the best fitness per generation is in ``history``.

**Conversion**: the fitted expression's terms (``expr``: function name and exponent per column),
coefficients (``coef_``) and intercept (``intercept_``) are written as srbf infix over the
problem's variable names, at full precision; terms with a zero weight are left out, as ITEA's
own ``to_str`` leaves them out. The formula is the one ITEA's ``predict`` computes, except where
a term is not finite: there ``predict`` answers the intercept (``np.nan_to_num``), srbf's formula
NaN or infinity.

Options: ``unary``, ``binary`` (srbf operator names), ``params`` (further ``ITEA_regressor``
arguments; not budget, seed or operators).

Worker protocol: ``fit(X, y, *, budget, seed, variables, options, report) -> dict``; only the
standard library, NumPy and itea are imported.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import numpy as np

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "shared"))
import _shared  # noqa: E402  the adapters' shared helpers: srbf/methods/shared/_shared.py

NAME = "itea"
OPTION_DEFAULTS = {"params": {}}  # unary, binary: the benchmark's (_shared.wanted_operators)
DEFAULT_GENERATIONS = 100  # ITEA's own default, used when the budget is None
STRUCTURAL = ("add", "sub", "mul", "div")  # what an IT expression is built of

# srbf unary operator -> (the function, its derivative), both in NumPy
TRANSFORMATIONS = {
    "id": (lambda x: x, np.ones_like),
    "sin": (np.sin, np.cos),
    "cos": (np.cos, lambda x: -np.sin(x)),
    "tan": (np.tan, lambda x: 1 / np.cos(x) ** 2),
    "exp": (np.exp, np.exp),
    "log": (np.log, lambda x: 1 / x),
    "sqrt": (np.sqrt, lambda x: 0.5 / np.sqrt(x)),
    "abs": (np.abs, np.sign),
    "tanh": (np.tanh, lambda x: 1 - np.tanh(x) ** 2),
    "sinh": (np.sinh, np.cosh),
    "cosh": (np.cosh, np.sinh),
    "atan": (np.arctan, lambda x: 1 / (1 + x**2)),
}


# --- conversion (pure: no itea needed, tested on recorded models) ---------------------------------


def model_data(itexpr) -> dict:
    """A fitted ITExpr as plain data: its terms, weights and intercept."""
    return {
        "terms": [[str(name), [int(e) for e in exponents]] for name, exponents in itexpr.expr],
        "coefficients": [float(c) for c in np.ravel(itexpr.coef_)],
        "intercept": float(np.ravel(itexpr.intercept_)[0]),
    }


def _interaction(exponents, variables) -> str:
    factors = []
    for column, exponent in enumerate(exponents):
        if exponent == 0:
            continue
        name = _shared.column_name(NAME, column, variables)
        factors.append(name if exponent == 1 else f"{name}**({exponent})")
    return "*".join(factors) if factors else "1"


def to_infix(data: dict, variables) -> str:
    """srbf infix over ``variables`` for an IT expression (see ``model_data``)."""
    if len(data["terms"]) != len(data["coefficients"]):
        raise ValueError(f"{NAME}: {len(data['terms'])} terms and {len(data['coefficients'])} coefficients")
    pieces = []
    for (function, exponents), weight in zip(data["terms"], data["coefficients"]):
        if weight == 0:
            continue
        if function not in TRANSFORMATIONS:
            raise ValueError(f"{NAME}: no srbf spelling for transformation function {function!r}")
        inner = _interaction(exponents, variables)
        term = f"({inner})" if function == "id" else f"{function}({inner})"
        pieces.append(f"{_shared.number(weight)}*{term}")
    pieces.append(_shared.number(data["intercept"]))
    return " + ".join(pieces)


# --- options -------------------------------------------------------------------------------------


def transformations(options: dict) -> tuple[dict, dict, list]:
    """(ITEA's ``tfuncs``, its ``tfuncs_dx``, srbf operators ITEA cannot use)."""
    wanted = _shared.wanted_operators(options)
    chosen = ["id"] + [name for name in wanted if name in TRANSFORMATIONS and name != "id"]
    missing = _shared.unavailable([n for n in wanted if n not in STRUCTURAL], TRANSFORMATIONS)
    chosen = list(dict.fromkeys(chosen))
    return ({n: TRANSFORMATIONS[n][0] for n in chosen}, {n: TRANSFORMATIONS[n][1] for n in chosen}, missing)


def generations(budget) -> int:
    if budget is None:
        return DEFAULT_GENERATIONS
    return _shared.positive_integer(NAME, budget, "generations")


# --- the method ----------------------------------------------------------------------------------


def setup(options):
    """Import itea (and JAX, which it imports) once per worker, never inside a timed fit."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import itea.regression  # noqa: F401


def run(X, y, *, budget, seed, variables, options, report):
    """Fit; return (the fitted ITEA_regressor, the result dict ``fit`` returns)."""
    from itea.regression import ITEA_regressor

    started = time.perf_counter()
    options = _shared.with_defaults(options, OPTION_DEFAULTS)
    tfuncs, tfuncs_dx, missing = transformations(options)
    variables = list(variables)
    model = ITEA_regressor(gens=generations(budget), tfuncs=tfuncs, tfuncs_dx=tfuncs_dx, random_state=int(seed),
                           labels=variables, verbose=None, **options["params"])  # fmt: skip
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        model.fit(np.asarray(X, dtype=float), np.asarray(y, dtype=float))
    best = model.bestsol_
    data = model_data(best)
    history = model.convergence_["fitness"]["min"]
    result = {
        "expression": to_infix(data, variables),
        "model": best.to_str(places=6),  # ITEA's own printout (weights rounded)
        "model_data": data,
        "fitness": float(model.fitness_),
        "complexity": int(best.complexity()),
        "n_terms": int(best.n_terms),
        "history": [{"generation": g + 1, "best_fitness": float(f)} for g, f in enumerate(history)],
        "generations_run": len(history),
        "operators": list(tfuncs),
        "operators_unavailable": missing,
        "size_limit": {"max_terms": int(model.max_terms), "expolim": [int(e) for e in model.expolim]},
        "fit_seconds": time.perf_counter() - started,
    }
    return model, result


def fit(X, y, *, budget, seed, variables, options, report):
    """Run ITEA for ``budget`` generations; return its best IT expression as srbf infix."""
    return run(X, y, budget=budget, seed=seed, variables=variables, options=options, report=report)[1]
