"""Oracle: the truth's structure with its constants refitted. The ceiling of the fitting stage.

The only method that sees the ground truth: the driver passes it as ``options["truth"]`` to
methods flagged as oracle, and the result says ``sees_truth: True``. The truth is turned into a
skeleton and passed through the same constant fitting as every searching built-in, so the oracle
measures what that fitting stage can reach when the structure is right, not a competitor.

Which numbers become free constants:

- every variable-free subtree is one constant (``sqrt(2 * 3.14159...)`` is one number, not two;
  named constants ``pi`` and ``e`` are numbers like any other), and so are the numbers of one
  product or sum (``x * 2 * y * 3`` has one free factor, ``6``, and reads ``x * 6 * y``);
- except exponents that are integers (``x**2``, ``x**-1``): they are structure and stay fixed.
  ``fixed_exponents: "all"`` keeps every numeric exponent (``x**0.5`` too), ``"none"`` frees them.

Each free constant starts at its true value times ``1 + perturbation * N(0, 1)`` (seeded), so the
fit has work to do, and is then refitted by least squares (``restarts`` starts in all).
``budget`` is unused.

Worker protocol: ``fit(X, y, *, budget, seed, variables, options, report) -> dict``.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Sequence

import numpy as np

from srbf.expr import Call, Expr, Num, parse, variables_of
from srbf.methods.builtin.fitting import ConstantFitter, constant_value, warm_up
from srbf.methods.builtin.skeletons import SLOT
from srbf.methods.builtin.search import check_number, check_options, skeleton_key

NAME = "oracle"
SEES_TRUTH = True
DEFAULTS: dict[str, Any] = {
    "truth": None,  # the ground-truth formula (set by the driver, never by a config)
    "perturbation": 0.1,  # relative spread of the starting constants around the true ones
    "fixed_exponents": "integer",  # "integer", "all" or "none": which numeric exponents stay fixed
    "restarts": 3,
    "max_nfev": None,
}
_EXPONENT_RULES = ("integer", "all", "none")


def parametrize(expr: Expr, fixed_exponents: str = "integer") -> tuple[Expr, list[float]]:
    """The skeleton of ``expr`` (free constants as slots, in prefix order) and the true values."""
    if fixed_exponents not in _EXPONENT_RULES:
        raise ValueError(f"{NAME}: option 'fixed_exponents' must be one of {_EXPONENT_RULES}, got {fixed_exponents!r}")
    values: list[float] = []
    expr = _merge_chain_constants(expr)

    def visit(node: Expr, exponent: bool) -> Expr:
        if not variables_of(node):
            value = constant_value(node)
            if exponent and (
                fixed_exponents == "all"
                or (fixed_exponents == "integer" and math.isfinite(value) and float(value).is_integer())
            ):
                return node
            values.append(value)
            return SLOT
        if not isinstance(node, Call):
            return node
        args = tuple(visit(arg, node.op == "pow" and i == 1) for i, arg in enumerate(node.args))
        return Call(node.op, args)

    return visit(expr, False), values


def _merge_chain_constants(expr: Expr) -> Expr:
    """Fold the variable-free operands of each ``+`` or ``*`` chain into one number, in place of
    the first of them; chains with fewer than two such operands are left exactly as written."""
    if not isinstance(expr, Call):
        return expr
    expr = Call(expr.op, tuple(_merge_chain_constants(arg) for arg in expr.args))
    if expr.op not in ("add", "mul"):
        return expr
    operands, stack = [], [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Call) and node.op == expr.op:
            stack.extend(reversed(node.args))
        else:
            operands.append(node)
    constant = [i for i, node in enumerate(operands) if not variables_of(node)]
    if len(constant) < 2:
        return expr
    values = [constant_value(operands[i]) for i in constant]
    merged = math.fsum(values) if expr.op == "add" else math.prod(values)
    kept = [Num(merged) if i == constant[0] else node for i, node in enumerate(operands) if i not in constant[1:]]
    result = kept[0]
    for node in kept[1:]:
        result = Call(expr.op, (result, node))
    return result


def perturbed_start(values: Sequence[float], perturbation: float, seed: int) -> np.ndarray:
    """The true values times ``1 + perturbation * N(0, 1)``, drawn from ``seed``."""
    values = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(seed)
    return values * (1.0 + perturbation * rng.standard_normal(values.shape[0]))


def fit(
    X: np.ndarray,
    y: np.ndarray,
    *,
    budget: float | None = None,
    seed: int = 0,
    variables: Sequence[str],
    options: dict[str, Any] | None = None,
    report: Callable[[str], Any] | None = None,
) -> dict[str, Any]:
    """Refit the constants of ``options["truth"]`` on the support points."""
    started = time.perf_counter()
    opts = check_options(NAME, options, DEFAULTS)
    truth = opts["truth"]
    if not isinstance(truth, str) or not truth.strip():
        raise ValueError(
            f"{NAME}: options['truth'] must be the ground-truth formula, got {truth!r} "
            "(the driver passes it only to methods flagged as oracle)"
        )
    perturbation = check_number(NAME, "perturbation", opts["perturbation"], minimum=0)
    restarts = check_number(NAME, "restarts", opts["restarts"], minimum=1, integer=True)
    max_nfev = None if opts["max_nfev"] is None else check_number(NAME, "max_nfev", opts["max_nfev"], minimum=1, integer=True)

    skeleton, true_values = parametrize(parse(truth, variables), opts["fixed_exponents"])
    init = perturbed_start(true_values, perturbation, seed)
    fitter = ConstantFitter(X, y, variables, restarts=restarts, seed=seed, max_nfev=max_nfev)
    outcome = fitter.fit(skeleton, init=init)
    if report is not None:
        report(outcome.text)
    return {
        "expression": outcome.text,
        "constants": list(outcome.constants),
        "sees_truth": True,
        "skeleton": skeleton_key(skeleton),
        "free_constants": len(true_values),
        "support_fvu": outcome.fvu if math.isfinite(outcome.fvu) else None,
        "fit_seconds": time.perf_counter() - started,
    }


def setup(options: dict[str, Any] | None = None) -> None:
    """Warm up SciPy's optimiser once per worker (first calls load lazily imported code)."""
    warm_up()
