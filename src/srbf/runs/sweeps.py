"""Expand a run config into variants: the concrete method configurations a run fits.

A method with sweeps becomes several variants, one per point of its sweep grid. Sweeps that share
an ``axis`` name advance together (zip: the k-th values go together); every unnamed sweep is an
axis of its own; the axes form a grid (product). Each variant carries its concrete options, the
method's budget ladder, the data conditions (support size x noise) and the ``config_hash`` that
stands in every task key for it.

The hash identifies *what the method was run with*: the adapter (a built-in's name, or the sha256
of a method file's contents), the concrete options and the time limit per fit. Everything else a
fit depends on is already a field of the task key (catalog and version, problem, draw, budget,
condition, seed), so the same configuration keeps its hash when a run adds seeds, catalogs, noise
levels or budgets, and reruns resume instead of starting over. docs/config.md lists what is left
out and why.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

from srbf.core import to_plain

if TYPE_CHECKING:  # the config models use this module; they are only needed for annotations
    from srbf.runs.config_schema import MethodConfig, RunConfig

__all__ = [
    "HASH_SCHEME",
    "Cell",
    "Condition",
    "Variant",
    "axis_problems",
    "canonical_json",
    "config_hash",
    "expand",
    "grid_size",
    "hash_payload",
    "iter_cells",
    "number_text",
    "sweep_points",
]

HASH_SCHEME = "srbf.config/1"  # bump when the hash payload changes meaning


def number_text(value: float) -> str:
    """A number as short canonical text: ``0`` for 0.0, ``512`` for 512.0, repr otherwise."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value)


@dataclass(frozen=True)
class Condition:
    """The data condition of a fit: support size and relative label-noise level."""

    n_support: int
    noise: float

    @property
    def text(self) -> str:
        """The canonical text a TaskKey stores, e.g. ``n_support=512;noise=0``."""
        return f"n_support={self.n_support};noise={number_text(float(self.noise))}"


@dataclass(frozen=True)
class Variant:
    """One concrete configuration of one method: what a worker is started with.

    ``options`` are the method's options with this variant's swept values filled in (read-only;
    ``dict(variant.options)`` for a copy); ``swept`` the (option, value) pairs of the sweep point
    in sweep order, empty without sweeps; ``hash_payload`` what ``config_hash`` was computed from.
    """

    method: MethodConfig
    options: Mapping[str, Any]
    swept: tuple[tuple[str, Any], ...]
    budgets: tuple[float, ...]
    conditions: tuple[Condition, ...]
    config_hash: str
    hash_payload: Mapping[str, Any]

    def __hash__(self) -> int:
        return hash((self.method.name, self.config_hash))

    @property
    def name(self) -> str:
        """The method's name (the ``method`` field of a TaskKey)."""
        return self.method.name

    @property
    def label(self) -> str:
        """A readable name for listings: ``prior`` or ``prior[temperature=0.5, depth=3]``."""
        if not self.swept:
            return self.method.name
        inner = ", ".join(f"{option}={canonical_json(value)}" for option, value in self.swept)
        return f"{self.method.name}[{inner}]"

    def to_dict(self) -> dict[str, Any]:
        """Everything about this variant as plain JSON-like data, e.g. for a campaign record."""
        m = self.method
        return {
            "method": m.name,
            "label": self.label,
            "config_hash": self.config_hash,
            "adapter": {"type": m.adapter.type, "name": m.adapter.name, "path": m.adapter.path},
            "options": to_plain(self.options),
            "swept": [[option, to_plain(value)] for option, value in self.swept],
            "budgets": list(self.budgets),
            "conditions": [c.text for c in self.conditions],
            "time_limit": m.time_limit,
            "python": m.python,
            "env": dict(m.env),
            "config_provenance": m.config_provenance,
            "provenance_explicit": m.provenance_explicit,
            "budget_knob": m.budget_knob,
            "hash_payload": to_plain(self.hash_payload),
        }

    def cells(self) -> Iterator[tuple[float, Condition]]:
        """Every (budget, condition) pair of this variant, budgets outer, in ladder order."""
        for budget in self.budgets:
            for condition in self.conditions:
                yield budget, condition


@dataclass(frozen=True)
class Cell:
    """One variant at one budget under one condition; a planner crosses it with problems and draws."""

    variant: Variant
    budget: float
    condition: Condition


