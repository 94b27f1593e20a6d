"""deap_gp: srbf's own reference genetic programming, written on DEAP's toolbox.

A transparent, fully controllable baseline: textbook tree GP (Koza style) with nothing hidden.
Every setting is an option, and the defaults are those of DEAP's own symbolic-regression example
(``examples/gp/symbreg.py`` in the DEAP repository) where it has one, plus what the benchmark
sets for every method and the two additions it needs to be a fair baseline (elitism, real
constants):

- population 300; tournament selection of size 3; one-point subtree crossover with probability
  0.5 and uniform subtree mutation (a full tree of depth 0-2) with probability 0.1, applied as
  in DEAP's ``varAnd``; initial trees ramped half-and-half of depth 1-2; Koza's static height
  limit of 17 on both variation operators (an over-limit child is replaced by a parent);
- elitism: the best ``elitism`` (1) individuals pass to the next generation unchanged;
- ephemeral constants drawn uniformly from ``const_range`` [-1, 1];
- fitness: the mean squared error on the support points, the operators **unprotected** (plain
  ``/``, ``log``, ``sqrt``, ...): a program that is not finite on every point gets an infinite
  error, so it is never selected over a finite one, and what the GP returns is exactly the
  formula srbf scores.

- **budget** = generations after the initial population (``None``: 40, as in DEAP's example).
- **seed**: Python's ``random`` (which DEAP draws from) is seeded with it at the start of each fit.
- **operators**: ``unary`` and ``binary`` (srbf names; by default the benchmark's
  ``sin cos exp log sqrt`` and ``add sub mul div``), each a primitive with srbf's own semantics.

**Trajectory**: the hall of fame's best (the best program seen so far) after the initial
population and after every generation g, the latter with ``budget=g``: the hall of fame after g
generations is exactly what a fit of g generations returns (the same seeded stream), so the
method.yaml declares ``exact_trajectory`` and a run stores a whole ladder from one fit. DEAP's logbook (per generation: evaluations, minimum and
median error, best size) is returned as ``logbook``.

**Conversion**: the program's nodes (prefix) are written as srbf infix over the problem's
variable names, constants at full precision; no parse hints are needed.

**Front**: the programs of the final population that no other program beats in both error and
size (nodes). **Size**: ``max_height`` (17) is recorded in ``size_limit``.

Worker protocol: ``fit(X, y, *, budget, seed, variables, options, report) -> dict``; only the
standard library, NumPy and DEAP are imported.
"""

from __future__ import annotations

import functools
import math
import operator
import os
import random
import sys
import time

import numpy as np

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "shared"))
import _shared  # noqa: E402  the adapters' shared helpers: srbf/methods/shared/_shared.py

NAME = "deap_gp"
DEFAULT_GENERATIONS = 40  # DEAP's symbreg example
DEFAULTS = {
    "unary": ["sin", "cos", "exp", "log", "sqrt"],  # the benchmark's vocabulary (srbf's defaults)
    "binary": ["add", "sub", "mul", "div"],
    "population_size": 300,  # DEAP's symbreg example
    "tournament_size": 3,  # DEAP's symbreg example
    "crossover_probability": 0.5,  # DEAP's symbreg example
    "mutation_probability": 0.1,  # DEAP's symbreg example
    "init_depth": [1, 2],  # DEAP's symbreg example: genHalfAndHalf(min_=1, max_=2)
    "mutation_depth": [0, 2],  # DEAP's symbreg example: genFull(min_=0, max_=2)
    "max_height": 17,  # Koza's static limit, as in DEAP's symbreg example
    "elitism": 1,  # srbf: the best individual survives
    "const_range": [-1.0, 1.0],  # srbf: real ephemeral constants (the example draws integers -1..1)
}


def _inv(x):
    return 1.0 / x


def _square(x):
    return x * x


def _cube(x):
    return x * x * x


# srbf operator name -> (arity, NumPy kernel as srbf evaluates it)
KERNELS = {
    "add": (2, np.add), "sub": (2, np.subtract), "mul": (2, np.multiply), "div": (2, np.true_divide),
    "pow": (2, np.power), "max": (2, np.maximum), "min": (2, np.minimum),
    "neg": (1, np.negative), "abs": (1, np.abs), "inv": (1, _inv), "square": (1, _square), "cube": (1, _cube),
    "sqrt": (1, np.sqrt), "cbrt": (1, np.cbrt), "exp": (1, np.exp), "log": (1, np.log),
    "log10": (1, np.log10), "log2": (1, np.log2), "sin": (1, np.sin), "cos": (1, np.cos),
    "tan": (1, np.tan), "asin": (1, np.arcsin), "acos": (1, np.arccos), "atan": (1, np.arctan),
    "sinh": (1, np.sinh), "cosh": (1, np.cosh), "tanh": (1, np.tanh),
}  # fmt: skip
_INFIX = {"add": " + ", "sub": " - ", "mul": "*", "div": "/", "pow": "**"}


