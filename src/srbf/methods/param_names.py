"""Pass-through parameters checked against the method's own constructor, in the method's own interpreter.

A roster method's ``params`` option is handed to its package's estimator unread (``options:
{params: {population_size: 500}}``), so a misspelt key used to pass the config's checks and fail
every fit with a worker's traceback. A method.yaml option may name that estimator
(``signature: gplearn.genetic:SymbolicRegressor``); ``param_problems`` then reads the estimator's
signature in the interpreter the method runs under (its environment has the package; srbf's does
not) and returns one line per key the estimator does not take, with a did-you-mean. ``srbf
check`` and the run's pre-check call it before any worker starts or any store is made.

An estimator that takes ``**kwargs``, or that its interpreter cannot import (a broken environment
is for the worker's start to report, with its own message), is not second-guessed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from srbf.core import did_you_mean

__all__ = ["SIGNATURE_SCRIPT", "accepted_parameters", "param_problems"]

# Run in the method's interpreter (only the standard library): the parameter names of a callable.
SIGNATURE_SCRIPT = r"""
import importlib, inspect, json, sys
module, _, name = sys.argv[1].partition(":")
try:
    target = importlib.import_module(module)
    for part in name.split("."):
        target = getattr(target, part)
    parameters = list(inspect.signature(target).parameters.values())
except Exception as exc:
    print(json.dumps({"error": "%s: %s" % (type(exc).__name__, exc)}))
    raise SystemExit(0)
named = [p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self"]
print(json.dumps({"names": named, "any": any(p.kind == p.VAR_KEYWORD for p in parameters)}))
"""
TIMEOUT_SECONDS = 120.0


@lru_cache(maxsize=64)
def accepted_parameters(python: str, target: str) -> tuple[frozenset[str], bool] | None:
    """(parameter names, takes **kwargs) of ``target`` (``module:Name``) as ``python`` imports
    it; None when it cannot be read there."""
    try:
        done = subprocess.run([python, "-I", "-c", SIGNATURE_SCRIPT, target], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=TIMEOUT_SECONDS, errors="replace")  # fmt: skip
        lines = done.stdout.strip().splitlines()
        found = json.loads(lines[-1]) if lines else {}
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if not isinstance(found, dict) or "names" not in found:
        return None
    return frozenset(map(str, found["names"])), bool(found.get("any"))


def param_problems(method: str, constraints: Mapping[str, Any], options: Mapping[str, Any],
                   python: str | None) -> list[str]:  # fmt: skip
    """One line per key of a mapping option whose constraint names a ``signature`` that the
    callable there does not take, read in ``python`` (None: this interpreter)."""
    found = []
    for option, constraint in constraints.items():
        target = constraint.get("signature") if isinstance(constraint, Mapping) else None
        value = options.get(option)
        if not target or not isinstance(value, Mapping) or not value:
            continue
        interpreter = _interpreter(python)
        accepted = accepted_parameters(interpreter, str(target)) if interpreter else None
        if accepted is None or accepted[1]:
            continue
        names = accepted[0]
        for key in value:
            if key not in names:
                hint = did_you_mean(key, sorted(names)) or f" (it takes: {', '.join(sorted(names))})"
                found.append(f"{method}: options.{option}.{key} is not a parameter of "
                             f"{str(target).replace(':', '.')}{hint}")  # fmt: skip
    return found


def _interpreter(python: str | None) -> str | None:
    """The interpreter to ask; None when it cannot be found (the pre-check reports that itself)."""
    if not python:
        return sys.executable
    from srbf.methods.envs import EnvError, resolve_python

    try:
        return str(Path(resolve_python(python)))
    except EnvError:
        return None
