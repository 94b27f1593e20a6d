"""Flash-ANSR (Saegert and Köthe; flash-ansr 0.19.1) in srbf: a pretrained transformer that
samples candidate formulas for a data set, fits their constants and ranks them.

The package has no model of its own: its weights come from a model hub this machine cannot reach,
so the user names a **model directory** (``options: {model: PATH}``), one that
``FlashANSR.load`` reads: ``model.yaml``, ``tokenizer.yaml`` and ``model.safetensors`` (and the
simplipy engine file its model.yaml names). ``benchmarks/flash_ansr_tiny.py`` trains a tiny one
offline with the package's own training code (docs/methods.md).

Everything runs through the package's own code at its documented inference defaults
(``FlashANSR.load`` with ``SoftmaxSamplingConfig()``, ``RefineConfig()`` and the ``mdl``
ranking), except what the benchmark sets for every method alike:

- **budget** = ``draws``, the number of candidate expressions sampled from the model (the
  package's own search budget, ``fit(draws=)``; its default is 1024).
- **seed** = ``fit(seed=)``: seeds the draw and the constant refinement.
- **emission** (option, default the package's ``fittable``): the format the model writes
  constants in. ``fittable`` needs a checkpoint trained with the package's masking block; srbf's
  tiny model is trained without it and runs with ``emission: constants`` (the constants spelled
  by the model, then refined), which is what the package's own error message advises.
- **workers** (compute, not search): the refiner's process pool; the package's default is every
  core, srbf's is 0 (serial in the worker process), as the benchmark gives each fit one core.

**Conversion**: the best candidate's prefix tokens (constants substituted, columns ``x1..xN``)
are written as srbf infix over the problem's variable names, constants at full precision; the
package's own infix string is kept as ``flash_infix``. The model may name a column past the
problem's (``x2`` on a one-variable problem): the package pads X with zero columns up to the
model's input width and scores the formula so, so such a column is written as ``0.0`` (counted in
``padded_columns``). ``front`` holds up to 32 fitted candidates.

Worker protocol: ``fit(X, y, *, budget, seed, variables, options, report) -> dict``; only the
standard library, NumPy, torch and flash_ansr are imported.
"""

from __future__ import annotations

import importlib
import math
import os
import sys
import time

import numpy as np

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "shared"))
import _shared  # noqa: E402  the adapters' shared helpers: srbf/methods/shared/_shared.py

NAME = "flash_ansr"
MODEL_FILES = ("model.yaml", "tokenizer.yaml", "model.safetensors")  # what FlashANSR.load reads
OPTION_DEFAULTS = {"workers": 0}
DEFAULT_DRAWS = 1024  # SoftmaxSamplingConfig's default, used when the budget is None
MAX_FRONT = 32  # fitted candidates kept in ``front``

ARITY = {"+": 2, "-": 2, "*": 2, "/": 2, "pow": 2, "**": 2, "neg": 1, "inv": 1, "abs": 1, "sin": 1, "cos": 1,
         "tan": 1, "asin": 1, "acos": 1, "atan": 1, "sinh": 1, "cosh": 1, "tanh": 1, "asinh": 1, "acosh": 1,
         "atanh": 1, "exp": 1, "log": 1}  # fmt: skip
# (simplipy's rootn, an n-th root signed for odd n, has no srbf spelling: a candidate using it fails)
_BINARY = {"+": "({} + {})", "-": "({} - {})", "*": "({}*{})", "/": "({}/{})", "pow": "({}**{})", "**": "({}**{})"}
_UNARY = {"neg": "(-{})", "inv": "(1/{})"}
NAMED = {"np.pi": math.pi, "np.e": math.e, "pi": math.pi, "e": math.e, "(-1)": -1.0}

_MODEL = None  # the loaded FlashANSR estimator, one per worker process (setup)
_MODEL_KEY = None


class ModelDirectoryError(ValueError):
    """``options.model`` is missing or names no model directory; the message says which file is absent."""

    user_error = True  # srbf shows the message alone: the config is wrong, not the adapter


def model_directory(options) -> str:
    """The absolute model directory ``options['model']`` names; ModelDirectoryError otherwise."""
    value = (options or {}).get("model")
    if value is None:
        raise ModelDirectoryError(f"{NAME}: options.model is required: the path of a trained Flash-ANSR model "
                                  "directory (docs/methods.md: how to train one here)")
    if not isinstance(value, str) or not value.strip():
        raise ModelDirectoryError(f"{NAME}: options.model must be a directory path, got {value!r}")
    path = os.path.abspath(os.path.expanduser(value))
    if not os.path.isdir(path):
        raise ModelDirectoryError(f"{NAME}: options.model: {path} is not a directory")
    missing = [name for name in MODEL_FILES if not os.path.isfile(os.path.join(path, name))]
    if missing:
        raise ModelDirectoryError(f"{NAME}: options.model: {path} is not a Flash-ANSR model directory "
                                  f"(no {', '.join(missing)})")
    return path


