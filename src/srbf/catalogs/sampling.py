"""Turn a catalog entry into a problem: support, validation and out-of-range points with targets.

A problem is one formula plus points drawn from the ranges its catalog declares, with targets
computed without noise. Points whose target is not finite are redrawn (per-point rejection, so
the accepted points follow the declared distribution conditioned on the formula's valid domain);
when too few points are valid within a bounded budget the result is a *placeholder* that says
why, never an endless loop and never a silently missing problem.

Draws are deterministic: the key (catalog name, catalog version, problem id, seed, draw index)
is hashed with SHA-256 into one PCG64 stream per purpose (support, validation, out-of-range,
noise), so asking for a different support size, for noise or for OOD points never moves the
validation points. The inputs are bitwise identical on every machine (only exactly rounded
arithmetic is used to make them); a SHA-256 over the arrays travels with the problem.
Drawing the points (distributions, signs, streams, the redraw loop) is ``draws``' job; this
module builds problems from them and reads and writes them. docs/sampling.md is the long form
of this docstring.
"""

from __future__ import annotations

import functools
import hashlib
import math
import threading
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from srbf.catalogs.draws import (
    MIN_VALID_FRACTION,
    Evaluator,
    Plan,
    Shortfall,
    Stream,
    draw_inputs,
    fill,
    ood_plan,
    ood_range,
    plan_for,
)
from srbf.catalogs.streams import KEY_SCHEME, STREAMS, key_material, reset_generator, stream_generator
from srbf.catalogs.model import CatalogEntry, VariableSpec

__all__ = [
    "KEY_SCHEME",
    "STREAMS",
    "Problem",
    "ProblemSampler",
    "compile_entry",
    "draw_inputs",
    "load_problem_npz",
    "ood_range",
    "sample_problem",
    "save_problem_npz",
    "stream_generator",
]

NPZ_FORMAT = "srbf.problem/1"


# --------------------------------------------------------------------------------------------
# The problem record and its content hash.
# --------------------------------------------------------------------------------------------

_ARRAY_FIELDS = ("X_support", "y_support", "X_validation", "y_validation", "X_ood", "y_ood")


def _hash_arrays(pairs: Iterable[tuple[str, np.ndarray]]) -> str:
    """SHA-256 over ``name:shape;`` headers (shape like ``512x3``) and little-endian float64 bytes."""
    digest = hashlib.sha256()
    for name, array in pairs:
        array = np.ascontiguousarray(array, dtype="<f8")  # no copy for a drawn array
        digest.update(_header(name, array.shape))
        digest.update(array)
    return digest.hexdigest()


@functools.lru_cache(maxsize=256)  # a few shapes recur: (512, d) and (512,)
def _header(name: str, shape: tuple[int, ...]) -> bytes:
    return f"{name}:{'x'.join(map(str, shape))};".encode("ascii")


@dataclass(frozen=True, eq=False)
class Problem:
    """One drawn problem. Arrays are read-only; X has one column per variable, in order.

    ``y_support`` carries the label noise if any was asked for; validation and OOD targets are
    always clean. A placeholder (``placeholder_reason`` set) has empty (0, d) arrays. When OOD
    points were asked for but cannot be drawn (the formula has no valid domain outside its
    ranges), the problem is complete except for empty OOD arrays, and ``ood_reason`` says why.
    ``data_hash`` covers every array present; ``inputs_hash`` only the X arrays, which are
    bitwise identical on every machine, whereas targets may differ in the last bits between
    platforms' math libraries.
    """

    catalog: str
    catalog_version: int
    problem_id: str
    formula: str
    variables: tuple[str, ...]
    seed: int
    draw: int
    X_support: np.ndarray
    y_support: np.ndarray
    X_validation: np.ndarray
    y_validation: np.ndarray
    X_ood: np.ndarray | None = None
    y_ood: np.ndarray | None = None
    noise: float = 0.0
    data_hash: str = ""
    placeholder_reason: str | None = None
    ood_reason: str | None = None
    target: str = "y"

    @property
    def is_placeholder(self) -> bool:
        return self.placeholder_reason is not None

    @property
    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays present, in hashing order."""
        return {k: getattr(self, k) for k in _ARRAY_FIELDS if getattr(self, k) is not None}

    @functools.cached_property
    def inputs_hash(self) -> str:
        return _hash_arrays((k, a) for k, a in self.arrays.items() if k.startswith("X"))

    def verify(self) -> bool:
        """Whether the arrays still hash to ``data_hash``."""
        return _hash_arrays(self.arrays.items()) == self.data_hash


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _make_problem(ident: dict[str, Any], arrays: dict[str, np.ndarray], **extra: Any) -> Problem:
    """A new Problem with its data hash; its inputs hash is hashed when first asked for (a slot's
    FitTask needs it, the scoring pass only when the data hash differs)."""
    for a in arrays.values():
        a.setflags(write=False)
    data_hash = _hash_arrays((k, arrays[k]) for k in _ARRAY_FIELDS if k in arrays)
    return Problem(**ident, **arrays, **extra, data_hash=data_hash)


# --------------------------------------------------------------------------------------------
# Compiled formulas and samplers.
# --------------------------------------------------------------------------------------------


def compile_entry(entry: CatalogEntry) -> Evaluator:
    """The entry's formula compiled over its variables (raises if it does not parse)."""
    return _compile(entry.formula, entry.variable_names)