def canonical_json(value: Any) -> str:
    """Keys sorted, no whitespace, floats by repr, non-ASCII kept; NaN and infinities refused."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def config_hash(payload: Mapping[str, Any]) -> str:
    """sha256 (hex) of the canonical JSON of ``payload``."""
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def file_sha256(path: str | Path) -> str:
    """sha256 (hex) of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def hash_payload(method: MethodConfig, options: Mapping[str, Any]) -> dict[str, Any]:
    """What a variant's hash covers: scheme, adapter, concrete options, time limit per fit, and
    the limits on what a fit returns where they differ from the defaults.

    A built-in is named; a method file enters by the sha256 of its contents (its path differs
    between machines, its code is what runs). The method's display name, interpreter path,
    provenance label, budget text, budgets, sampling, seed, workers and results directory are
    left out (see docs/config.md, "The configuration hash").
    """
    adapter = method.adapter
    if adapter.type == "file":
        described: dict[str, Any] = {"type": "file", "sha256": file_sha256(adapter.path)}
    elif adapter.type == "srbench":
        from srbf.methods.srbench import content_hash

        described = {"type": "srbench", "sha256": content_hash(adapter.path)}
    else:
        described = {"type": adapter.type, "name": adapter.name}
    payload = {
        "scheme": HASH_SCHEME,
        "adapter": described,
        "options": to_plain(options),
        "time_limit": float(method.time_limit),
    }
    if method.limits.changed():  # limits decide what is recorded; the defaults leave old hashes as they were
        payload["limits"] = method.limits.changed()
    if method.memory_limit is not None:  # decides which fits end as memory_limit; unset leaves old hashes
        payload["memory_limit"] = float(method.memory_limit)
    return payload


# --- sweep axes ---------------------------------------------------------------------------------


def _axes(sweeps: Sequence[Any]) -> list[list[int]]:
    """Indices of ``sweeps`` grouped into axes, in order of first appearance."""
    axes: list[list[int]] = []
    named: dict[str, list[int]] = {}
    for index, sweep in enumerate(sweeps):
        if sweep.axis is None:
            axes.append([index])
        elif sweep.axis in named:
            named[sweep.axis].append(index)
        else:
            named[sweep.axis] = [index]
            axes.append(named[sweep.axis])
    return axes


def axis_problems(sweeps: Sequence[Any]) -> list[tuple[int, str]]:
    """(index, message) for every sweep whose length differs from the first sweep on its axis."""
    problems = []
    for axis in _axes(sweeps):
        first = sweeps[axis[0]]
        for index in axis[1:]:
            n = len(sweeps[index].values)
            if n != len(first.values):
                problems.append((index, f"axis {first.axis!r} zips this sweep ({n} values) with the sweep of "
                                        f"option {first.option!r} ({len(first.values)} values); "
                                        "sweeps on one axis need the same number of values"))  # fmt: skip
    return problems


def grid_size(sweeps: Sequence[Any]) -> int:
    """How many points ``sweeps`` make (the product of their axes' lengths), without listing them."""
    return math.prod(len(sweeps[axis[0]].values) for axis in _axes(sweeps))


def sweep_points(sweeps: Sequence[Any]) -> list[tuple[tuple[str, Any], ...]]:
    """Every point of the sweep grid as (option, value) pairs in sweep order; ``[()]`` without sweeps.

    Sweeps on one named axis advance together; the axes are crossed, the first axis outermost.
    Lengths on an axis must agree (``axis_problems``); validation guarantees it for configs.
    """
    per_axis = []
    for axis in _axes(sweeps):
        length = len(sweeps[axis[0]].values)
        per_axis.append([tuple((sweeps[i].option, sweeps[i].values[k]) for i in axis) for k in range(length)])
    points = []
    for combination in itertools.product(*per_axis):
        pairs = dict(pair for part in combination for pair in part)
        points.append(tuple((sweep.option, pairs[sweep.option]) for sweep in sweeps))
    return points


# --- expansion ----------------------------------------------------------------------------------


def expand(config: RunConfig) -> list[Variant]:
    """The variants of a run: per method (in config order), one per point of its sweep grid."""
    conditions = config.sampling.conditions()
    variants = []
    for method in config.methods:
        for point in sweep_points(method.sweeps):
            options = {**to_plain(method.options), **dict(point)}
            payload = hash_payload(method, options)
            variants.append(
                Variant(
                    method=method,
                    options=MappingProxyType(options),
                    swept=point,
                    budgets=method.budgets,
                    conditions=conditions,
                    config_hash=config_hash(payload),
                    hash_payload=MappingProxyType(payload),
                )
            )
    return variants


def iter_cells(config: RunConfig) -> Iterator[Cell]:
    """Every variant x budget x condition of a run, variants outer, then budgets, then conditions."""
    for variant in expand(config):
        for budget, condition in variant.cells():
            yield Cell(variant, budget, condition)
