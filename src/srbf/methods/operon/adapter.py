"""Operon (Burlacu et al., pyoperon 0.6.2) in srbf: fast GP with linear scaling.

Runs ``pyoperon.sklearn.SymbolicRegressor`` at its own defaults (one objective, r2; population
1000; max_length 50, max_depth 10; n_threads 1) except for what the benchmark sets for every
method alike:

- **budget** = ``generations`` (Operon's default is 1000). With ``budget_unit: evaluations`` it
  is ``max_evaluations`` instead (default 1,000,000), and ``generations`` stays at its default.
  Either way the other cap keeps Operon's default, so a long ladder may stop on it; the result
  records ``generations_run`` and ``evaluations``.
- **seed** = ``random_state``.
- **operators**: the options ``unary`` and ``binary`` (srbf names; by default the benchmark's
  ``sin cos exp log sqrt`` and ``add sub mul div``) become ``allowed_symbols`` (plus constants
  and variables), restricted to Operon's symbols; ``max``/``min`` are its ``fmax``/``fmin``.
  Operators Operon lacks are listed in ``operators_unavailable``.

**Trajectory**: the sklearn wrapper runs the algorithm with no callback, so the adapter hands
the algorithm a callback for the wrapper's own ``Run`` call (by wrapping the algorithm the
wrapper constructs; everything else is the wrapper's code). Each generation it reports the best
model with its least-squares scale and offset exactly as the wrapper applies them to the final
model (``scaled_nodes``): fitted on Operon's float32 predictions (so in float32), stored as
float32 constants, a scale of exactly 1 and an offset of exactly 0 left out. With one objective
the last entry is therefore the returned expression, character for character.

**Linear scaling stays.** Operon's models are ``offset + scale*f`` (the wrapper forces both terms
for its error objectives, r2 included) and every variable carries a weight (``w*x``). Computed in
float32, the offset is about 1e-7 of the targets' spread even when ``f`` is the true formula, and
the product of the scale and the weights is 1 only to about 1e-7. The adapter writes them as they
are (dropping them would change Operon's model), so by srbf's rules (docs/canonical.md: ``<c> + f``
is not ``f``, ``c*x`` is not ``x``) a recovered ``f`` scores as ``<c> + <c>*f`` (and a weighted
variable inside a function as ``sin(<c>*x)``): it matches the truth's structure only where the
truth has constants in those places too.

**Conversion**: Operon prints infix with 1-based columns ``X1, X2, ...`` and fixed decimals
(6 by default), which loses digits. The adapter reads the tree's nodes instead (postfix; a
variable node carries a weight, ``w*x``) and writes srbf infix over the problem's variable names
with every coefficient at full precision. Operon stores coefficients and evaluates in float32:
the written coefficients are its float32 values exactly, and srbf evaluates them in float64, so
srbf's predictions match Operon's own to float32 rounding (about 1e-6 relative), not better.
Node spellings: ``aq(a, b)`` -> ``a/sqrt(1 + b**2)``, ``logabs`` -> ``log(abs(a))``,
``sqrtabs`` -> ``sqrt(abs(a))``, ``powabs`` -> ``abs(a)**b``, ``log1p(a)`` -> ``log(1 + a)``.
A node is read by its ``Name`` (what it computes): in pyoperon 0.6.2 the Python enum labels
``NodeType.Fmin``/``Fmax`` and the wrapper's symbols ``fmin``/``fmax`` are the other way round
(symbol ``fmax`` gives nodes that compute the minimum), so the adapter asks for the symbol whose
node computes what the benchmark's ``max``/``min`` mean, checked at run time.

**Front**: ``pareto_front_`` (one model with a single objective; the non-dominated set with
several), each with its length (nodes) as complexity and its MSE on the support as loss; the
returned expression is the wrapper's ``model_`` (chosen from the front by minimum description
length). **Size**: ``max_length`` and ``max_depth`` are recorded in ``size_limit``.

Options: ``unary``, ``binary`` (srbf operator names), ``budget_unit`` (``generations`` or
``evaluations``), ``params`` (further ``SymbolicRegressor`` arguments for side experiments, e.g.
``objectives: [r2, length]``; not budget, seed or operators).

Worker protocol: ``fit(X, y, *, budget, seed, variables, options, report) -> dict``; only the
standard library, NumPy and pyoperon are imported.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import numpy as np

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "shared"))
import _shared  # noqa: E402  the adapters' shared helpers: srbf/methods/shared/_shared.py

NAME = "operon"
OPTION_DEFAULTS = {"budget_unit": "generations", "params": {}}  # unary, binary: the benchmark's
BUDGET_UNITS = {"generations": ("generations", 1000), "evaluations": ("max_evaluations", 1_000_000)}

# srbf operator name -> Operon symbol
SUPPORTED = {
    "add": "add", "sub": "sub", "mul": "mul", "div": "div", "pow": "pow", "max": "fmax", "min": "fmin",
    "abs": "abs", "sqrt": "sqrt", "cbrt": "cbrt", "exp": "exp", "log": "log", "square": "square",
    "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
}  # fmt: skip
BINARY_SYMBOLS = ("add", "sub", "mul", "div", "pow", "fmax", "fmin")

# Operon node names (``Node.Name``, which names what a node computes) -> srbf infix
_UNARY_FORMAT = {
    "abs": "abs({})", "acos": "acos({})", "asin": "asin({})", "atan": "atan({})", "cbrt": "cbrt({})",
    "cos": "cos({})", "cosh": "cosh({})", "exp": "exp({})", "log": "log({})", "logabs": "log(abs({}))",
    "log1p": "log(1 + {})", "sin": "sin({})", "sinh": "sinh({})", "sqrt": "sqrt({})",
    "sqrtabs": "sqrt(abs({}))", "tan": "tan({})", "tanh": "tanh({})", "square": "({}**2)",
}  # fmt: skip
_BINARY_FORMAT = {
    "aq": "({}/sqrt(1 + {}**2))", "pow": "({}**{})", "powabs": "(abs({})**{})",
    "fmax": "max({}, {})", "fmin": "min({}, {})",
}  # fmt: skip
_NARY = {"+": " + ", "-": " - ", "*": "*", "/": "/"}


# --- conversion (pure: no pyoperon needed, tested on recorded trees) -----------------------------


number = _shared.number  # a coefficient at full precision, bracketed when negative


def tree_nodes(tree, columns: dict) -> list:
    """An Operon tree's nodes as plain data, postfix: [name, arity, value, column or None].

    The name is ``Node.Name`` (``+``, ``sin``, ``fmax``, ``constant``, ``variable``, ...), which
    says what the node computes; the Python enum ``NodeType`` of pyoperon 0.6.2 has ``Fmin`` and
    ``Fmax`` the other way round. ``columns`` maps a variable's hash to its 0-based column.
    """
    nodes = []
    for node in tree.Nodes:
        column = columns[node.HashValue] if node.IsVariable else None
        nodes.append([str(node.Name), int(node.Arity), float(node.Value), column])
    return nodes


def to_infix(nodes, variables) -> str:
    """srbf infix over ``variables`` for an Operon tree given as ``tree_nodes`` (postfix).

    In Operon's postfix layout a node's first argument is the subtree right before it, so when
    the arguments are popped from a stack the first one comes first.
    """
    stack: list[str] = []
    for kind, arity, value, column in nodes:
        if kind == "constant":
            stack.append(number(value))
        elif kind == "variable":
            stack.append(f"({number(value)}*{variables[column]})")
        else:
            args = [stack.pop() for _ in range(arity)]
            stack.append(_format(kind, args))
    if len(stack) != 1:
        raise ValueError(f"{NAME}: malformed tree of {len(nodes)} nodes")
    return stack[0]


def _format(kind: str, args: list) -> str:
    if kind in _NARY:
        if len(args) == 1:  # Operon's unary forms: -a and 1/a
            return f"(-{args[0]})" if kind == "-" else (f"(1/{args[0]})" if kind == "/" else args[0])
        return "(" + _NARY[kind].join(args) + ")"
    if kind in _UNARY_FORMAT and len(args) == 1:
        return _UNARY_FORMAT[kind].format(args[0])
    if kind in _BINARY_FORMAT and len(args) == 2:
        return _BINARY_FORMAT[kind].format(*args)
    raise ValueError(f"{NAME}: no srbf spelling for Operon node {kind} with {len(args)} argument(s)")


def float32(value: float) -> float:
    """``value`` as Operon stores it in a node (a C++ float, rounded to nearest)."""
    return float(np.float32(value))


def scaled_nodes(nodes, scale: float, offset: float) -> list:
    """``nodes`` (``tree_nodes``, postfix) with linear scaling appended as the wrapper's
    ``get_solution_stats`` appends it to its models: ``[scale, *]`` unless the scale is exactly 1,
    then ``[offset, +]`` unless the offset is exactly 0, each constant rounded to float32 as a
    node stores it. ``to_infix`` of the result is ``(offset + (scale*f))``."""
    nodes = [list(node) for node in nodes]
    if scale != 1:
        nodes += [["constant", 0, float32(scale), None], ["*", 2, 1.0, None]]
    if offset != 0:
        nodes += [["constant", 0, float32(offset), None], ["+", 2, 1.0, None]]
    return nodes


# --- options -------------------------------------------------------------------------------------


def allowed_symbols(options: dict, swapped_min_max: bool = False) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(Operon symbols, srbf operators Operon lacks) for the options' operator lists.

    ``swapped_min_max``: the wrapper's symbol ``fmax`` makes nodes that compute the minimum (and
    ``fmin`` the maximum), as in pyoperon 0.6.2; ``run`` checks which holds.
    """
    wanted = _shared.wanted_operators(options)
    swap = {"fmax": "fmin", "fmin": "fmax"} if swapped_min_max else {}
    used = tuple(dict.fromkeys(swap.get(SUPPORTED[n], SUPPORTED[n]) for n in wanted if n in SUPPORTED))
    missing = tuple(_shared.unavailable(wanted, SUPPORTED))
    if not any(s in BINARY_SYMBOLS for s in used):
        raise ValueError(f"{NAME}: no binary operator Operon knows among {wanted}; it needs at least one")
    return used, missing


