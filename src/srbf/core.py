"""The vocabulary every layer of srbf shares, and that no layer owns.

A ``TaskKey`` identifies one fit (docs/design.md maps the house; docs/glossary.md defines *fit*):
rerunning a config skips every key already in the store; ``key_text`` is its one canonical
encoding, the text its method seed is derived from (the budget left out: see ``key_text``). A
``FitTask`` is what a worker needs to run it (never the truth, never the validation points); a
``FitResult`` is what comes back, whatever happened to the method.
``SrbfError`` is the base of every error srbf raises on purpose, so a caller (the CLI, a
notebook) can tell a user's mistake from a bug with one ``except``; ``did_you_mean`` is the one
way such an error suggests the name the user probably meant. ``lazy_attributes`` lets a
package export names that import their heavy modules only on first use. ``to_plain`` turns a value
into plain JSON-ready Python, the one converter the layers share.

This module imports nothing of srbf; every package may import it.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping

__all__ = ["DEFAULT_RESULTS", "FitResult", "FitTask", "GC_SWITCH", "GC_THRESHOLDS", "STATUSES", "SrbfError", "TaskKey",
           "canonical_budget", "closest", "collector_tuned", "did_you_mean", "freeze_survivors", "key_text", "lazy_attributes",
           "to_plain"]

if TYPE_CHECKING:  # core stays importable without NumPy, so that `srbf --help` starts fast
    import numpy as np

STATUSES = ("ok", "failed", "timeout", "crashed", "memory_limit", "placeholder")
DEFAULT_RESULTS = "./srbf-results"  # the results store when neither a config nor --results names one
# The collector's thresholds in processes that draw and judge (run slots, scoring processes): they
# allocate many short-lived containers (a formula's tokens and trees), which Python's defaults
# (700, 10, 10) traverse again and again (a sixth of drawing's CPU, a tenth of scoring's) while
# holding no reference cycles worth collecting sooner.
GC_THRESHOLDS = (10_000, 10, 10)
GC_SWITCH = "SRBF_GC"  # set to "default", ``collector_tuned`` leaves the collector alone (for benchmarks/gc_tuning.py)


def freeze_survivors() -> None:
    """Freeze what is alive now, once the young generation's cyclic garbage is collected: what a
    drawing or judging process has left behind after a batch of work is nearly all what its caches
    took in (samplers, compiled formulas, trees, truth facts: about 100 objects a problem, kept as
    long as the process), which the collector's older generations traversed again and again
    without ever freeing any of it (a generation-1 collection 20-55 ms, ~95,000 objects, late in
    the suite's scoring; 6-9 % of a scoring or run slot process's CPU). What a later batch drops
    is freed by its reference count as before; only a reference cycle of objects that outlived
    a young collection and died after it would stay (the suite's passes leave none)."""
    gc.collect(0)
    gc.freeze()


def _keep_nothing() -> None:
    pass


_tuned_for_life = False  # a ``for_life`` block has tuned this process (it stays so)


@contextlib.contextmanager
def collector_tuned(*, for_life: bool = False) -> Iterator[Callable[[], None]]:
    """Python's cyclic garbage collector tuned for srbf's heavy work, for the block: where srbf
    tunes the collector (docs/performance.md, "The garbage collector", has the figures of
    ``benchmarks/gc_tuning.py``, with and without).

    Entering raises the thresholds to ``GC_THRESHOLDS``; the block gets ``keep``. With
    ``for_life`` (a process that ends with its work: a scoring process, a command) it also freezes
    what is alive (the imports: never traversed again) and stays tuned after the block, and
    ``keep``, called after a batch of work, is ``freeze_survivors``. A block without it, in a
    process not tuned for life (a catalog's loading, a pass called from Python), only raises the
    thresholds until it ends, and ``keep`` does nothing: what it would freeze it could not give
    back without unfreezing what others froze. Entering never asks how much is frozen
    (``gc.get_freeze_count`` walks every frozen object: 0.1 s a call late in a scoring process;
    entered once a chunk, it made ``srbf score --workers 2`` take 14 % more CPU)."""
    global _tuned_for_life
    if os.environ.get(GC_SWITCH) == "default":
        yield _keep_nothing
        return
    if for_life:  # gc.freeze moves lists, whatever their length; a forked process freezes what it inherited
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)
        _tuned_for_life = True
    if _tuned_for_life:
        yield freeze_survivors
        return
    thresholds = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield _keep_nothing
    finally:
        gc.set_threshold(*thresholds)


class SrbfError(Exception):
    """Base of every error srbf raises about its input (a config, a catalog, a store, a method).

    One message style: one line (a config's several problems one a line), lower case, naming the
    file or field and the value as given, then what to do: ``unknown catalog 'feynmann'; did you
    mean 'feynman'?`` (``did_you_mean``) or the valid choices in parentheses."""


def closest(word: Any, choices: Iterable[str]) -> str | None:
    """The choice ``word`` most likely meant: the same word in another case, else the nearest by
    difflib's ratio (at least 0.6), else the one choice it begins or that begins it (3 letters
    or more); None when nothing is near or ``word`` is not text."""
    choices = [str(c) for c in choices]
    if not isinstance(word, str) or not choices:
        return None
    import difflib

    lowered = {c.lower(): c for c in choices}
    if word.lower() in lowered:
        return lowered[word.lower()]
    close = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    if close:
        return lowered[close[0]]
    starts = [c for c in choices if c.startswith(word) or word.startswith(c)] if len(word) >= 3 else []
    return starts[0] if len(starts) == 1 else None


