"""Draw input points: the per-variable distributions and sign rules, and rejection of invalid ones.

The point-drawing half of sampling (``sampling`` builds problems on top of it). A variable's value
is drawn from its range with its distribution (uniform, log-uniform, integer), then its sign rule
applies; :func:`draw_inputs` does this for a block of points, vectorised per variable, and
:func:`ood_range` widens a range for out-of-range points. Inputs use exactly rounded arithmetic
only (a portable exp and log), so they are bitwise identical on every machine.

The random numbers come from the seeded streams of ``streams`` (one per problem key and purpose).
:func:`fill` redraws the points of one or more streams whose target is not finite (per-point
rejection) within a bounded budget, and raises :class:`Shortfall` saying why when the budget runs
out. docs/sampling.md has the long form.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from decimal import Context, Decimal
from typing import Callable, Sequence

import numpy as np

from srbf.core import SrbfError
from srbf.catalogs.model import DISTRIBUTIONS, SIGNS, VariableSpec

__all__ = ["draw_inputs", "fill", "ood_range"]

MIN_VALID_FRACTION = 0.01  # a stream gives up after need / MIN_VALID_FRACTION drawn points
MAX_ROUNDS = 8  # the last round draws what is left of the budget (rounds set speed, not outcomes)

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
# Drawing inputs: a precomputed per-column plan applied to a block of uniforms.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Plan:
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
    clip_low: bool  # whether clipping at ``low`` can change a value (see :func:`_magnitudes`)
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
def plan_for(variables: tuple[VariableSpec, ...]) -> Plan:
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

    clip_low = bool(log_rows) or any(v == 0.0 and math.copysign(1.0, v) < 0 for v in low)
    return Plan(
        names, len(names) + len(both_rows), column(offset), column(scale), column(low), column(high), clip_low,
        _index(log_rows), _index(int_rows), column(sign) if -1.0 in sign else None, _index(both_rows),
    )  # fmt: skip


def _magnitudes(plan: Plan, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The values drawn from the ranges before the sign rule, as a (d, n) block, and U transposed."""
    T = np.ascontiguousarray(U.T)  # (width, n), a fresh array: worked on in place
    M = T[: plan.d]
    M *= plan.scale
    M += plan.offset
    if plan.log_rows is not None:
        M[plan.log_rows] = _portable_exp(M[plan.log_rows])
    if plan.int_rows is not None:
        M[plan.int_rows] = np.floor(M[plan.int_rows])
    if plan.clip_low:  # low + u * scale >= low (rounding is monotonic), floor too: only exp can undershoot
        np.maximum(M, plan.low, out=M)  # (a low of -0.0 is kept clipped: max(+0.0, -0.0) may give either)
    np.minimum(M, plan.high, out=M)  # rounding may land one ulp above a range
    return M, T


def _apply_signs(plan: Plan, M: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Apply each variable's sign rule to the (d, n) magnitudes, in place."""
    if plan.sign is not None:
        M *= plan.sign
    if plan.both_rows is not None:
        rows = plan.both_rows
        M[rows] = np.where(T[plan.d :] < 0.5, -M[rows], M[rows])
    return M


def draw_inputs(variables: Sequence[VariableSpec], n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` points from the declared ranges of ``variables``: a C-ordered (n, d) float64 array.

    No rejection here (that needs the formula; see :func:`fill` and ``sampling.sample_problem``). Each point uses
    d + (number of ``both``-sign variables) uniforms from ``rng``, consumed in order.
    Raises ValueError naming the variable when a range or rule is invalid.
    """
    plan = plan_for(tuple(variables))
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    U = rng.random((int(n), plan.width))
    M, T = _magnitudes(plan, U)
    return np.ascontiguousarray(_apply_signs(plan, M, T).T)


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


@functools.lru_cache(maxsize=4096)
def ood_plan(variables: tuple[VariableSpec, ...]) -> tuple[Plan, float]:
    """The plan for the widened ranges, and the chance a widened draw falls inside the original."""
    widened = tuple(ood_range(v) for v in variables)
    return plan_for(widened), _inside_fraction(variables, widened)


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


# --------------------------------------------------------------------------------------------
# Rejection: accept the first n rows of a stream whose target is finite (and, for OOD, that
# leave the original box). Round sizes only affect speed, never which points are accepted,
# whether a stream gives up, or what its shortfall says.
# --------------------------------------------------------------------------------------------


class Shortfall(SrbfError):
    """A stream ran out of budget; the message says how many points it got and needed."""


class Stream:
    """The accepted points of one stream: ``need`` of them, drawn from ``gen`` within a budget of
    ``need / floor`` points; ``prior`` (the valid fraction seen last time) sizes the first round.

    The stream succeeds iff its first ``budget`` points hold ``need`` acceptable ones: a function
    of the key and the budget, not of ``prior`` or the round sizes, which depend on what the
    process drew before (workers, chunking, resume order).
    """

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
        if self.rounds >= MAX_ROUNDS - 1:
            return self.budget - self.drawn  # the last round: the rest of the budget, never fewer
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

    @property
    def exhausted(self) -> bool:
        return self.drawn >= self.budget

    def shortfall(self, what: str) -> str:
        """Why the stream gave up: counts over exactly its budget's points (no rounds: history)."""
        return (
            f"{self.name}: only {self.got} of {self.drawn} points drawn {what}; {self.need} needed "
            f"(the budget of {self.budget} points allows a valid fraction down to {self.need / self.budget:.3g})"
        )


def fill(
    streams: list[Stream], plan: Plan, f: Evaluator, floor: float, box: tuple[np.ndarray, np.ndarray] | None
) -> None:
    """Redraw until every stream has its points, or raise Shortfall for the first stream, in
    order, whose budget runs out (a later stream's running out first waits for the earlier ones:
    which one gives up must not depend on round sizes).

    ``f`` computes the targets; a point is accepted when its target is finite and, when ``box``
    (the original ranges' magnitudes, low and high) is given, when it lies outside that box.
    """
    what = "with a finite target" if box is None else "outside the original ranges with a finite target"
    while True:
        active: list[Stream] = []
        for s in streams:
            if s.done:
                continue
            if not s.exhausted:
                active.append(s)
            elif not active:  # every stream before it has its points
                raise Shortfall(s.shortfall(what))
        if not active:
            return
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
        if np.count_nonzero(ok) == len(ok):  # ok.all(), without its Python wrapper
            ok = None
        start = 0
        for s, size in zip(active, sizes):
            part = slice(start, start + size)
            s.take(X[part], y[part], None if ok is None else ok[part], size)
            start += size

