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
docs/sampling.md is the long form of this docstring.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import threading
from dataclasses import dataclass
from decimal import Context, Decimal
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from srbf.catalogs.model import DISTRIBUTIONS, SIGNS, CatalogEntry, VariableSpec

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

KEY_SCHEME = "srbf.sample/1"  # bump if the mapping from key to points ever changes
STREAMS = ("support", "validation", "ood", "noise")
MIN_VALID_FRACTION = 0.01  # a stream gives up after need / MIN_VALID_FRACTION drawn points
MAX_ROUNDS = 8  # and after this many redraw rounds, whichever comes first
NPZ_FORMAT = "srbf.problem/1"

Evaluator = Callable[[np.ndarray], np.ndarray]


# --------------------------------------------------------------------------------------------
# Exactly rounded helpers: the same bits on every machine (no libm, no SIMD approximations).
# --------------------------------------------------------------------------------------------

_LN2_HI = float.fromhex("0x1.62e42fee00000p-1")  # 33 significant bits: k * _LN2_HI is exact
_LN2_LO = float.fromhex("0x1.a39ef35793c76p-33")
_INV_LN2 = float.fromhex("0x1.71547652b82fep+0")
_EXP_COEFFS = tuple(1.0 / math.factorial(k) for k in range(13, -1, -1))  # Horner, highest first


def _portable_exp(t: np.ndarray) -> np.ndarray:
    """exp(t) within a few ulp, from +, *, rint and ldexp only, so its bits are platform-free.

    NumPy's own exp dispatches to different SIMD or libm code per machine, whose last bits may
    differ; log-uniform draws go through this function instead.
    """
    k = np.rint(t * _INV_LN2)
    r = t - k * _LN2_HI
    r -= k * _LN2_LO  # |r| <= ln(2)/2; Taylor to degree 13 is exact to ~1e-17 there
    p = np.full_like(r, _EXP_COEFFS[0])
    for c in _EXP_COEFFS[1:]:
        p *= r
        p += c
    return np.ldexp(p, k.astype(np.int64))


_DECIMAL = Context(prec=40)


def _portable_log(x: float) -> float:
    """ln(x) correctly rounded (software decimal arithmetic, identical everywhere)."""
    return float(Decimal(x).ln(_DECIMAL))


# --------------------------------------------------------------------------------------------
# Out-of-range widening.
# --------------------------------------------------------------------------------------------


def ood_range(spec: VariableSpec) -> VariableSpec:
    """The widened range OOD points are drawn from; distribution and sign rule are kept.

    uniform [a, b], width w: [a - w/2, b + w/2], except that a range on one side of zero stays
    there: if a >= 0 the low end is max(a - w/2, a/2), if b <= 0 the high end is min(b + w/2, b/2).
    integer: the same with a half-width of at least 1, so a short range still gains integers.
    log_uniform [a, b]: half the log-width on each side, [a/r, b*r] with r = sqrt(b/a).
    """
    _check_spec(spec)
    low, high = float(spec.low), float(spec.high)
    if spec.distribution == "log_uniform":
        r = math.sqrt(high / low)
        new_low, new_high = low / r, high * r
    else:
        width = high - low
        half = max(width, 2.0) / 2 if spec.distribution == "integer" else width / 2
        new_low, new_high = low - half, high + half
        if low >= 0:
            new_low = max(new_low, low / 2)
        if high <= 0:
            new_high = min(new_high, high / 2)
    return VariableSpec(spec.name, new_low, new_high, spec.distribution, spec.sign)


# --------------------------------------------------------------------------------------------
# Drawing inputs: a precomputed per-column plan applied to a block of uniforms.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Plan:
    """How to turn rows of uniforms in [0, 1) into input points, vectorised per variable.

    Each point consumes ``width`` = d + (number of ``both``-sign variables) uniforms: the first d
    place the magnitudes, the rest pick the signs. Rows are consumed in order, so the points of a
    stream do not depend on how many are drawn at a time. The work is done on the transposed
    block (one contiguous row per variable), where NumPy's per-variable broadcasts are fast.
    """

    names: tuple[str, ...]
    width: int
    offset: np.ndarray  # (d, 1): magnitude = offset + u * scale (log space for log_uniform)
    scale: np.ndarray
    low: np.ndarray  # (d, 1): magnitudes are clipped to [low, high] (integer: integer bounds)
    high: np.ndarray
    log_rows: np.ndarray | None
    int_rows: np.ndarray | None
    sign: np.ndarray | None  # (d, 1) of +1 / -1 for the ``negative`` rule; None if all +1
    both_rows: np.ndarray | None

    @property
    def d(self) -> int:
        return len(self.names)


