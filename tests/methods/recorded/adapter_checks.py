"""What the method folders' tests share: recorded outputs, the adapter files loaded without their
packages, srbf's evaluation of a converted formula, the real Worker in a method's own environment
when one exists, and how each recording is compared with srbf's reading of it. The contract every
folder meets is tests/methods/test_method_folders.py; tests/methods/test_adapter_NAME.py holds what
is specific to one method.

Imported by the tests as ``recorded.adapter_checks`` (tests/methods is on sys.path under pytest).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np

from srbf.expr import compile_expr, parse
from srbf.methods import envs

HERE = Path(__file__).resolve().parent
METHODS = HERE.parents[2] / "src" / "srbf" / "methods"  # one folder per method
SHARED = METHODS / "shared" / "_shared.py"  # the adapters' shared helpers


@lru_cache(maxsize=None)
def recording(name: str) -> dict:
    """tests/methods/recorded/NAME.json, written by record.py under the package's interpreter."""
    return json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))


def cases(name: str) -> list[dict]:
    return recording(name)["cases"]


@lru_cache(maxsize=None)
def adapter(name: str):
    """The folder's adapter.py as a module of its own (it imports its package only inside
    functions, and finds its shared helpers from its own path); its folder goes on ``sys.path``
    (at the end, as srbf's worker puts it) for the modules beside it."""
    folder = str(METHODS / name)
    if folder not in sys.path:
        sys.path.append(folder)
    spec = importlib.util.spec_from_file_location(f"srbf_adapter_{name}", METHODS / name / "adapter.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def evaluate(expression: str, variables, X) -> np.ndarray:
    """srbf's reading of ``expression`` (parse, then the judge's evaluator) on the rows of ``X``."""
    X = np.asarray(X, dtype=float)
    with np.errstate(all="ignore"):
        values = compile_expr(parse(expression, list(variables)), list(variables))(X)
    return np.broadcast_to(np.asarray(values, dtype=float), (X.shape[0],))


def mismatch(ours, theirs, *, rtol: float, atol: float = 0.0) -> np.ndarray:
    """Rows where srbf's values and the package's differ beyond the tolerance (NaN equals NaN,
    infinities must agree exactly)."""
    ours, theirs = np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float)
    both_nan = np.isnan(ours) & np.isnan(theirs)
    with np.errstate(all="ignore"):
        close = np.isclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True)
    return ~(close | both_nan)


def check_case(name: str, case: dict, *, rtol: float = 1e-9, atol_scale: float = 0.0, rows=None) -> None:
    """The converted expression evaluates to the package's own predictions (support and fresh
    points); ``rows``, when given, restricts the support points compared."""
    for points, key in (("X", "predictions"), ("X_eval", "predictions_eval")):
        X = np.asarray(case[points], dtype=float)
        theirs = np.asarray(case[key], dtype=float)
        ours = evaluate(case["expression"], case["variables"], X)
        finite = theirs[np.isfinite(theirs)]
        atol = atol_scale * (float(np.max(np.abs(finite))) if finite.size else 1.0)
        bad = mismatch(ours, theirs, rtol=rtol, atol=atol)
        if rows is not None and points == "X":
            bad &= rows
        assert not bad.any(), (
            f"{name} / {case['name']} ({points}): srbf {ours[bad][:3]} vs package {theirs[bad][:3]} "
            f"on {int(bad.sum())} of {bad.size} rows\n{case['expression']}"
        )


# --- how a recording is compared with srbf's reading of it ----------------------------------------

# the recorded expression against the package's own predictions: equal to rounding in float64,
# except where the package computes in float32 (Operon)
TOLERANCE = {"operon": {"rtol": 1e-5, "atol_scale": 1e-5}}


def numpy_code_is_faithful(case) -> bool:
    """Whether the package's own predictions (eggp's and SymRegg's NumPy code) give the loss it
    reported; where they do not, that code misreads its own expression (a power of a power)."""
    y, theirs = np.asarray(case["y"]), np.asarray(case["predictions"])
    with np.errstate(all="ignore"):
        return bool(np.isclose(np.mean((theirs - y) ** 2), case["loss_train"], rtol=1e-9))


