"""Bingo (NASA, bingo-nasa 0.5.7) in srbf: genetic programming on acyclic graphs (AGraphs) with
local optimisation of every individual's constants.

Runs ``bingo.symbolic_regression.SymbolicRegressor`` at its own defaults (population 500, stack
size 32, the age-fitness Pareto EA, Levenberg-Marquardt constant fitting) except for what the
benchmark sets for every method alike:

- **budget** = ``generations``; ``max_time`` and ``max_evals`` stay so high that they never stop a
  fit. Bingo evolves in chunks of 10 generations between its checks of the stopping rules (its
  ``fit`` passes ``convergence_check_frequency=10``), so a budget of 25 runs 30 generations;
  ``generations_run`` records what ran. Its own early stop, a fitness of 1e-16, is kept. Without
  a budget bingo stops as it ships: after 1800 s (times its 0.97 safety factor).
- **seed** = ``random_state`` (bingo seeds NumPy's and Python's global generators with it).
- **operators**: the options ``unary`` and ``binary`` (srbf names; by default the benchmark's
  ``sin cos exp log sqrt`` and ``add sub mul div``) become bingo's ``operators``; those bingo lacks
  are listed in ``operators_unavailable``.
- **processes**: one. Bingo evaluates with a process pool of ``OMP_NUM_THREADS`` processes when
  that variable is set; the adapter hides it during the fit, so evaluation is serial, bingo's
  behaviour when it is unset.

**Trajectory**: bingo logs a line after each chunk of generations (``Generation: N ...``, through
Python's logging); a handler on that logger reports the best individual of the population then,
when it has changed. **Front**: bingo's Pareto front (fitness against complexity) of its best
population. **Returned**: ``get_best_individual()``, the lowest-fitness model of that population,
its constants refitted on the support points (what bingo predicts with).

**Conversion**: the model's AGraph is a command stack, one row per node (operator, argument
rows); the adapter walks the stack bingo evaluates (the reduced one) and writes srbf infix over
the problem's variables with the constants at full precision. Bingo's ``log`` is ``log(|a|)``,
its ``sqrt`` ``sqrt(|a|)`` and its ``safe pow`` ``|a|**b`` (bingo.symbolic_regression.agraph.
evaluation_backend.operator_eval), written as such, so srbf's formula is bingo's exactly.

Options: ``unary``, ``binary`` (srbf operator names), ``params`` (further ``SymbolicRegressor``
arguments; not budget, seed or operators).

Worker protocol: ``fit(X, y, *, budget, seed, variables, options, report) -> dict``; only the
standard library, NumPy and bingo are imported.
"""

from __future__ import annotations

import logging
import os
import sys
import time
import warnings
from contextlib import contextmanager

import numpy as np

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "shared"))
import _shared  # noqa: E402  the adapters' shared helpers: srbf/methods/shared/_shared.py

NAME = "bingo"
OPTION_DEFAULTS = {"params": {}}  # unary, binary: the benchmark's (_shared.wanted_operators)
UNLIMITED = {"max_time": 1e12, "max_evals": int(1e19)}  # the budget alone stops the search
CHECK_EVERY = 10  # generations between bingo's checks (SymbolicRegressor.fit)
LOGGER_NAME = "bingo.evolutionary_optimizers.evolutionary_optimizer"

# srbf operator name -> bingo operator name (bingo.symbolic_regression.agraph.operator_definitions).
# bingo also names tan, asin, acos, atan, tanh, square and cube, but the compiled simplification
# backend of bingo-nasa 0.5.7 does not know them: a fit with any of them stops with IndexError
# "_Map_base::at". They are left out (listed in operators_unavailable).
SUPPORTED = {
    "add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "pow", "abs": "|", "sqrt": "sqrt", "exp": "exp",
    "log": "log", "sin": "sin", "cos": "cos", "sinh": "sinh", "cosh": "cosh",
}  # fmt: skip
BINARY = ("+", "-", "*", "/", "pow")

# bingo's node numbers (operator_definitions) -> how srbf writes them over their arguments
INTEGER, VARIABLE, CONSTANT = -1, 0, 1
_FORMAT = {
    2: lambda a, b: f"({a} + {b})",
    3: lambda a, b: f"({a} - {b})",
    4: lambda a, b: f"({a}*{b})",
    5: lambda a, b: f"({a}/{b})",
    6: lambda a: f"sin({a})",
    7: lambda a: f"cos({a})",
    8: lambda a: f"exp({a})",
    9: lambda a: f"log(abs({a}))",
    10: lambda a, b: f"({a}**{b})",
    11: lambda a: f"abs({a})",
    12: lambda a: f"sqrt(abs({a}))",
    13: lambda a, b: f"(abs({a})**{b})",
    14: lambda a: f"sinh({a})",
    15: lambda a: f"cosh({a})",
    16: lambda a: f"tan({a})",
    17: lambda a: f"asin({a})",
    18: lambda a: f"acos({a})",
    19: lambda a: f"atan({a})",
    20: lambda a: f"tanh({a})",
    21: lambda a: f"({a}**2)",
    22: lambda a: f"({a}**3)",
}
_BINARY_NODES = (2, 3, 4, 5, 10, 13)


