"""Prior: random formulas from a grammar, constants fitted, best by support FVU.

The random-search baseline: what sampling formulas blindly from a simple prior, with the same
constant fitting and ranking as everything else, achieves for a given number of candidates. A
method that does not beat it at equal time learned nothing the grammar did not already know.

The grammar grows a tree from the root: at depth ``t`` a node is a leaf with probability
``leaf_prob + (1 - leaf_prob) * t / max_depth`` (always at ``max_depth``); a leaf is the free
constant ``C`` with probability ``const_prob``, else a variable drawn uniformly; an operator is
unary with probability ``unary_prob`` (from ``unary``), else binary (from ``binary``), drawn
uniformly. Trees with more than ``max_size`` nodes are redrawn. Each draw is reduced to the normal
form of ``search.normal_form``; a draw whose normal form was fitted before is not refitted.

``budget`` is the number of candidates drawn (duplicates included). The draws depend only on
``seed``; the incumbent is reported through ``report`` each time it improves.

Worker protocol: ``fit(X, y, *, budget, seed, variables, options, report) -> dict``.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

import numpy as np

from srbf.expr import Call, Expr, Var, count_nodes
from srbf.methods.builtin.fitting import ConstantFitter, warm_up
from srbf.methods.builtin.skeletons import SLOT
from srbf.methods.builtin.search import (
    DEFAULT_BINARY,
    DEFAULT_UNARY,
    Search,
    check_number,
    check_operators,
    check_options,
    normal_form,
)

NAME = "prior"
DEFAULT_BUDGET = 1000
DEFAULTS: dict[str, Any] = {
    "unary": list(DEFAULT_UNARY),
    "binary": list(DEFAULT_BINARY),
    "max_depth": 4,  # root at depth 0; nodes at max_depth are leaves
    "max_size": 15,  # nodes; larger draws are redrawn
    "leaf_prob": 0.2,  # leaf probability at the root (rising linearly to 1 at max_depth)
    "unary_prob": 0.3,  # share of unary operators among operator nodes
    "const_prob": 0.3,  # share of the free constant among leaves (0 disables constants)
    "restarts": 3,
    "max_nfev": None,
    "parsimony": 0.0,
}


class Grammar:
    """The prior over formula trees; ``draw(rng)`` returns one tree of at most ``max_size`` nodes."""

    def __init__(
        self,
        variables: Sequence[str],
        *,
        unary: Sequence[str],
        binary: Sequence[str],
        max_depth: int,
        max_size: int,
        leaf_prob: float,
        unary_prob: float,
        const_prob: float,
    ):
        self.variables = [Var(name) for name in variables]
        self.unary = list(unary)
        self.binary = list(binary)
        self.max_depth = max_depth
        self.max_size = max_size
        self.leaf_prob = leaf_prob
        self.unary_prob = unary_prob
        self.const_prob = const_prob
        if not self.variables and const_prob <= 0:
            raise ValueError(f"{NAME}: no leaves to draw: the problem has no variables and const_prob is 0")

    def draw(self, rng: np.random.Generator, *, max_attempts: int = 1000) -> Expr:
        for _ in range(max_attempts):
            tree = self._grow(rng, 0)
            if count_nodes(tree) <= self.max_size:
                return tree
        return self._leaf(rng)  # only reached for grammars that almost never fit max_size

    def _grow(self, rng: np.random.Generator, depth: int) -> Expr:
        if depth >= self.max_depth or not (self.unary or self.binary):
            return self._leaf(rng)
        p_leaf = self.leaf_prob + (1.0 - self.leaf_prob) * depth / self.max_depth
        if rng.random() < p_leaf:
            return self._leaf(rng)
        if self.unary and (not self.binary or rng.random() < self.unary_prob):
            op = self.unary[rng.integers(len(self.unary))]
            return Call(op, (self._grow(rng, depth + 1),))
        op = self.binary[rng.integers(len(self.binary))]
        return Call(op, (self._grow(rng, depth + 1), self._grow(rng, depth + 1)))

    def _leaf(self, rng: np.random.Generator) -> Expr:
        if not self.variables or rng.random() < self.const_prob:
            return SLOT
        return self.variables[rng.integers(len(self.variables))]


def fit(
    X: np.ndarray,
    y: np.ndarray,
    *,
    budget: float | None,
    seed: int,
    variables: Sequence[str],
    options: dict[str, Any] | None = None,
    report: Callable[[str], Any] | None = None,
) -> dict[str, Any]:
    """Draw ``budget`` formulas from the grammar, fit their constants, return the best."""
    started = time.perf_counter()
    opts = check_options(NAME, options, DEFAULTS)
    draws = DEFAULT_BUDGET if budget is None else check_number(NAME, "budget", budget, minimum=1, integer=True)
    probabilities = {}
    for key in ("leaf_prob", "unary_prob", "const_prob"):
        probabilities[key] = check_number(NAME, key, opts[key], minimum=0)
        if probabilities[key] > 1:
            raise ValueError(f"{NAME}: option {key!r} must be a probability in [0, 1], got {opts[key]!r}")
    grammar = Grammar(
        variables,
        unary=check_operators(NAME, "unary", opts["unary"], 1),
        binary=check_operators(NAME, "binary", opts["binary"], 2),
        max_depth=check_number(NAME, "max_depth", opts["max_depth"], minimum=0, integer=True),
        max_size=check_number(NAME, "max_size", opts["max_size"], minimum=1, integer=True),
        **probabilities,
    )
    restarts = check_number(NAME, "restarts", opts["restarts"], minimum=1, integer=True)
    max_nfev = None if opts["max_nfev"] is None else check_number(NAME, "max_nfev", opts["max_nfev"], minimum=1, integer=True)
    parsimony = check_number(NAME, "parsimony", opts["parsimony"], minimum=0)

    rng = np.random.default_rng(seed)
    fitter = ConstantFitter(X, y, variables, restarts=restarts, seed=seed, max_nfev=max_nfev)
    search = Search(fitter, report, parsimony=parsimony)
    for _ in range(draws):
        search.consider(normal_form(grammar.draw(rng)))
    return search.result(draws=draws, fit_seconds=time.perf_counter() - started)


def setup(options: dict[str, Any] | None = None) -> None:
    """Warm up SciPy's optimiser once per worker (first calls load lazily imported code)."""
    warm_up()