def _index(rows: list[int]) -> np.ndarray | None:
    return np.asarray(rows, dtype=np.intp) if rows else None


def _check_spec(spec: VariableSpec) -> None:
    def bad(what: str) -> ValueError:
        return ValueError(f"variable {spec.name!r}: {what}")

    if spec.distribution not in DISTRIBUTIONS:
        raise bad(f"distribution {spec.distribution!r} is not one of {', '.join(DISTRIBUTIONS)}")
    if spec.sign not in SIGNS:
        raise bad(f"sign {spec.sign!r} is not one of {', '.join(SIGNS)}")
    low, high = float(spec.low), float(spec.high)
    if not (math.isfinite(low) and math.isfinite(high)):
        raise bad(f"range [{spec.low}, {spec.high}] is not finite")
    if low > high:
        raise bad(f"range [{spec.low}, {spec.high}] has low > high")
    if spec.distribution == "log_uniform" and low <= 0:
        raise bad(f"log_uniform needs 0 < low, got range [{spec.low}, {spec.high}]")
    if spec.distribution == "integer" and math.ceil(low) > math.floor(high):
        raise bad(f"integer range [{spec.low}, {spec.high}] holds no integer")


@functools.lru_cache(maxsize=4096)
def _plan_for(variables: tuple[VariableSpec, ...]) -> _Plan:
    names = tuple(v.name for v in variables)
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate variable names in {', '.join(names)}")
    offset, scale, low, high, sign = [], [], [], [], []
    log_rows, int_rows, both_rows = [], [], []
    for j, spec in enumerate(variables):
        _check_spec(spec)
        lo, hi = float(spec.low), float(spec.high)
        if spec.distribution == "log_uniform":
            log_lo, log_hi = _portable_log(lo), _portable_log(hi)
            offset.append(log_lo)
            scale.append(log_hi - log_lo)
            log_rows.append(j)
        elif spec.distribution == "integer":
            lo, hi = float(math.ceil(lo)), float(math.floor(hi))
            offset.append(lo)
            scale.append(hi - lo + 1.0)  # floor(lo + u * count) is uniform over the integers
            int_rows.append(j)
        else:
            offset.append(lo)
            scale.append(hi - lo)
        low.append(lo)
        high.append(hi)
        sign.append(-1.0 if spec.sign == "negative" else 1.0)
        if spec.sign == "both":
            both_rows.append(j)

    def column(values: list[float]) -> np.ndarray:
        a = np.asarray(values, dtype=np.float64).reshape(-1, 1)
        a.setflags(write=False)
        return a

    return _Plan(
        names, len(names) + len(both_rows), column(offset), column(scale), column(low), column(high),
        _index(log_rows), _index(int_rows), column(sign) if -1.0 in sign else None, _index(both_rows),
    )  # fmt: skip


