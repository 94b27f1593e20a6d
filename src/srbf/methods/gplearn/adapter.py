"""gplearn (Stephens, gplearn 0.4.3) in srbf: genetic programming with protected operators.

Runs ``gplearn.genetic.SymbolicRegressor`` at its own defaults except for what the benchmark sets
for every method alike:

- **budget** = ``generations`` (gplearn's default is 20). The search runs one generation at a
  time through gplearn's own ``warm_start``, which replays the seed stream, so N calls of one
  generation evolve exactly the population one call of N generations does; gplearn's early stop
  (``stopping_criteria``, an error of 0 by default) is honoured the same way.
- **seed** = ``random_state``.
- **operators**: the options ``unary`` and ``binary`` (srbf names; by default the benchmark's
  ``sin cos exp log sqrt`` and ``add sub mul div``) become ``function_set``, restricted to the
  functions gplearn has built in (add sub mul div sqrt log abs neg inv max min sin cos tan).
  Those it lacks (``exp`` among the defaults) are left out and listed in ``operators_unavailable``;
  gplearn runs without them, as SRBench and SymbolicArena run it.

**Trajectory**: after every generation g the best program of that generation (lowest raw error,
the rule gplearn itself uses for its final program) is reported with ``budget=g``: it is exactly
what a fit of g generations returns (same seed, same warm-started stream), so the method.yaml
declares ``exact_trajectory`` and a run stores a whole ladder from one fit.

**Conversion**: gplearn prints ``add(mul(X0, X0), X1)`` with constants rounded to 3 decimals, so
the adapter never uses its printout: it walks the program's nodes (prefix: function names,
0-based column indices, float constants) and writes srbf infix over the problem's variable
names, constants at full precision. gplearn's protected functions are written as what they
compute away from their guards:

=========  ==============================================  ===================================
gplearn    computes                                        srbf infix
=========  ==============================================  ===================================
div(a, b)  a/b if abs(b) > 0.001 else 1                    ``(a/b)``
log(a)     log(abs(a)) if abs(a) > 0.001 else 0            ``log(abs(a))``
inv(a)     1/a if abs(a) > 0.001 else 0                    ``(1/a)``
sqrt(a)    sqrt(abs(a))                                    ``sqrt(abs(a))`` (exact everywhere)
=========  ==============================================  ===================================

So the formula srbf scores equals gplearn's own predictions wherever no guard is active, and
differs where a denominator or a log argument is within 0.001 of zero (srbf then sees the true
pole, gplearn its guard value). ``protected_guard_points`` counts the support points where any
guard of the returned program is active: 0 means the conversion is exact on every support point.

**Size**: gplearn has no size or depth limit during evolution; its initial trees have depth
``init_depth`` (2, 6) and bloat is held by ``parsimony_coefficient`` (0.001); both are recorded
in ``size_limit``.

Options: ``unary``, ``binary`` (srbf operator names), ``params`` (further ``SymbolicRegressor``
arguments for side experiments; not budget, seed or operators).

Worker protocol: ``fit(X, y, *, budget, seed, variables, options, report) -> dict``; only the
standard library, NumPy and gplearn are imported.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
import warnings

import numpy as np

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "shared"))
import _shared  # noqa: E402  the adapters' shared helpers: srbf/methods/shared/_shared.py

NAME = "gplearn"
OPTION_DEFAULTS = {"params": {}}  # unary, binary: the benchmark's (_shared.wanted_operators)
DEFAULT_GENERATIONS = 20  # gplearn's own default, used when the budget is None
GUARD = 0.001  # gplearn's protection threshold for div, log and inv

# srbf operator name -> gplearn function name (gplearn's built-in function set)
SUPPORTED = {
    "add": "add", "sub": "sub", "mul": "mul", "div": "div", "sqrt": "sqrt", "log": "log",
    "abs": "abs", "neg": "neg", "inv": "inv", "max": "max", "min": "min",
    "sin": "sin", "cos": "cos", "tan": "tan",
}  # fmt: skip
ARITY = {"add": 2, "sub": 2, "mul": 2, "div": 2, "max": 2, "min": 2, "sqrt": 1, "log": 1, "abs": 1,
         "neg": 1, "inv": 1, "sin": 1, "cos": 1, "tan": 1, "sig": 1}  # fmt: skip

_FORMAT = {
    "add": lambda a, b: f"({a} + {b})",
    "sub": lambda a, b: f"({a} - {b})",
    "mul": lambda a, b: f"({a}*{b})",
    "div": lambda a, b: f"({a}/{b})",
    "max": lambda a, b: f"max({a}, {b})",
    "min": lambda a, b: f"min({a}, {b})",
    "sqrt": lambda a: f"sqrt(abs({a}))",
    "log": lambda a: f"log(abs({a}))",
    "abs": lambda a: f"abs({a})",
    "neg": lambda a: f"(-{a})",
    "inv": lambda a: f"(1/{a})",
    "sin": lambda a: f"sin({a})",
    "cos": lambda a: f"cos({a})",
    "tan": lambda a: f"tan({a})",
    "sig": lambda a: f"(1/(1 + exp(-{a})))",
}


# --- conversion (pure: no gplearn needed, tested on recorded programs) ---------------------------


def program_tokens(program) -> list:
    """A gplearn ``_Program``'s nodes as plain data: function names, column indices, constants."""
    tokens = []
    for node in program.program:
        if hasattr(node, "arity") and hasattr(node, "name"):
            tokens.append(str(node.name))
        elif isinstance(node, (int, np.integer)) and not isinstance(node, bool):
            tokens.append(int(node))
        else:
            tokens.append(float(node))
    return tokens


