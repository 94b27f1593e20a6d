"""JAXSR (sparse selection over a basis library, ALAMO style; Kitchin) as an srbf method file.

Runs under the method's own interpreter (``pip install numpy jaxsr==0.3.0``, JAX on the CPU, about
1 GB); imports only the standard library, NumPy and jaxsr/JAX. The search is
``SymbolicRegressor`` over the library of ``BasisLibrary.build_default()``: a constant, the
inputs, their powers up to 3, pairwise products and one-argument functions of each input, with
greedy forward selection ranked by BIC (jaxsr's defaults). What the adapter sets:

- **budget** -> ``max_terms``, the most terms the selected model may have;
- **seed** -> ``random_state`` (greedy forward selection draws nothing, so fits repeat exactly);
- **operators** -> the library's functions: jaxsr's one-argument functions (log, exp, sqrt, 1/x
  for div, sin, cos, tan, sinh, cosh, tanh, abs) that are in the options ``unary`` and ``binary``
  (srbf names; by default the benchmark's ``sin cos exp log sqrt`` and ``add sub mul div``, which
  gives log, exp, sqrt, 1/x, sin and cos; jaxsr's own default is log, exp, sqrt and 1/x); powers
  and pairwise products only with ``mul`` (jaxsr has no operator set of its own to restrict
  beyond that); operators it lacks are listed in ``operators_unavailable``;
- **precision**: JAX computes in float32 unless told otherwise. The benchmark's data are float64
  and float32 selection keeps spurious terms (a term that float64 prunes survives at 1e-5), so
  the adapter turns on ``jax_enable_x64`` (option ``x64``, default true). This is a setting of
  JAX, not of jaxsr's search, and is recorded in the result.

Everything else keeps jaxsr's defaults; the option ``params`` may override ``SymbolicRegressor``
arguments for side experiments, never the budget, the seed or the library. ``warmup`` (default
true) runs one tiny fit in ``setup``.

Output. The adapter writes the selected model as ``c0*term0 + c1*term1 + ...`` over the
problem's variables, each term rebuilt from the basis function's own description (its type and
feature indices) and each coefficient in full precision; no parse hints are needed. jaxsr's
"safe" functions (log, sqrt, 1/x return NaN outside their domain, exp clips its argument at
+-500) agree with the plain ones wherever a selected term is finite on the data. The front is
jaxsr's Pareto front of the selection path (complexity against MSE). jaxsr has no incumbent to
report during its search; ``report`` is called once, with the result. JAX compiles for each new
data shape, so a fit on a shape not seen before in the worker includes compilation time.
"""

import os
import sys
import time

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "shared"))
import _shared  # noqa: E402  the adapters' shared helpers: srbf/methods/shared/_shared.py

NAME = "jaxsr"
OPTION_DEFAULTS = {"unary": list(_shared.DEFAULT_UNARY), "binary": list(_shared.DEFAULT_BINARY),
                   "params": {}, "x64": True, "warmup": True}