# --- conversion (pure: no DEAP needed, tested on recorded programs) ------------------------------


def to_infix(tokens, variables) -> str:
    """srbf infix over ``variables`` for a prefix token list: operator names (str), 0-based
    columns (int), constants (float)."""

    def spell(name: str, args: list) -> str:
        return f"({_INFIX[name].join(args)})" if name in _INFIX else f"{name}({', '.join(args)})"

    return _shared.prefix_infix(NAME, tokens, variables, lambda name: KERNELS[name][0], spell)


def evaluate(tokens, X) -> np.ndarray:
    """The program's values on the rows of ``X`` (srbf's semantics; NaN and inf pass through)."""
    n = X.shape[0]
    stack: list[np.ndarray] = []
    with np.errstate(all="ignore"):
        for token in reversed(tokens):
            if isinstance(token, str):
                arity, kernel = KERNELS[token]
                args = [stack.pop() for _ in range(arity)]
                stack.append(kernel(*args))
            elif isinstance(token, int) and not isinstance(token, bool):
                stack.append(X[:, token])
            else:
                stack.append(np.full(n, float(token)))
    return np.broadcast_to(stack[0], (n,))


# --- options -------------------------------------------------------------------------------------


def resolved_options(options) -> dict:
    """The options over ``DEFAULTS`` (srbf checked each one against method.yaml when the config was
    loaded), operators without repeats; ValueError for the relations between options that no
    single constraint states: elitism below the population, each [low, high] pair in order."""
    merged = _shared.with_defaults(options, DEFAULTS)
    for key in ("unary", "binary"):
        merged[key] = list(dict.fromkeys(merged[key]))
    if not 0 <= merged["elitism"] < merged["population_size"]:
        raise ValueError(f"{NAME}: option 'elitism' must be an integer in [0, population_size), got {merged['elitism']!r}")
    for key in ("init_depth", "mutation_depth", "const_range"):
        pair = merged[key]
        if not pair[0] <= pair[1]:
            raise ValueError(f"{NAME}: option {key!r} must be [low, high] with low <= high, got {pair!r}")
    return merged


def generations(budget) -> int:
    if budget is None:
        return DEFAULT_GENERATIONS
    if isinstance(budget, bool) or float(budget) < 0 or not float(budget).is_integer():
        raise ValueError(f"{NAME}: the budget is a number of generations, an integer >= 0; got {budget!r}")
    return int(budget)


# --- the GP --------------------------------------------------------------------------------------

_PSETS: dict = {}  # (n_variables, unary, binary, const_range) -> (pset, argument columns)


def _constant(low: float, high: float) -> float:
    return random.uniform(low, high)


def _primitive_set(n_variables: int, unary, binary, const_range):
    """DEAP's primitive set for this problem shape (cached: DEAP keeps ephemeral classes forever)."""
    from deap import gp

    key = (n_variables, tuple(unary), tuple(binary), tuple(float(c) for c in const_range))
    if key not in _PSETS:
        pset = gp.PrimitiveSet("MAIN", n_variables)
        for name in list(binary) + list(unary):
            arity, kernel = KERNELS[name]
            pset.addPrimitive(kernel, arity, name=name)
        low, high = key[3]
        pset.addEphemeralConstant(f"srbf_const_{len(_PSETS)}", functools.partial(_constant, low, high))
        columns = {f"ARG{i}": i for i in range(n_variables)}
        _PSETS[key] = (pset, columns)
    return _PSETS[key]


def program_tokens(individual, columns: dict) -> list:
    """A DEAP tree as prefix tokens: primitive names, 0-based columns, constants."""
    from deap import gp

    tokens = []
    for node in individual:
        if isinstance(node, gp.Primitive):
            tokens.append(node.name)
        elif isinstance(node.value, str) and node.value in columns:
            tokens.append(columns[node.value])
        else:
            tokens.append(float(node.value))
    return tokens


def _pareto(entries: list) -> list:
    """Entries (loss, complexity, expression) that no other entry beats in both; by complexity."""
    front, best_loss = [], math.inf
    for loss, size, expression in sorted(entries, key=lambda e: (e[1], e[0])):
        if loss < best_loss:
            front.append({"expression": expression, "loss": loss, "complexity": size})
            best_loss = loss
    return front


def setup(options):
    """Import DEAP once per worker (never inside a timed fit)."""
    import deap.gp  # noqa: F401
    import deap.tools  # noqa: F401