def did_you_mean(word: Any, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest choice (``closest``), to append to an error
    message; "" when none is close, so the caller can fall back to listing the choices."""
    close = closest(word, choices)
    return f"; did you mean {close!r}?" if close else ""


@dataclass(frozen=True)
class TaskKey:
    """One fit: method and configuration, problem and draw, budget, condition and seed, and which
    repeat of the method on those same points it is (``repeats: K`` in a config; 0 .. K-1)."""

    method: str
    config_hash: str
    catalog: str
    catalog_version: int
    problem_id: str
    draw: int
    budget: float
    condition: str  # canonical text of the data condition, e.g. "n_support=512;noise=0"
    seed: int
    repeat: int = 0  # the method's own randomness varies with it, the points do not


def canonical_budget(value: float) -> int | float:
    """A budget in its one form: an integral value is the int (5.0 and 5 are both 5), any other a
    float. The store keeps budgets as REAL and gives 5.0 back; a key made from a stored row and one
    made from the config must still be the same key and derive the same seeds."""
    number = float(value)
    return int(number) if number.is_integer() else number


def key_text(key: TaskKey) -> str:
    """The one canonical encoding of a fit's key, which its method seed is derived from: its values
    in field order as compact JSON, counters as integers, the budget left out, and the repeat only
    when it is not 0 (repeat 0 is the fit a run without ``repeats`` makes: the same text, the same
    seed).

    The budget is left out so that the rungs of a ladder are one search stopped at several
    lengths: a fit at budget b and the ladder's longest fit get the same seed, which is what lets a
    method with an exact trajectory (``exact_trajectory`` in its method.yaml) store every rung from
    one fit, and gives every method common random numbers across budgets (less noisy budget
    curves)."""
    import json

    values = [key.method, key.config_hash, key.catalog, int(key.catalog_version), key.problem_id, int(key.draw),
              key.condition, int(key.seed)]
    if key.repeat:
        values.append(int(key.repeat))
    return json.dumps(values, separators=(",", ":"))


@dataclass(frozen=True)
class FitTask:
    """What a worker receives: the support points and their column names, the budget and options.
    The sampled problem's hashes go with it to the store; they are not sent to the worker."""

    key: TaskKey
    X: np.ndarray
    y: np.ndarray
    variables: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)
    time_limit: float = 600.0
    data_hash: str = ""
    inputs_hash: str = ""
    method_seed: int | None = None  # the seed the method gets (the driver derives one); None: key.seed


@dataclass
class FitResult:
    """What came back from one fit. ``status`` is one of STATUSES; times are in seconds, measured
    by srbf outside the method (wall: order sent to result received; CPU: the method's process
    tree as the operating system counts it)."""

    status: str
    expression: str | None = None
    error: str | None = None
    wall_seconds: float | None = None
    cpu_seconds: float | None = None
    method_seconds: float | None = None  # the method's own report of its fit time, if any (never the time axis)
    peak_memory_bytes: int | None = None  # the method's process tree at its largest during the fit
    internals: dict[str, Any] = field(default_factory=dict)  # constants, front, log-probability, ...
    trajectory: list[tuple[float, str]] = field(default_factory=list)  # (seconds since start, expression)
    # (budget, seconds since start, expression): the method's answer for a fit of that budget, at
    # every budget step it said so (``report(expression, budget=b)``), equal incumbents included
    marks: list[tuple[float, float, str]] = field(default_factory=list)
    from_trajectory: bool = False  # read from a longer fit's marks, not fitted on its own (a ladder's rung)
    stderr_tail: str = ""


def _non_finite(value: float, spelling: str) -> Any:
    if spelling == "null":
        return None
    if spelling == "string":  # Protocol Buffers' JSON spelling, which srbf's store reads back
        return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
    return value


def to_plain(value: Any, *, non_finite: str = "keep") -> Any:
    """``value`` as plain Python for JSON: mappings as dicts with text keys, sequences and arrays
    as lists, NumPy scalars and paths unwrapped. ``non_finite`` says what NaN and infinities
    become: ``keep`` (floats), ``null`` (None) or ``string`` ("NaN", "Infinity", "-Infinity")."""
    np = sys.modules.get("numpy")  # a NumPy value exists only once NumPy is imported
    if isinstance(value, Mapping):
        return {str(k): to_plain(v, non_finite=non_finite) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or (np is not None and isinstance(value, np.ndarray)):
        return [to_plain(v, non_finite=non_finite) for v in value]
    if np is not None and isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return _non_finite(value, non_finite)
    return value


def lazy_attributes(package: str, exports: Mapping[str, str]):
    """A package's ``__getattr__`` that imports each name of ``exports`` (name -> module) on first
    use, so that importing the package (and ``srbf --help``) loads no pandas or matplotlib. Every
    package of srbf declares its public names this way (``__all__ = sorted(_EXPORTS)``).

    A name that is also the name of its module (``srbf.expr.canonical``, the function in
    ``canonical.py``) is bound at once: importing that module later would otherwise set the package
    attribute to the module, and the name would never reach this ``__getattr__``."""
    import importlib

    def __getattr__(name: str) -> Any:
        if name in exports:
            return getattr(importlib.import_module(exports[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    module = sys.modules[package]
    module.__getattr__ = __getattr__  # already there while the modules bound below import the package's names
    for name, source in exports.items():
        if source == f"{package}.{name}":
            setattr(module, name, getattr(importlib.import_module(source), name))
    return __getattr__