# --- conversion (pure: no flash_ansr needed, tested on recorded candidates) -----------------------


def token_value(token: str):
    """A leaf token's meaning: ("var", 0-based column) for ``x1..xN``, ("num", value) otherwise."""
    if token in NAMED:
        return "num", NAMED[token]
    if token.startswith("x") and token[1:].isdigit() and int(token[1:]) >= 1:
        return "var", int(token[1:]) - 1
    try:
        return "num", float(token)
    except ValueError:
        raise ValueError(f"{NAME}: no srbf spelling for token {token!r}") from None


def to_infix(tokens, variables) -> str:
    """srbf infix over ``variables`` for the package's prefix tokens (``x1`` is column 0)."""
    items = []
    for token in tokens:
        if token in ARITY:
            items.append(token)
            continue
        kind, value = token_value(str(token))
        if kind == "var" and value >= len(variables):
            items.append(0.0)  # a column past the problem's: the package pads X with zeros up to its width
            continue
        items.append(int(value) if kind == "var" else float(value))

    def arity(function: str) -> int:
        return ARITY[function]

    def spell(function: str, args: list) -> str:
        if function in _BINARY:
            return _BINARY[function].format(*args)
        return _UNARY[function].format(args[0]) if function in _UNARY else f"{function}({args[0]})"

    try:
        return _shared.prefix_infix(NAME, items, list(variables), arity, spell)
    except IndexError:  # an operator short of operands
        raise ValueError(f"{NAME}: malformed program of {len(items)} nodes") from None


def padded_columns(tokens, variables) -> int:
    """How many of ``tokens`` name a column past the problem's (written as 0.0 by ``to_infix``)."""
    leaves = [token_value(str(t)) for t in tokens if t not in ARITY]
    return sum(1 for kind, value in leaves if kind == "var" and value >= len(variables))


def candidate_row(candidate, variables) -> dict:
    """One fitted candidate as a ``front`` row: srbf infix, the package's fit numbers."""
    return {
        "expression": to_infix(candidate.expression_prefix, variables),
        "fvu": float(candidate.fvu),
        "score": float(candidate.score),
        "log_prob": float(candidate.log_prob),
        "complexity": int(candidate.n_nodes),
    }


def draws(budget) -> int:
    if budget is None:
        return DEFAULT_DRAWS
    return _shared.positive_integer(NAME, budget, "draws")


# --- the method ----------------------------------------------------------------------------------


def load(options):
    """The FlashANSR estimator for ``options`` (loaded once per worker and model directory)."""
    global _MODEL, _MODEL_KEY
    options = _shared.with_defaults(options, OPTION_DEFAULTS)
    directory = model_directory(options)
    emission = options.get("emission")
    key = (directory, options["workers"], emission)
    if _MODEL is None or _MODEL_KEY != key:
        package = importlib.import_module("flash_ansr")
        sampling = None if emission is None else package.SoftmaxSamplingConfig(emission=emission)
        _MODEL = package.FlashANSR.load(directory, generation_config=sampling,
                                        compute={"device": "cpu", "workers": options["workers"]})  # fmt: skip
        _MODEL_KEY = key
    return _MODEL


def setup(options):
    """Check the model directory and load the model once per worker (never inside a timed fit)."""
    load(options)


def run(X, y, *, budget, seed, variables, options, report):
    """Fit; return (the fitted FlashANSR estimator, the result dict ``fit`` returns)."""
    started = time.perf_counter()
    model = load(options)
    names = [f"x{i + 1}" for i in range(len(variables))]  # the columns as the package names them
    result = model.fit(np.asarray(X, dtype=float), np.asarray(y, dtype=float), variable_names=names,
                       draws=draws(budget), seed=int(seed))  # fmt: skip
    if not result.candidates:
        raise RuntimeError(f"{NAME}: none of {draws(budget)} draws could be fitted")
    best = result.candidates[0]
    expression = to_infix(best.expression_prefix, variables)
    report(expression)
    return model, {
        "expression": expression,
        "constants": [float(c) for c in best.constants],
        "flash_infix": str(best.expression_infix),
        "prefix": [str(t) for t in best.expression_prefix],
        "padded_columns": padded_columns(best.expression_prefix, variables),
        "fvu": float(best.fvu),
        "score": float(best.score),
        "log_prob": float(best.log_prob),
        "front": [candidate_row(c, variables) for c in result.candidates[:MAX_FRONT]],
        "n_fitted": len(result.candidates),
        "draws": draws(budget),
        "generation_seconds": float(result.generation_time),
        "refinement_seconds": float(result.refinement_time),
        "fit_seconds": time.perf_counter() - started,
    }


def fit(X, y, *, budget, seed, variables, options, report):
    """Sample ``budget`` candidates from the model, refine and rank them; return the best."""
    return run(X, y, budget=budget, seed=seed, variables=variables, options=options, report=report)[1]