@functools.lru_cache(maxsize=8192)
def _compile(formula: str, names: tuple[str, ...]) -> Evaluator:
    from srbf.catalogs.admission import parse_formula  # the tree admission parsed, if it did
    from srbf.expr import compile_expr

    return compile_expr(parse_formula(formula, names), names)


class _Kernel:
    """Everything about one (formula, variables) pair that does not depend on the draw key."""

    def __init__(self, formula: str, variables: tuple[VariableSpec, ...], compiled: Evaluator | None):
        self.formula = formula
        self.variables = variables
        self.names = tuple(v.name for v in variables)
        self.error: str | None = None
        self.f = compiled
        self.plan: Plan | None = None
        try:
            self.plan = plan_for(variables)
        except ValueError as exc:
            self.error = f"invalid variable range: {exc}"
        if self.f is None and self.error is None:
            try:
                self.f = _compile(formula, self.names)
            except Exception as exc:  # noqa: BLE001 -- recorded in the placeholder
                self.error = f"formula does not compile: {type(exc).__name__}: {exc}"
        self.valid = 1.0  # last observed valid fractions: they size the first round (speed only)
        self.valid_ood = 1.0


_KERNELS: dict[tuple[str, tuple[VariableSpec, ...]], _Kernel] = {}  # this process's, oldest first
KERNEL_CACHE = 8192
_KERNELS_LOCK = threading.Lock()


def _kernel_for(formula: str, variables: tuple[VariableSpec, ...], compiled: Evaluator | None = None) -> _Kernel:
    """The process's one kernel of ``(formula, variables)``, made with ``compiled`` (the formula
    compiled by the caller) if it is new: every sampler of a formula shares its observed valid
    fractions (which size its first round: speed only), whether its caller parsed the formula or
    handed it compiled, so the scoring pass's redraws start from what the runner saw."""
    key = (formula, variables)
    kernel = _KERNELS.get(key)
    if kernel is None:
        kernel = _Kernel(formula, variables, compiled)
        with _KERNELS_LOCK:  # samplers may be made in several threads (a Dask worker's, a notebook's)
            kernel = _KERNELS.setdefault(key, kernel)  # one kernel per formula, even if two threads made one
            while len(_KERNELS) > KERNEL_CACHE:
                del _KERNELS[next(iter(_KERNELS))]
    return kernel