# --- conversion (pure: no bingo needed, tested on recorded models) --------------------------------


def stack_data(agraph) -> dict:
    """An AGraph as plain data: the reduced command stack bingo evaluates and its constants."""
    agraph.get_formatted_string("console")  # brings the reduced stack up to date after any change
    stack = np.asarray(agraph._simplified_command_array, dtype=int)
    return {"stack": [[int(v) for v in row] for row in stack], "constants": [float(c) for c in agraph.constants]}


def to_infix(data: dict, variables) -> str:
    """srbf infix over ``variables`` for a command stack (see ``stack_data``): its last row."""
    stack, constants = data["stack"], data["constants"]
    if not stack:
        raise ValueError(f"{NAME}: an empty command stack")
    written: list[str] = []
    for node, first, second in stack:
        if node == VARIABLE:
            written.append(_shared.column_name(NAME, first, variables))
        elif node == CONSTANT:
            if not 0 <= first < len(constants):
                raise ValueError(f"{NAME}: constant {first} of {len(constants)}")
            written.append(_shared.number(constants[first]))
        elif node == INTEGER:
            written.append(_shared.number(first))
        elif node in _FORMAT:
            arguments = (first, second) if node in _BINARY_NODES else (first,)
            if any(not 0 <= a < len(written) for a in arguments):
                raise ValueError(f"{NAME}: row {len(written)} refers to a later row: {[node, first, second]}")
            written.append(_FORMAT[node](*(written[a] for a in arguments)))
        else:
            raise ValueError(f"{NAME}: no srbf spelling for bingo node {node}")
    return written[-1]


# --- options -------------------------------------------------------------------------------------


def operators(options: dict) -> tuple[list, list]:
    """(bingo's operator names, srbf operators bingo lacks) for the options' operator lists."""
    used, missing = _shared.translate(_shared.wanted_operators(options), SUPPORTED)
    if not any(name in BINARY for name in used):
        raise ValueError(f"{NAME}: no binary operator bingo knows among {_shared.wanted_operators(options)}")
    return used, missing


@contextmanager
def serial_evaluation():
    """OMP_NUM_THREADS hidden for the fit: bingo then evaluates in this process, not in a pool."""
    saved = os.environ.pop("OMP_NUM_THREADS", None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ["OMP_NUM_THREADS"] = saved


class _Incumbents(logging.Handler):
    """Reports the population's best individual each time bingo logs a check, when it changed."""

    def __init__(self, model, variables, report):
        super().__init__(level=1)
        self.model, self.variables, self.report = model, variables, report
        self.last = None

    def emit(self, record):
        if getattr(record, "stats", False) or getattr(record, "diagnostics", False):
            return  # bingo's statistics lines; the plain one says "Generation: N"
        island = getattr(self.model, "archipelago", None)
        if island is None or not str(record.msg).startswith("Generation"):
            return
        expression = to_infix(stack_data(island.get_best_individual()), self.variables)
        if expression != self.last:
            self.last = expression
            self.report(expression)


# --- the method ----------------------------------------------------------------------------------


def setup(options):
    """Import bingo (and MPI through mpi4py) once per worker, never inside a timed fit."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import bingo.symbolic_regression.symbolic_regressor  # noqa: F401


def run(X, y, *, budget, seed, variables, options, report):
    """Fit; return (the fitted SymbolicRegressor, the result dict ``fit`` returns)."""
    from bingo.symbolic_regression.symbolic_regressor import SymbolicRegressor

    started = time.perf_counter()
    options = _shared.with_defaults(options, OPTION_DEFAULTS)
    used, missing = operators(options)
    stop = {} if budget is None else {"generations": _shared.positive_integer(NAME, budget, "generations"), **UNLIMITED}
    variables = list(variables)
    model = SymbolicRegressor(operators=used, random_state=int(seed), **stop, **options["params"])
    logger = logging.getLogger(LOGGER_NAME)
    handler = _Incumbents(model, variables, report)
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(1)
    logger.propagate = False  # bingo's lines go to the handler only, never to the worker's stderr
    try:
        with serial_evaluation(), warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            model.fit(np.asarray(X, dtype=float), np.asarray(y, dtype=float))
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate
    best = model.get_best_individual()
    data = stack_data(best.equation)
    front = []
    for member in model.get_pareto_front():
        front.append({"expression": to_infix(stack_data(member.equation), variables),
                      "loss": float(member.fitness), "complexity": int(member.complexity)})  # fmt: skip
    result = {
        "expression": to_infix(data, variables),
        "model": str(best),  # bingo's own printout (X_0.. 0-based)
        "stack": data,
        "fitness": float(best.fitness),
        "metric": model.metric,
        "complexity": int(best.complexity),
        "front": front,
        "generations_run": int(model.archipelago.generational_age),
        "evaluations": int(model.archipelago.get_fitness_evaluation_count()),
        "operators": used,
        "operators_unavailable": missing,
        "size_limit": {"stack_size": int(model.stack_size)},
        "fit_seconds": time.perf_counter() - started,
    }
    return model, result


def fit(X, y, *, budget, seed, variables, options, report):
    """Run bingo for ``budget`` generations; return its best model as srbf infix."""
    return run(X, y, budget=budget, seed=seed, variables=variables, options=options, report=report)[1]