# jaxsr transcendental function -> the srbf operator it is
FUNCTIONS = {"log": "log", "exp": "exp", "sqrt": "sqrt", "inv": "div", "sin": "sin", "cos": "cos",
             "tan": "tan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "abs": "abs"}
MAX_POLY_DEGREE = 3  # build_default's default

_jaxsr = None
_x64 = None


def max_terms_of(budget):
    return _shared.positive_integer(NAME, budget, "terms")


def setup(options):
    """Configure JAX's precision, import jaxsr and compile its common paths on a tiny problem."""
    global _jaxsr, _x64
    options = _shared.with_defaults(options, OPTION_DEFAULTS)
    import jax

    _x64 = options["x64"]
    jax.config.update("jax_enable_x64", _x64)
    import jaxsr
    import numpy as np

    _jaxsr = jaxsr
    if options["warmup"]:
        X = np.linspace(0.5, 2.0, 32).reshape(-1, 1)
        y = 1.5 * X[:, 0] ** 2 + 0.5
        library, _ = build_library(jaxsr, ("x0",), options["unary"] + options["binary"])
        jaxsr.SymbolicRegressor(basis_library=library, max_terms=2).fit(X, y)


def library_plan(operators):
    """What the library holds for srbf ``operators``: (powers and products?, functions, srbf
    operators jaxsr has nothing for). A model is always a sum of coefficient times term."""
    allowed = set(operators)
    products = "mul" in allowed  # x**2, x**3 and x*y are products of inputs
    functions = [name for name, op in FUNCTIONS.items() if op in allowed]
    used = {"add", "mul"} | {FUNCTIONS[name] for name in functions}
    return products, functions, _shared.unavailable(operators, used)


def build_library(jaxsr, variables, operators):
    """``build_default``'s library (without the categorical parts, which the benchmark never
    has), restricted to ``operators``."""
    products, functions, unavailable = library_plan(operators)
    library = jaxsr.BasisLibrary(len(variables), list(variables))
    library.add_constant()
    library.add_linear()
    if products:
        library.add_polynomials(MAX_POLY_DEGREE)
        library.add_interactions(max_order=2)
    if functions:
        library.add_transcendental(functions)
    return library, unavailable


_TEMPLATES = {"log": "log({})", "exp": "exp({})", "sqrt": "sqrt({})", "inv": "(1 / {})", "sin": "sin({})",
              "cos": "cos({})", "tan": "tan({})", "sinh": "sinh({})", "cosh": "cosh({})", "tanh": "tanh({})",
              "abs": "abs({})", "square": "{}**2"}


def term_infix(func_type, config, name, variables):
    """One basis function as infix over ``variables``, from its type and configuration."""
    if func_type == "constant":
        return "1"
    if func_type == "linear":
        return variables[config["feature_index"]]
    if func_type == "polynomial":
        return "%s**%d" % (variables[config["feature_index"]], int(config["degree"]))
    if func_type == "interaction":
        return "*".join(variables[int(i)] for i in config["feature_indices"])
    if func_type == "transcendental" and config.get("func_name") in _TEMPLATES:
        return _TEMPLATES[config["func_name"]].format(variables[config["feature_index"]])
    if func_type == "ratio":
        return "(%s / %s)" % (variables[config["numerator_index"]], variables[config["denominator_index"]])
    return "(%s)" % name  # anything else: jaxsr's own display name


_number = _shared.number  # full precision, bracketed when negative


def model_infix(coefficients, terms):
    """``c0*t0 + c1*t1 + ...`` with full-precision coefficients; "0" for an empty model."""
    parts = []
    for c, term in zip(coefficients, terms):
        parts.append(_number(c) if term == "1" else "%s*%s" % (_number(c), term))
    return " + ".join(parts) if parts else "0"


def fit(X, y, *, budget, seed, variables, options, report):
    options = _shared.with_defaults(options, OPTION_DEFAULTS)
    max_terms = max_terms_of(budget)
    if _jaxsr is None:
        setup(dict(options, warmup=False))
    import numpy as np

    library, unavailable = build_library(_jaxsr, variables, options["unary"] + options["binary"])
    functions = library.basis_functions
    terms_all = [term_infix(f.func_type, dict(f.func_config or {}), f.name, variables) for f in functions]

    def infix(indices, coefficients):
        return model_infix([float(c) for c in np.asarray(coefficients).ravel()],
                           [terms_all[int(i)] for i in np.asarray(indices).ravel()])

    model = _jaxsr.SymbolicRegressor(basis_library=library, max_terms=max_terms, random_state=int(seed),
                                     **options["params"])
    t0 = time.perf_counter()
    model.fit(X, y)
    fit_seconds = time.perf_counter() - t0
    expression = infix(model.selected_indices_, model.coefficients_)
    report(expression)
    front = [{"expression": infix(r.selected_indices, r.coefficients), "complexity": int(r.complexity),
              "loss": float(r.mse)} for r in model.pareto_front_]
    metrics = {k: float(v) for k, v in model.metrics_.items()}
    return {
        "expression": expression,
        "front": front,
        "fit_seconds": fit_seconds,
        "raw_expression": str(model.expression_),
        "selected_terms": list(model.selected_features_),
        "constants": [float(c) for c in np.asarray(model.coefficients_).ravel()],
        "complexity": int(model.complexity_),
        "metrics": metrics,
        "knob": {"max_terms": max_terms},
        "library_size": len(functions),
        "library_functions": [f.name for f in functions],
        "operators_unavailable": unavailable,
        "x64": _x64,
        "reproducible": True,
        "package": {"name": "jaxsr", "version": getattr(_jaxsr, "__version__", None)},
    }