def to_infix(tokens, variables) -> str:
    """srbf infix over ``variables`` for a prefix token list (see ``program_tokens``)."""

    def arity(function: str) -> int:
        if function not in _FORMAT:
            raise ValueError(f"{NAME}: no srbf spelling for gplearn function {function!r}")
        return ARITY[function]

    return _shared.prefix_infix(NAME, tokens, variables, arity, lambda function, args: _FORMAT[function](*args))


def guard_points(tokens, X) -> int:
    """How many rows of ``X`` a protection guard (div, log, inv) of the program is active on."""
    return int(guard_mask(tokens, X).sum())


def guard_mask(tokens, X) -> np.ndarray:
    """The rows of ``X`` on which a protection guard (div, log, inv) of the program is active:
    there gplearn's value and the srbf formula's differ."""
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    active = np.zeros(n, dtype=bool)
    stack: list[np.ndarray] = []
    with np.errstate(all="ignore"):
        for token in reversed(tokens):
            if isinstance(token, str):
                args = [stack.pop() for _ in range(ARITY[token])]
                if token in ("div", "log", "inv"):
                    guarded = args[1] if token == "div" else args[0]
                    hit = ~(np.abs(guarded) > GUARD)
                    active |= hit
                stack.append(_evaluate(token, args))
            elif isinstance(token, int) and not isinstance(token, bool):
                stack.append(X[:, token])
            else:
                stack.append(np.full(n, float(token)))
    return active


def _evaluate(name: str, args: list) -> np.ndarray:
    """gplearn's own semantics, protections included (for ``guard_points``)."""
    a = args[0]
    if name == "add":
        return a + args[1]
    if name == "sub":
        return a - args[1]
    if name == "mul":
        return a * args[1]
    if name == "div":
        return np.where(np.abs(args[1]) > GUARD, np.divide(a, args[1]), 1.0)
    if name == "max":
        return np.maximum(a, args[1])
    if name == "min":
        return np.minimum(a, args[1])
    if name == "sqrt":
        return np.sqrt(np.abs(a))
    if name == "log":
        return np.where(np.abs(a) > GUARD, np.log(np.abs(a)), 0.0)
    if name == "inv":
        return np.where(np.abs(a) > GUARD, 1.0 / a, 0.0)
    if name == "abs":
        return np.abs(a)
    if name == "neg":
        return -a
    if name == "sig":
        return 1 / (1 + np.exp(-a))
    return getattr(np, name)(a)  # sin, cos, tan


