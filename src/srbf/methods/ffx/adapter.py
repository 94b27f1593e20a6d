"""FFX (McConaghy, Fast Function Extraction; ffx 2.1.0) in srbf: deterministic pathwise regression.

FFX enumerates basis functions (the inputs, ``abs``, ``log10``, hinges, the inputs' squares and
pairwise products, an optional rational denominator) and fits them with elastic-net paths; its
result is a Pareto set of generalised linear models over error and number of bases. It runs as
its scikit-learn wrapper ``FFXRegressor`` does: ``ffx.run`` with the support points as both
training and test data, and the most accurate model of the Pareto set (the last one) as the answer.

- **budget**: none. FFX has no search budget; the ladder has one rung and the budget is unused.
- **seed**: none needed; FFX is deterministic.
- **operators**: FFX's bases are its own (``abs``, ``log10``, ``max(0, .)`` hinges at six fixed
  thresholds across each input's range, ``x**2``, pairwise products of the order-1 bases it
  keeps, and a denominator); its API offers no operator set, so it runs with them as it ships.
  They are all in srbf's operator table. Its build strategy lists powers -1, -0.5 and 0.5 too,
  but ``ffx.run`` never uses them: it always builds interactions and skips exponents when it
  does (ffx 2.1.0, ``MultiFFXModelFactory``), so ``sqrt(x)`` or ``1/x`` is not in its basis space.

**Accuracy**: FFX stops each elastic-net path at the first model whose training error (its
``nmse``: RMSE over the range of the targets) is below 1% (``final_target_train_nmse = 0.01``),
while the penalty still shrinks the coefficients, and it keeps 3 significant digits of each. So
its models reach an FVU of about 1e-3, not srbf's 2^-23, even where the truth is in its basis
space (``mu*Nn``, a linear function: tests/methods/recorded/ffx_stopping.json). That is FFX's
released behaviour, run as it ships; it has no option for the target.

**Trajectory**: none (one deterministic pass with no intermediate incumbent).

**Conversion**: FFX rounds its coefficients to 3 significant digits when it builds a model and
predicts with the rounded values, but prints hinge thresholds rounded while predicting with the
exact ones; so the adapter writes the model from its parts (offset, numerator and denominator
coefficients, bases) at full precision, as srbf infix over the problem's variable names:
``x^p`` -> ``x**p``, ``log10`` -> ``log10``, ``max(0, x)``, ``min(0, x)``, ``max(0, t - x)``,
``max(0, x - t)``, and ``(offset + sum) / (1 + sum)`` with a denominator. FFX's ``log10`` basis
returns +inf for every point once any argument is <= 0 (a whole-column guard); srbf's
``log10`` gives NaN on those points only. Neither happens on the support points a basis was
chosen on.

**Front**: every model of FFX's Pareto set, with its complexity (FFX's node count) and its
RMSE on the support over the range of the targets (``test_nmse``, FFX's own error) as loss.

Options: none.

Worker protocol: ``fit(X, y, *, budget, seed, variables, options, report) -> dict``; only the
standard library, NumPy and ffx (with six, pandas, scikit-learn) are imported.
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

NAME = "ffx"
OP_ABS, OP_MAX0, OP_MIN0, OP_LOG10, OP_GTH, OP_LTH = 1, 2, 3, 4, 5, 6  # ffx.core.constants


# --- conversion (pure: no ffx needed, tested on recorded models) ---------------------------------


number = _shared.number  # a coefficient at full precision, bracketed when negative


def base_data(base) -> dict:
    """An FFX basis function as plain data (nested dicts)."""
    kind = type(base).__name__
    if kind == "SimpleBase":
        return {"kind": "simple", "column": int(base.var), "exponent": float(base.exponent)}
    if kind == "OperatorBase":
        threshold = None if base.thr is None else float(base.thr)  # only the hinges have one
        return {"kind": "operator", "op": int(base.nonlin_op), "threshold": threshold,
                "base": base_data(base.simple_base)}  # fmt: skip
    if kind == "ProductBase":
        return {"kind": "product", "left": base_data(base.base1), "right": base_data(base.base2)}
    raise ValueError(f"{NAME}: unknown FFX basis {kind}")


def model_data(model) -> dict:
    """An FFX model (``FFXModel`` or ``ConstantModel``) as plain data."""
    if type(model).__name__ == "ConstantModel":
        return {"kind": "constant", "value": float(model.constant)}
    return {
        "kind": "ffx",
        "offset": float(model.coefs_n[0]),
        "numerator": [[float(c), base_data(b)] for c, b in zip(model.coefs_n[1:], model.bases_n)],
        "denominator": [[float(c), base_data(b)] for c, b in zip(model.coefs_d, model.bases_d)],
    }


def base_infix(base: dict, variables) -> str:
    kind = base["kind"]
    if kind == "simple":
        name = variables[base["column"]]
        exponent = base["exponent"]
        return name if exponent == 1 else f"({name}**{number(exponent)})"
    if kind == "product":
        return f"({base_infix(base['left'], variables)}*{base_infix(base['right'], variables)})"
    if kind == "operator":
        inner = base_infix(base["base"], variables)
        op = base["op"]
        if op == OP_ABS:
            return f"abs({inner})"
        if op == OP_MAX0:
            return f"max(0, {inner})"
        if op == OP_MIN0:
            return f"min(0, {inner})"
        if op == OP_LOG10:
            return f"log10({inner})"
        if op == OP_GTH:
            return f"max(0, {number(base['threshold'])} - {inner})"
        if op == OP_LTH:
            return f"max(0, {inner} - {number(base['threshold'])})"
        raise ValueError(f"{NAME}: unknown FFX operator {op}")
    raise ValueError(f"{NAME}: unknown FFX basis kind {kind!r}")


def to_infix(model: dict, variables) -> str:
    """srbf infix over ``variables`` for an FFX model given as ``model_data``."""
    if model["kind"] == "constant":
        value = model["value"]
        return number(float("inf") if np.isnan(value) else value)  # FFX predicts inf for a NaN constant
    terms = [number(model["offset"])]
    terms += [f"{number(c)}*{base_infix(b, variables)}" for c, b in model["numerator"]]
    numerator = " + ".join(terms)
    if not model["denominator"]:
        return numerator
    denominator = " + ".join(["1.0"] + [f"{number(c)}*{base_infix(b, variables)}" for c, b in model["denominator"]])
    return f"({numerator})/({denominator})"


# --- the method ----------------------------------------------------------------------------------


def setup(options):
    """Import ffx once per worker (never inside a timed fit)."""
    importlib.import_module("ffx.core")


def run(X, y, *, budget, seed, variables, options, report):
    """Fit; return (FFX's Pareto set of models, the result dict ``fit`` returns)."""
    ffx = importlib.import_module("ffx")
    started = time.perf_counter()
    variables = list(variables)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = ffx.run(X, y, X, y, varnames=[f"x{i}" for i in range(X.shape[1])])
    if not models:
        raise RuntimeError(f"{NAME}: FFX returned no model")
    front = []
    for model in models:
        data = model_data(model)
        front.append({
            "expression": to_infix(data, variables),
            "complexity": int(model.complexity()),
            "loss": float(getattr(model, "test_nmse", float("nan"))),
            "num_bases": int(model.numBases()),
        })
    best = models[-1]  # FFXRegressor's choice: the last (most accurate) model of the Pareto set
    data = model_data(best)
    result = {
        "expression": to_infix(data, variables),
        "model": str(best),  # FFX's own printout (coefficients to 3 significant digits)
        "model_data": data,
        "front": front,
        "complexity": int(best.complexity()),
        "num_bases": int(best.numBases()),
        "loss_name": "nmse (FFX's RMSE on the support points over the range of the targets)",
        "size_limit": {"final_max_num_bases": 250},  # ffx.core.build_strategy
        "fit_seconds": time.perf_counter() - started,
    }
    return models, result


def fit(X, y, *, budget, seed, variables, options, report):
    """Run FFX once (it has no budget); return its most accurate model as srbf infix."""
    return run(X, y, budget=budget, seed=seed, variables=variables, options=options, report=report)[1]