def comparable(name: str, case: dict) -> dict | None:
    """The case as check_case compares it with srbf's reading, or None where the package's own
    predictions are not the formula's (each such case has a test of its own in test_adapter_NAME.py):
    gplearn's protected functions at an active guard, eggp's and SymRegg's misread powers; QLattice
    is compared without its clipping protections."""
    if "guard_rows" in case:
        return None
    if "loss_train" in case and not numpy_code_is_faithful(case):
        return None
    if "unprotected" in case:
        return dict(case, predictions=case["unprotected"], predictions_eval=case["unprotected_eval"])
    return case


# --- the adapter files' imports -------------------------------------------------------------------


def imported_modules(path: Path) -> set[str]:
    """Top-level names of every module the file imports, anywhere in it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def check_imports(name: str, *packages: str) -> None:
    """Only the standard library, NumPy, the method's own package(s), the shared helpers
    ``_shared`` and the modules beside the adapter in its folder (never srbf); the helpers only
    the standard library."""
    beside = {p.stem for p in (METHODS / name).glob("*.py")}
    allowed = set(sys.stdlib_module_names) | {"numpy", *packages, "__future__", "_shared", *beside}
    for path in sorted((METHODS / name).glob("*.py")):
        extra = imported_modules(path) - allowed
        assert not extra, f"{name}/{path.name} imports {sorted(extra)}; a method file may import only " \
                          f"the standard library, NumPy, _shared and {', '.join(packages)}"  # fmt: skip
    assert imported_modules(SHARED) <= set(sys.stdlib_module_names), "shared/_shared.py may import only the standard library"


# --- the real package, through the Worker ---------------------------------------------------------


def installed(name: str) -> bool:
    """A finished ``srbf methods install NAME``: its interpreter and its manifest exist."""
    return envs.env_python(name).exists() and envs.read_manifest(name) is not None


def method_python(name: str) -> str | None:
    """The interpreter of the method's own environment: srbf's (``$SRBF_HOME/envs/NAME``, made by
    ``srbf methods install NAME``), else a development one at ``/tmp/env-NAME``; None if neither."""
    candidates = [envs.env_python(name)] if installed(name) else []
    candidates.append(Path(f"/tmp/env-{name}/bin/python"))
    for python in candidates:
        if python.is_file() and os.access(python, os.X_OK):
            return str(python)
    return None


def toy(seed: int = 0, n: int = 64, kind: str = "poly"):
    """Small problems: ``poly`` y = x0**2 + x1 on [-2, 2]^2 (srbf's doctor problem),
    ``positive`` y = log(x0)*x1 + sqrt(x1) on [0.5, 3]^2."""
    rng = np.random.default_rng(seed)
    if kind == "poly":
        X = rng.uniform(-2, 2, (n, 2))
        return X, X[:, 0] ** 2 + X[:, 1]
    X = rng.uniform(0.5, 3, (n, 2))
    return X, np.log(X[:, 0]) * X[:, 1] + np.sqrt(X[:, 1])


def worker_fits(name: str, python: str, problems, *, options=None, time_limit: float = 300.0):
    """Run the adapter through the real Worker under ``python``; one FitResult per
    (X, y, variables, budget, seed) in ``problems``, all in one worker process."""
    from srbf.methods import Worker
    from srbf.core import FitTask, TaskKey

    results = []
    with Worker(METHODS / name / "adapter.py", python=python, options=options or {}) as worker:
        for i, (X, y, variables, budget, seed) in enumerate(problems):
            key = TaskKey(name, "test", "toy", 1, f"p{i}", 0, budget, f"n_support={len(y)}", seed)
            task = FitTask(key, X, y, tuple(variables), options=dict(options or {}), time_limit=time_limit)
            results.append(worker.fit(task))
    return results


def r2(expression: str, variables, X, y) -> float:
    predicted = evaluate(expression, variables, X)
    with np.errstate(all="ignore"):
        return float(1 - np.sum((y - predicted) ** 2) / np.sum((y - np.mean(y)) ** 2))