def run(X, y, *, budget, seed, variables, options, report):
    """Evolve; return (the hall of fame, the result dict ``fit`` returns)."""
    from deap import algorithms, base, gp, tools

    started = time.perf_counter()
    opts = resolved_options(options)
    n_generations = generations(budget)
    variables = list(variables)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    random.seed(int(seed))
    pset, columns = _primitive_set(X.shape[1], opts["unary"], opts["binary"], opts["const_range"])

    class Fitness(base.Fitness):
        weights = (-1.0,)

    class Individual(gp.PrimitiveTree):
        def __init__(self, content):
            super().__init__(content)
            self.fitness = Fitness()

    def error(individual):
        predicted = evaluate(program_tokens(individual, columns), X)
        with np.errstate(all="ignore"):
            mse = float(np.mean((predicted - y) ** 2))
        return (mse if math.isfinite(mse) else math.inf,)

    height = operator.attrgetter("height")
    toolbox = base.Toolbox()
    toolbox.register("expr", gp.genHalfAndHalf, pset=pset, min_=opts["init_depth"][0], max_=opts["init_depth"][1])
    toolbox.register("individual", lambda: Individual(toolbox.expr()))
    toolbox.register("evaluate", error)
    toolbox.register("select", tools.selTournament, tournsize=opts["tournament_size"])
    toolbox.register("mate", gp.cxOnePoint)
    toolbox.register("expr_mut", gp.genFull, min_=opts["mutation_depth"][0], max_=opts["mutation_depth"][1])
    toolbox.register("mutate", gp.mutUniform, expr=toolbox.expr_mut, pset=pset)
    toolbox.decorate("mate", gp.staticLimit(key=height, max_value=opts["max_height"]))
    toolbox.decorate("mutate", gp.staticLimit(key=height, max_value=opts["max_height"]))

    def evaluate_invalid(population) -> int:
        invalid = [ind for ind in population if not ind.fitness.valid]
        for ind in invalid:
            ind.fitness.values = toolbox.evaluate(ind)
        return len(invalid)

    hall = tools.HallOfFame(1)
    logbook = tools.Logbook()

    def record(generation: int, population, evaluations: int) -> None:
        hall.update(population)
        losses = np.array([ind.fitness.values[0] for ind in population])
        finite = losses[np.isfinite(losses)]
        logbook.record(
            gen=generation,
            nevals=evaluations,
            min=float(finite.min()) if finite.size else math.inf,
            median=float(np.median(finite)) if finite.size else math.inf,
            finite=int(finite.size),
            best_size=len(hall[0]),
            mean_size=float(np.mean([len(ind) for ind in population])),
        )
        # the hall of fame's best after generation g is what a g-generation fit returns (exact_trajectory)
        report(to_infix(program_tokens(hall[0], columns), variables), budget=generation or None)

    population = [toolbox.individual() for _ in range(opts["population_size"])]
    record(0, population, evaluate_invalid(population))
    n_elite = opts["elitism"]
    for generation in range(1, n_generations + 1):
        elite = [toolbox.clone(ind) for ind in tools.selBest(population, n_elite)] if n_elite else []
        offspring = toolbox.select(population, len(population) - n_elite)
        offspring = algorithms.varAnd(offspring, toolbox, opts["crossover_probability"], opts["mutation_probability"])
        evaluations = evaluate_invalid(offspring)
        population = elite + offspring
        record(generation, population, evaluations)

    best = hall[0]
    tokens = program_tokens(best, columns)
    entries = {}
    for ind in population + [best]:
        expression = to_infix(program_tokens(ind, columns), variables)
        entries.setdefault(expression, (ind.fitness.values[0], len(ind), expression))
    result = {
        "expression": to_infix(tokens, variables),
        "program": str(best),  # DEAP's own printout (ARG0.. 0-based)
        "program_tokens": tokens,
        "loss": float(best.fitness.values[0]),
        "length": len(best),
        "height": int(best.height),
        "front": _pareto([e for e in entries.values() if math.isfinite(e[0])]),
        "logbook": [dict(entry) for entry in logbook],
        "generations_run": n_generations,
        "settings": {k: v for k, v in opts.items() if k not in ("unary", "binary")},
        "operators": opts["unary"] + opts["binary"],
        "size_limit": {"max_height": opts["max_height"]},
        "fit_seconds": time.perf_counter() - started,
    }
    return hall, result


def fit(X, y, *, budget, seed, variables, options, report):
    """Evolve for ``budget`` generations; return the best program found, as srbf infix."""
    return run(X, y, budget=budget, seed=seed, variables=variables, options=options, report=report)[1]