def budget_value(budget, unit: str) -> int:
    if budget is None:
        return BUDGET_UNITS[unit][1]
    return _shared.positive_integer(NAME, budget, unit)


# --- the per-generation callback -----------------------------------------------------------------


class _Reporting:
    """Stands in for the algorithm the wrapper builds; its ``Run`` passes a callback, the rest is
    the real algorithm's."""

    def __init__(self, algorithm, on_generation):
        object.__setattr__(self, "_algorithm", algorithm)
        object.__setattr__(self, "_on_generation", on_generation)

    def __getattr__(self, name):
        return getattr(self._algorithm, name)

    def __setattr__(self, name, value):
        setattr(self._algorithm, name, value)

    def Run(self, rng, callback=None, threads=0, warm_start=False):  # noqa: N802 (Operon's name)
        algorithm = self._algorithm

        def each_generation():
            if callback is not None:
                callback()
            self._on_generation(algorithm)

        return algorithm.Run(rng, each_generation, threads, warm_start)


class _OperonModule:
    """The ``pyoperon`` module as the wrapper sees it, with the algorithms wrapped."""

    ALGORITHMS = ("GeneticProgrammingAlgorithm", "NSGA2Algorithm")

    def __init__(self, module, on_generation):
        self._module = module
        self._on_generation = on_generation

    def __getattr__(self, name):
        value = getattr(self._module, name)
        if name in self.ALGORITHMS:
            return lambda *args, **kwargs: _Reporting(value(*args, **kwargs), self._on_generation)
        return value