# --- options -------------------------------------------------------------------------------------


def function_set(options: dict) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(gplearn function_set, srbf operators gplearn lacks) for the options' operator lists."""
    wanted = _shared.wanted_operators(options)
    used, missing = _shared.translate(wanted, SUPPORTED)
    if not any(ARITY[f] == 2 for f in used):
        raise ValueError(f"{NAME}: no binary operator gplearn knows among {wanted}; it needs at least one")
    return tuple(used), tuple(missing)


def generations(budget) -> int:
    if budget is None:
        return DEFAULT_GENERATIONS
    return _shared.positive_integer(NAME, budget, "generations")


# --- the method ----------------------------------------------------------------------------------


def setup(options):
    """Import gplearn once per worker (never inside a timed fit)."""
    importlib.import_module("gplearn.genetic")


def run(X, y, *, budget, seed, variables, options, report):
    """Fit; return (the fitted SymbolicRegressor, the result dict ``fit`` returns)."""
    SymbolicRegressor = importlib.import_module("gplearn.genetic").SymbolicRegressor

    started = time.perf_counter()
    options = _shared.with_defaults(options, OPTION_DEFAULTS)
    functions, missing = function_set(options)
    n_generations = generations(budget)
    variables = list(variables)
    model = SymbolicRegressor(function_set=functions, random_state=int(seed), warm_start=True, **options["params"])
    greater_is_better = None
    stopped_early = False
    for g in range(1, n_generations + 1):
        model.set_params(generations=g)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            model.fit(X, y)
        if greater_is_better is None:
            greater_is_better = model._metric.greater_is_better
        population = model._programs[-1]
        raw = [p.raw_fitness_ for p in population]
        best = population[int(np.argmax(raw) if greater_is_better else np.argmin(raw))]
        report(to_infix(program_tokens(best), variables), budget=g)  # a g-generation fit's answer
        best_raw = model.run_details_["best_fitness"][-1]
        criterion = model.stopping_criteria
        if (best_raw >= criterion) if greater_is_better else (best_raw <= criterion):
            stopped_early = g < n_generations
            break  # gplearn's own early stop, as one call with all generations would do
    program = model._program  # gplearn's choice: the lowest raw error of the last generation
    tokens = program_tokens(program)
    details = model.run_details_
    result = {
        "expression": to_infix(tokens, variables),
        "program": str(program),  # gplearn's own printout (constants rounded to 3 decimals)
        "program_tokens": tokens,
        "raw_fitness": float(program.raw_fitness_),
        "metric": model.metric,
        "length": int(program.length_),
        "depth": int(program.depth_),
        "generations_run": len(details["generation"]),
        "stopped_early": stopped_early,
        "history": [
            {"generation": int(g), "best_fitness": float(f), "best_length": int(n), "average_fitness": float(a)}
            for g, f, n, a in zip(details["generation"], details["best_fitness"], details["best_length"],
                                  details["average_fitness"])  # fmt: skip
        ],
        "protected_guard_points": guard_points(tokens, np.asarray(X, dtype=float)),
        "operators": list(functions),
        "operators_unavailable": list(missing),
        "size_limit": {"init_depth": list(model.init_depth), "parsimony_coefficient": model.parsimony_coefficient,
                       "max_depth": None, "max_length": None},  # fmt: skip
        "fit_seconds": time.perf_counter() - started,
    }
    return model, result


def fit(X, y, *, budget, seed, variables, options, report):
    """Run gplearn for ``budget`` generations; return its best program as srbf infix."""
    return run(X, y, budget=budget, seed=seed, variables=variables, options=options, report=report)[1]