def _check_int(name: str, value: Any, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


class ProblemSampler:
    """Draws problems from one catalog entry, compiling its formula once.

    ``sample(seed=..., draw=...)`` gives the same points as :func:`sample_problem` with the same
    arguments; keeping the sampler saves the cache lookup and remembers the entry's observed
    valid fraction, so later draws of a formula with a partial domain need one round, not two.
    """

    def __init__(
        self,
        entry: CatalogEntry,
        *,
        catalog: str,
        catalog_version: int,
        compiled: Evaluator | None = None,
        min_valid_fraction: float = MIN_VALID_FRACTION,
    ):
        if not 0 < min_valid_fraction <= 1:
            raise ValueError(f"min_valid_fraction must be in (0, 1], got {min_valid_fraction}")
        self.entry = entry
        self.catalog = str(catalog)
        self.catalog_version = _check_int("catalog_version", catalog_version)
        self.min_valid_fraction = float(min_valid_fraction)
        self._kernel = _kernel_for(entry.formula, tuple(entry.variables), compiled)

    def sample(
        self,
        *,
        seed: int = 0,
        draw: int = 0,
        n_support: int = 512,
        n_validation: int = 512,
        noise: float = 0.0,
        ood: bool = False,
        n_ood: int | None = None,
    ) -> Problem:
        """One problem; a placeholder (with ``placeholder_reason``) when it cannot be drawn."""
        seed = _check_int("seed", seed)
        draw = _check_int("draw", draw, 0)
        n_support = _check_int("n_support", n_support, 1)
        n_validation = _check_int("n_validation", n_validation, 1)
        n_ood = n_validation if n_ood is None else _check_int("n_ood", n_ood, 1)
        noise = float(noise)
        if not (math.isfinite(noise) and noise >= 0):
            raise ValueError(f"noise must be a finite number >= 0, got {noise}")
        entry, k = self.entry, self._kernel
        ident = dict(
            catalog=self.catalog, catalog_version=self.catalog_version, problem_id=entry.id,
            formula=entry.formula, variables=k.names, seed=seed, draw=draw, target=entry.target,
        )  # fmt: skip
        d = len(k.names)
        if k.error is not None:
            return self._placeholder(ident, k.error, noise, ood)
        material = key_material(self.catalog, self.catalog_version, entry.id, seed, draw)
        try:
            arrays = self._draw(material, n_support, n_validation, noise)
        except Shortfall as exc:
            return self._placeholder(ident, str(exc), noise, ood)
        ood_reason = None
        if ood:
            try:
                arrays["X_ood"], arrays["y_ood"] = self._draw_ood(material, n_ood)
            except Shortfall as exc:
                arrays["X_ood"], arrays["y_ood"], ood_reason = np.empty((0, d)), np.empty(0), str(exc)
        return _make_problem(ident, arrays, noise=noise, ood_reason=ood_reason)

    def _draw(self, material: str, n_support: int, n_validation: int, noise: float) -> dict:
        k, floor = self._kernel, self.min_valid_fraction
        support = Stream("support", reset_generator(material, "support"), n_support, k.valid, floor)
        validation = Stream("validation", reset_generator(material, "validation"), n_validation, k.valid, floor)
        try:
            fill([support, validation], k.plan, k.f, floor, None)
        finally:
            drawn = support.drawn + validation.drawn
            if drawn:
                k.valid = (support.got + validation.got) / drawn
        X_support, y_support = support.result()
        X_validation, y_validation = validation.result()
        arrays = {"X_support": X_support, "y_support": y_support, "X_validation": X_validation,
                  "y_validation": y_validation}  # fmt: skip
        if noise > 0:
            eps = reset_generator(material, "noise").standard_normal(n_support)
            arrays["y_support"] = y_support + (noise * _std(y_support)) * eps
        return arrays

    def _draw_ood(self, material: str, n_ood: int) -> tuple[np.ndarray, np.ndarray]:
        k, floor = self._kernel, self.min_valid_fraction
        wide, inside = ood_plan(k.variables)
        if inside >= 1.0:
            raise Shortfall("ood: no out-of-range region (no variable's range can be widened)")
        stream = Stream("ood", reset_generator(material, "ood"), n_ood, k.valid_ood * (1.0 - inside), floor)
        try:
            fill([stream], wide, k.f, floor, (k.plan.low, k.plan.high))
        finally:
            if stream.drawn:
                k.valid_ood = min(1.0, stream.got / stream.drawn / (1.0 - inside))
        return stream.result()

    def _placeholder(self, ident: dict, reason: str, noise: float, ood: bool) -> Problem:
        d = len(ident["variables"])
        arrays = {"X_support": np.empty((0, d)), "y_support": np.empty(0),
                  "X_validation": np.empty((0, d)), "y_validation": np.empty(0)}  # fmt: skip
        if ood:
            arrays["X_ood"], arrays["y_ood"] = np.empty((0, d)), np.empty(0)
        return _make_problem(ident, arrays, noise=noise, placeholder_reason=reason)


def _std(y: np.ndarray) -> float:
    """Population standard deviation; rescaled first only if the plain sum overflows."""
    with np.errstate(all="ignore"):
        centred = y - y.mean()
        std = math.sqrt(float(centred @ centred) / len(y))
    if not math.isfinite(std):
        scale = float(np.max(np.abs(y)))
        std = scale * float(np.std(y / scale))
    return std


def sample_problem(
    entry: CatalogEntry, *, catalog: str, catalog_version: int, compiled: Evaluator | None = None, **options: Any
) -> Problem:
    """Draw one problem from ``entry`` (see the module docstring and docs/sampling.md).

    Parameters
    ----------
    entry : CatalogEntry
        The catalog entry: formula, variables and their ranges.
    catalog, catalog_version : str, int
        The catalog's name and version, part of the problem's identity.
    compiled : Evaluator, optional
        The entry's formula compiled over its variables; by default compiled once and cached by
        (formula, variables).
    **options
        Those of :meth:`ProblemSampler.sample`: ``seed`` and ``draw`` (default 0), ``n_support``
        and ``n_validation`` (512), ``noise`` (0.0: the relative label-noise level sigma on the
        support targets, y + sigma * std(y) * N(0, 1)), ``ood`` (False: add ``n_ood`` points from
        the widened ranges of :func:`ood_range`, each with a coordinate outside the original
        ones) and ``n_ood`` (default ``n_validation``).

    Returns
    -------
    Problem
        The arrays (``X_support``, ``y_support``, ``X_validation``, ``y_validation``, optional
        ``X_ood``/``y_ood``, read-only) with the identity that produced them (catalog, version,
        problem id, seed, draw, noise) and ``data_hash``. An entry finite on too few points gives
        a placeholder (``placeholder_reason`` says why) rather than an error.

    Raises
    ------
    TypeError
        A size, ``seed`` or ``draw`` that is not an integer.
    ValueError
        A size, ``seed`` or ``draw`` below its minimum, or a ``noise`` that is not a finite number >= 0.

    Notes
    -----
    The same (catalog, version, entry, seed, draw, sizes, noise) gives bit-identical arrays on
    every machine and in every process, so a stored fit can be judged again later on the very
    points the method saw, and two methods are compared on the same points.

    Examples
    --------
    >>> from srbf.catalogs.loader import load_catalog
    >>> catalog = load_catalog("nguyen")
    >>> problem = sample_problem(catalog.entries[0], catalog=catalog.name, catalog_version=catalog.version,
    ...                          seed=0, n_support=32, n_validation=16)
    >>> problem.problem_id, problem.variables, problem.X_support.shape, problem.y_validation.shape
    ('Nguyen-1', ('x1',), (32, 1), (16,))
    >>> again = sample_problem(catalog.entries[0], catalog="nguyen", catalog_version=1, seed=0,
    ...                        n_support=32, n_validation=16)
    >>> again.data_hash == problem.data_hash
    True
    """
    sampler = ProblemSampler(entry, catalog=catalog, catalog_version=catalog_version, compiled=compiled)
    return sampler.sample(**options)


# --------------------------------------------------------------------------------------------
# The .npz layout behind `srbf sample`.
# --------------------------------------------------------------------------------------------


def save_problem_npz(problem: Problem, path: str | Path) -> Path:
    """Write the problem's arrays and identity to ``path`` (an .npz readable without pickle)."""
    path = Path(path)
    meta = {
        "format": NPZ_FORMAT,
        "catalog": problem.catalog,
        "catalog_version": problem.catalog_version,
        "problem_id": problem.problem_id,
        "formula": problem.formula,
        "target": problem.target,
        "seed": problem.seed,
        "draw": problem.draw,
        "noise": problem.noise,
        "data_hash": problem.data_hash,
        "inputs_hash": problem.inputs_hash,
        "placeholder_reason": problem.placeholder_reason or "",
        "ood_reason": problem.ood_reason or "",
    }
    payload: dict[str, np.ndarray] = {k: np.asarray(v) for k, v in meta.items()}
    payload["variables"] = np.asarray(problem.variables, dtype=str)
    payload.update(problem.arrays)
    with open(path, "wb") as handle:  # np.savez would append .npz to a name without it
        np.savez_compressed(handle, **payload)
    return path


def load_problem_npz(path: str | Path, *, verify: bool = True) -> Problem:
    """Read a file written by :func:`save_problem_npz`; checks the data hash unless told not to."""
    with np.load(Path(path), allow_pickle=False) as data:
        fmt = str(data["format"]) if "format" in data.files else "?"
        if fmt != NPZ_FORMAT:
            raise ValueError(f"{path}: not an srbf problem file (format {fmt!r}, expected {NPZ_FORMAT!r})")
        arrays = {k: _frozen(np.array(data[k], dtype=np.float64)) for k in _ARRAY_FIELDS if k in data.files}
        problem = Problem(
            catalog=str(data["catalog"]),
            catalog_version=int(data["catalog_version"]),
            problem_id=str(data["problem_id"]),
            formula=str(data["formula"]),
            variables=tuple(str(v) for v in data["variables"]),
            seed=int(data["seed"]),
            draw=int(data["draw"]),
            noise=float(data["noise"]),
            data_hash=str(data["data_hash"]),
            placeholder_reason=str(data["placeholder_reason"]) or None,
            ood_reason=str(data["ood_reason"]) or None,
            target=str(data["target"]),
            **arrays,
        )
    if verify and not problem.verify():
        raise ValueError(f"{path}: arrays do not match the stored data hash {problem.data_hash}")
    return problem