# --- the method ----------------------------------------------------------------------------------


def scaling_terms(model) -> tuple[bool, bool]:
    """(scale term, intercept term) as the wrapper's ``fit`` resolves them: it turns both on for
    the objectives that need linear scaling (r2 among them) whatever the parameters say."""
    resolve = getattr(model, "_resolve_params", None)  # pyoperon 0.6.2; no side effects for an int seed
    if resolve is not None:
        with warnings.catch_warnings():  # its override warning comes again from fit
            warnings.simplefilter("ignore")
            resolved = resolve()
        return bool(resolved["add_model_scale_term"]), bool(resolved["add_model_intercept_term"])
    return bool(model.add_model_scale_term), bool(model.add_model_intercept_term)


def setup(options):
    """Import pyoperon once per worker (never inside a timed fit)."""
    import pyoperon.sklearn  # noqa: F401


def run(X, y, *, budget, seed, variables, options, report):
    """Fit; return (the fitted SymbolicRegressor, the result dict ``fit`` returns)."""
    import pyoperon as op
    import pyoperon.sklearn as wrapper

    started = time.perf_counter()
    options = _shared.with_defaults(options, OPTION_DEFAULTS)
    known = getattr(wrapper, "_KNOWN_SYMBOLS", {})
    swapped = "fmax" in known and op.Node(known["fmax"]).Name == "fmin"
    symbols, missing = allowed_symbols(options, swapped)
    unit = options["budget_unit"]
    knob = BUDGET_UNITS[unit][0]
    variables = list(variables)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    model = wrapper.SymbolicRegressor(
        allowed_symbols=",".join(symbols + ("constant", "variable")),
        random_state=int(seed),
        **{knob: budget_value(budget, unit)},
        **options["params"],
    )
    ds = op.Dataset(np.asfortranarray(X))
    rows = op.Range(0, X.shape[0])
    dtable = op.DispatchTable()
    scale_model, offset_model = scaling_terms(model)
    state = {"columns": None, "error": None}

    def on_generation(algorithm):
        if state["error"] is not None:
            return
        try:  # never let a reporting problem unwind through Operon's C++ loop
            if state["columns"] is None:
                state["columns"] = {h: i for i, h in enumerate(model.variables_)}
            tree = algorithm.BestModel.Genotype
            # as the wrapper's get_solution_stats: Operon's float32 predictions, so its float32 fit
            predicted = op.Evaluate(dtable, tree, ds, rows)
            scale, offset = op.FitLeastSquares(predicted, y)
            nodes = scaled_nodes(tree_nodes(tree, state["columns"]), scale if scale_model else 1.0,
                                 offset if offset_model else 0.0)  # fmt: skip
            report(to_infix(nodes, variables))
        except Exception as exc:  # the fit goes on; the record says why the trajectory stopped
            state["error"] = f"{type(exc).__name__}: {exc}"

    original = wrapper.op
    wrapper.op = _OperonModule(original, on_generation)
    try:
        model.fit(X, y)
    finally:
        wrapper.op = original
    columns = {h: i for i, h in enumerate(model.variables_)}
    nodes = tree_nodes(model.model_, columns)
    front = []
    for entry in model.pareto_front_:
        front.append({
            "expression": to_infix(tree_nodes(entry["tree"], columns), variables),
            "complexity": int(entry["length"]),
            "loss": float(entry["mean_squared_error"]),
            "objective_values": [float(v) for v in entry["objective_values"]],
            "minimum_description_length": float(entry["minimum_description_length"]),
        })
    stats = model.stats_
    result = {
        "expression": to_infix(nodes, variables),
        "model": model.get_model_string(model.model_, 6),  # Operon's own printout, X1.. 1-based
        "tree_nodes": nodes,
        "front": front,
        "length": int(stats["model_length"]),
        "complexity": int(stats["model_complexity"]),
        "generations_run": int(stats["generations"]),
        "evaluations": int(stats["evaluation_count"]),
        "budget_knob": knob,
        "objectives": list(model.objectives or ["r2"]),
        "model_selection_criterion": model.model_selection_criterion,
        "operators": list(symbols),
        "operators_unavailable": list(missing),
        "size_limit": {"max_length": int(model.max_length), "max_depth": int(model.max_depth)},
        "float_precision": "float32",
        "trajectory_error": state["error"],
        "fit_seconds": time.perf_counter() - started,
    }
    return model, result


def fit(X, y, *, budget, seed, variables, options, report):
    """Run Operon with ``budget`` generations (or evaluations); return its model as srbf infix."""
    return run(X, y, budget=budget, seed=seed, variables=variables, options=options, report=report)[1]