def _magnitudes(plan: _Plan, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The values drawn from the ranges before the sign rule, as a (d, n) block, and U transposed."""
    T = np.ascontiguousarray(U.T)  # (width, n), a fresh array: worked on in place
    M = T[: plan.d]
    M *= plan.scale
    M += plan.offset
    if plan.log_rows is not None:
        M[plan.log_rows] = _portable_exp(M[plan.log_rows])
    if plan.int_rows is not None:
        M[plan.int_rows] = np.floor(M[plan.int_rows])
    np.maximum(M, plan.low, out=M)  # rounding may land one ulp outside a range
    np.minimum(M, plan.high, out=M)
    return M, T


def _apply_signs(plan: _Plan, M: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Apply each variable's sign rule to the (d, n) magnitudes, in place."""
    if plan.sign is not None:
        M *= plan.sign
    if plan.both_rows is not None:
        rows = plan.both_rows
        M[rows] = np.where(T[plan.d :] < 0.5, -M[rows], M[rows])
    return M


def draw_inputs(variables: Sequence[VariableSpec], n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` points from the declared ranges of ``variables``: a C-ordered (n, d) float64 array.

    No rejection here (that needs the formula; see :func:`sample_problem`). Each point uses
    d + (number of ``both``-sign variables) uniforms from ``rng``, consumed in order.
    Raises ValueError naming the variable when a range or rule is invalid.
    """
    plan = _plan_for(tuple(variables))
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    U = rng.random((int(n), plan.width))
    M, T = _magnitudes(plan, U)
    return np.ascontiguousarray(_apply_signs(plan, M, T).T)


# --------------------------------------------------------------------------------------------
# Deterministic streams.
# --------------------------------------------------------------------------------------------


def _key_material(catalog: str, catalog_version: int, problem_id: str, seed: int, draw: int) -> str:
    return json.dumps([KEY_SCHEME, catalog, catalog_version, problem_id, seed, draw], separators=(",", ":"))


def _stream_state(material: str, stream: str) -> dict[str, Any]:
    digest = hashlib.sha256(f"{material}:{stream}".encode("ascii")).digest()
    state = int.from_bytes(digest[:16], "little")
    inc = int.from_bytes(digest[16:], "little") | 1  # PCG64 increments are odd
    return {"bit_generator": "PCG64", "state": {"state": state, "inc": inc}, "has_uint32": 0, "uinteger": 0}


def stream_generator(
    catalog: str, catalog_version: int, problem_id: str, seed: int, draw: int, stream: str
) -> np.random.Generator:
    """A fresh Generator positioned at the start of one stream of a problem key.

    The state of stream ``s`` is the SHA-256 of ``material + ":" + s``, where ``material`` is the
    compact JSON list ``["srbf.sample/1", catalog, catalog_version, problem_id, seed, draw]``:
    the first 16 bytes (little-endian) are the PCG64 state, the last 16 (with the low bit set)
    its increment. This is the whole recipe; docs/sampling.md repeats it for other languages.
    """
    if stream not in STREAMS:
        raise ValueError(f"stream must be one of {', '.join(STREAMS)}, got {stream!r}")
    bit_generator = np.random.PCG64(0)
    bit_generator.state = _stream_state(_key_material(catalog, catalog_version, problem_id, seed, draw), stream)
    return np.random.Generator(bit_generator)


class _Generators(threading.local):
    """One reusable Generator per stream and thread: building a PCG64 costs ~25 us, a reset ~2."""

    def __init__(self) -> None:
        self.by_stream = {s: np.random.Generator(np.random.PCG64(0)) for s in STREAMS}

    def get(self, material: str, stream: str) -> np.random.Generator:
        gen = self.by_stream[stream]
        gen.bit_generator.state = _stream_state(material, stream)
        return gen


_GENERATORS = _Generators()


# --------------------------------------------------------------------------------------------
# The problem record and its content hash.
# --------------------------------------------------------------------------------------------

_ARRAY_FIELDS = ("X_support", "y_support", "X_validation", "y_validation", "X_ood", "y_ood")


def _hash_arrays(pairs: Iterable[tuple[str, np.ndarray]]) -> str:
    """SHA-256 over ``name:shape;`` headers (shape like ``512x3``) and little-endian float64 bytes."""
    h = hashlib.sha256()
    for name, array in pairs:
        array = np.ascontiguousarray(array, dtype="<f8")
        h.update(f"{name}:{'x'.join(map(str, array.shape))};".encode("ascii"))
        h.update(array)
    return h.hexdigest()


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
    for a in arrays.values():
        a.setflags(write=False)
    return Problem(**ident, **arrays, data_hash=_hash_arrays(arrays.items()), **extra)


# --------------------------------------------------------------------------------------------
# Rejection: accept the first n rows of a stream whose target is finite (and, for OOD, that
# leave the original box). Round sizes only affect speed, never which points are accepted.
# --------------------------------------------------------------------------------------------


class _Shortfall(Exception):
    pass


class _Stream:
    __slots__ = ("name", "gen", "need", "budget", "prior", "drawn", "got", "parts", "rounds")

    def __init__(self, name: str, gen: np.random.Generator, need: int, prior: float, floor: float):
        self.name, self.gen, self.need = name, gen, need
        self.budget = math.ceil(need / floor)
        self.prior = min(1.0, max(prior, floor))
        self.drawn = self.got = self.rounds = 0
        self.parts: list[tuple[np.ndarray, np.ndarray]] = []

    @property
    def done(self) -> bool:
        return self.got >= self.need

    def next_size(self, floor: float) -> int:
        left = self.need - self.got
        if self.drawn == 0:
            p, slack = self.prior, (1.0 if self.prior >= 1.0 else 1.1)
        else:
            p, slack = max(self.got / self.drawn, floor), 1.2
        size = left if p >= 1.0 and slack == 1.0 else math.ceil(left / p * slack) + 16
        return min(size, self.budget - self.drawn)

    def take(self, X: np.ndarray, y: np.ndarray, ok: np.ndarray | None, size: int) -> None:
        self.drawn += size
        self.rounds += 1
        if ok is not None:
            X, y = X[ok], y[ok]
        if len(y):
            self.parts.append((X, y))
            self.got += len(y)

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        if len(self.parts) == 1:
            X, y = self.parts[0]
        else:
            X = np.concatenate([p[0] for p in self.parts])
            y = np.concatenate([p[1] for p in self.parts])
        return X[: self.need], y[: self.need]

    def shortfall(self, what: str) -> str:
        return (
            f"{self.name}: only {self.got} of {self.drawn} points drawn {what}; {self.need} needed "
            f"(gave up after {self.rounds} rounds; the budget of {self.budget} points allows a "
            f"valid fraction down to {self.need / self.budget:.3g})"
        )


def _fill(
    streams: list[_Stream], plan: _Plan, f: Evaluator, floor: float, box: tuple[np.ndarray, np.ndarray] | None
) -> None:
    """Redraw until every stream has its points or runs out of budget (raises _Shortfall)."""
    what = "with a finite target" if box is None else "outside the original ranges with a finite target"
    while True:
        active = [s for s in streams if not s.done]
        if not active:
            return
        for s in active:
            if s.drawn >= s.budget or s.rounds >= MAX_ROUNDS:
                raise _Shortfall(s.shortfall(what))
        sizes = [s.next_size(floor) for s in active]
        U = np.empty((sum(sizes), plan.width))
        start = 0
        for s, size in zip(active, sizes):
            s.gen.random(out=U[start : start + size])
            start += size
        M, T = _magnitudes(plan, U)
        outside = None
        if box is not None:
            outside = ((M < box[0]) | (M > box[1])).any(axis=0)
        M = _apply_signs(plan, M, T)
        y = np.asarray(f(M.T), dtype=np.float64)  # M.T: columns per variable, no copy needed
        if y.shape != (M.shape[1],):
            y = np.broadcast_to(y, (M.shape[1],)).copy()
        X = np.ascontiguousarray(M.T)
        ok = np.isfinite(y)
        if outside is not None:
            ok &= outside
        if ok.all():
            ok = None
        start = 0
        for s, size in zip(active, sizes):
            part = slice(start, start + size)
            s.take(X[part], y[part], None if ok is None else ok[part], size)
            start += size


# --------------------------------------------------------------------------------------------
# Compiled formulas and samplers.
# --------------------------------------------------------------------------------------------


def compile_entry(entry: CatalogEntry) -> Evaluator:
    """The entry's formula compiled over its variables (raises if it does not parse)."""
    return _compile(entry.formula, entry.variable_names)


@functools.lru_cache(maxsize=8192)
def _compile(formula: str, names: tuple[str, ...]) -> Evaluator:
    from srbf.expr import compile_expr, parse

    return compile_expr(parse(formula, variables=list(names)), names)


class _Kernel:
    """Everything about one (formula, variables) pair that does not depend on the draw key."""

    def __init__(self, formula: str, variables: tuple[VariableSpec, ...], compiled: Evaluator | None):
        self.formula = formula
        self.variables = variables
        self.names = tuple(v.name for v in variables)
        self.error: str | None = None
        self.f = compiled
        self.plan: _Plan | None = None
        try:
            self.plan = _plan_for(variables)
        except ValueError as exc:
            self.error = f"invalid variable range: {exc}"
        if self.f is None and self.error is None:
            try:
                self.f = _compile(formula, self.names)
            except Exception as exc:  # noqa: BLE001 -- recorded in the placeholder
                self.error = f"formula does not compile: {type(exc).__name__}: {exc}"
        self.valid = 1.0  # last observed valid fractions: they size the first round (speed only)
        self.valid_ood = 1.0


@functools.lru_cache(maxsize=4096)
def _ood_setup(variables: tuple[VariableSpec, ...]) -> tuple[_Plan, float]:
    """The plan for the widened ranges, and the chance a widened draw falls inside the original."""
    widened = tuple(ood_range(v) for v in variables)
    return _plan_for(widened), _inside_fraction(variables, widened)


def _inside_fraction(original: Sequence[VariableSpec], widened: Sequence[VariableSpec]) -> float:
    fraction = 1.0
    for a, b in zip(original, widened):
        if a.distribution == "log_uniform":
            num, den = math.log(a.high / a.low), math.log(b.high / b.low)
        elif a.distribution == "integer":
            num = math.floor(a.high) - math.ceil(a.low) + 1
            den = math.floor(b.high) - math.ceil(b.low) + 1
        else:
            num, den = a.high - a.low, b.high - b.low
        fraction *= num / den if den > 0 else 1.0
    return fraction


@functools.lru_cache(maxsize=8192)
def _kernel_for(formula: str, variables: tuple[VariableSpec, ...]) -> _Kernel:
    return _Kernel(formula, variables, None)


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
        variables = tuple(entry.variables)
        self._kernel = (
            _kernel_for(entry.formula, variables)
            if compiled is None
            else _Kernel(entry.formula, variables, compiled)
        )

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
        material = _key_material(self.catalog, self.catalog_version, entry.id, seed, draw)
        try:
            arrays = self._draw(material, n_support, n_validation, noise)
        except _Shortfall as exc:
            return self._placeholder(ident, str(exc), noise, ood)
        ood_reason = None
        if ood:
            try:
                arrays["X_ood"], arrays["y_ood"] = self._draw_ood(material, n_ood)
            except _Shortfall as exc:
                arrays["X_ood"], arrays["y_ood"], ood_reason = np.empty((0, d)), np.empty(0), str(exc)
        return _make_problem(ident, arrays, noise=noise, ood_reason=ood_reason)

    def _draw(self, material: str, n_support: int, n_validation: int, noise: float) -> dict:
        k, floor = self._kernel, self.min_valid_fraction
        support = _Stream("support", _GENERATORS.get(material, "support"), n_support, k.valid, floor)
        validation = _Stream("validation", _GENERATORS.get(material, "validation"), n_validation, k.valid, floor)
        try:
            _fill([support, validation], k.plan, k.f, floor, None)
        finally:
            drawn = support.drawn + validation.drawn
            if drawn:
                k.valid = (support.got + validation.got) / drawn
        X_support, y_support = support.result()
        X_validation, y_validation = validation.result()
        arrays = {"X_support": X_support, "y_support": y_support, "X_validation": X_validation,
                  "y_validation": y_validation}  # fmt: skip
        if noise > 0:
            eps = _GENERATORS.get(material, "noise").standard_normal(n_support)
            arrays["y_support"] = y_support + (noise * _std(y_support)) * eps
        return arrays

    def _draw_ood(self, material: str, n_ood: int) -> tuple[np.ndarray, np.ndarray]:
        k, floor = self._kernel, self.min_valid_fraction
        ood_plan, inside = _ood_setup(k.variables)
        if inside >= 1.0:
            raise _Shortfall("ood: no out-of-range region (no variable's range can be widened)")
        stream = _Stream("ood", _GENERATORS.get(material, "ood"), n_ood, k.valid_ood * (1.0 - inside), floor)
        try:
            _fill([stream], ood_plan, k.f, floor, (k.plan.low, k.plan.high))
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
    entry: CatalogEntry,
    *,
    catalog: str,
    catalog_version: int,
    seed: int = 0,
    draw: int = 0,
    n_support: int = 512,
    n_validation: int = 512,
    noise: float = 0.0,
    ood: bool = False,
    n_ood: int | None = None,
    compiled: Evaluator | None = None,
) -> Problem:
    """Draw one problem from ``entry`` (see the module docstring and docs/sampling.md).

    ``noise`` is the relative label-noise level sigma on the support targets,
    y + sigma * std(y) * N(0, 1); ``ood`` adds ``n_ood`` (default ``n_validation``) points from the
    widened ranges (:func:`ood_range`) with at least one coordinate outside the original ones.
    ``compiled`` is the entry's formula compiled over its variables; by default it is compiled
    once and cached by (formula, variables).
    """
    sampler = ProblemSampler(entry, catalog=catalog, catalog_version=catalog_version, compiled=compiled)
    return sampler.sample(
        seed=seed, draw=draw, n_support=n_support, n_validation=n_validation, noise=noise, ood=ood, n_ood=n_ood
    )


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
