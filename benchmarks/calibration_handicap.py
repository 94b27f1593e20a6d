"""A method file with a known handicap, for benchmarks/calibration.py (an ordinary method file, run
through the adapter mechanism like any user's: docs/adapters.md).

It runs a built-in method (option ``inner``, default ``prior``, with the options ``inner_options``)
and returns its formula, and every incumbent it reports, with the output scaled by 1 + ``delta``.
With ``delta`` 0 the formula is returned untouched, so the entry is the inner method under another
name (another seed): an A/A side. The judge is not involved: the handicap is in what the method
returns.
"""

from __future__ import annotations

import importlib.util

from srbf.methods.builtin import path_of


def _inner_module(name: str):
    spec = importlib.util.spec_from_file_location(f"calibration_inner_{name}", path_of(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _scaled(expression: str, delta: float) -> str:
    return expression if delta == 0 else f"{1 + delta!r}*({expression})"


def fit(X, y, *, budget, seed, variables, options, report):
    delta = float(options.get("delta", 0.0))
    inner = _inner_module(str(options.get("inner", "prior")))
    result = inner.fit(X, y, budget=budget, seed=seed, variables=variables,
                       options=dict(options.get("inner_options") or {}),
                       report=(lambda expression: report(_scaled(expression, delta))) if report else None)
    # the inner formula's constants and front no longer describe the scaled formula
    return {"expression": _scaled(result["expression"], delta), "handicap_delta": delta}
