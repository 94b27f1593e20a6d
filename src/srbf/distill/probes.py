"""Probe selection by calibration usability (SymbolicArena's Appendix C.2), in exact arithmetic.

For a method a over the N runs it was scheduled on the records' tasks (every task and repeat:
srbf's records hold K repeats where the seed had one run per task):

- q(a) = the share of runs with a finite, non-negative NMSE on the training, ID and OOD points (a
  task without OOD points asks for the first two);
- b_tau(a) = the share of runs with such an NMSE above tau on the ID or the OOD points;
- H(a) = alpha q(a) + (1 - alpha) (1 - b_tau(a)), alpha = 1/2, tau = 100.

A panel P of ``size`` methods (4) is feasible when its members cover at least ``min_paradigms``
primary paradigms (3; the paradigm of each method from its method.yaml or srbf's built-in table);
its usability is U(P) = the mean of H over P. Every feasible panel is scored with ``Fraction``,
so equal scores are equal exactly, and every panel at the maximum is reported.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from srbf.distill.errors import DistillError
from srbf.distill.records import Records

__all__ = ["ALPHA", "TAU", "PanelChoice", "Usability", "paradigms_of", "select_panel", "usability"]

ALPHA = Fraction(1, 2)
TAU = 100.0
PANEL_SIZE = 4
MIN_PARADIGMS = 3


@dataclass(frozen=True)
class Usability:
    """One method's q, b_tau and H (exact), from ``runs`` scheduled runs."""

    method: str
    paradigm: str
    runs: int
    q: Fraction
    b: Fraction
    h: Fraction


@dataclass(frozen=True)
class PanelChoice:
    """Every optimal panel (sorted names), the best U, how many panels were feasible, and the
    ``ranked`` top panels as (U, panel) for the table."""

    optima: list[tuple[str, ...]]
    best: Fraction
    feasible: int
    total: int
    ranked: list[tuple[Fraction, tuple[str, ...]]]


def paradigms_of(records: Records) -> dict[str, str]:
    """Each method key's primary paradigm, from the roster or the built-in table; DistillError
    naming a method that has none (a method file of your own: give ``--probes``)."""
    from srbf.methods import roster
    from srbf.methods.builtin import BUILTIN_PARADIGMS

    out = {}
    for key, name in sorted(records.method_names().items()):
        if name in BUILTIN_PARADIGMS:
            out[key] = BUILTIN_PARADIGMS[name]
            continue
        try:
            out[key] = roster.get(name).paradigm
        except roster.UnknownMethod:
            raise DistillError(f"method {key}: no paradigm is declared for {name!r} (not on srbf's roster); "
                               "pass --probes A,B,C,D") from None  # fmt: skip
    return out


def _finite(values: np.ndarray) -> np.ndarray:
    return np.isfinite(values) & (values >= 0)


def usability(records: Records, paradigms: Mapping[str, str], *, alpha: Fraction = ALPHA, tau: float = TAU) -> list[Usability]:
    """q, b_tau and H of every method of the records (the schedule: tasks x repeats)."""
    runs = records.runs
    if runs["nmse_train"].isna().all():
        raise DistillError(f"records {records.source}: no training errors (fvu_support): run `srbf score` on the "
                           "store first, or pass --probes A,B,C,D")  # fmt: skip
    has_ood = runs.groupby("task")["nmse_ood"].transform(lambda s: bool(_finite(s.to_numpy(float)).any())).to_numpy(bool)
    scheduled = len(records.tasks) * records.repeats
    out = []
    for method in records.methods:
        mine = runs["method"].to_numpy() == method
        train, id_, ood = (runs.loc[mine, c].to_numpy(float) for c in ("nmse_train", "nmse_id", "nmse_ood"))
        ood_needed = has_ood[mine]
        joint = _finite(train) & _finite(id_) & (_finite(ood) | ~ood_needed)
        explode = (_finite(id_) & (id_ > tau)) | (_finite(ood) & (ood > tau))
        q, b = Fraction(int(joint.sum()), scheduled), Fraction(int(explode.sum()), scheduled)
        h = alpha * q + (1 - alpha) * (1 - b)
        out.append(Usability(method, paradigms.get(method, ""), scheduled, q, b, h))
    return out


def select_panel(scores: Sequence[Usability], *, size: int = PANEL_SIZE, min_paradigms: int = MIN_PARADIGMS,
                 top: int = 5) -> PanelChoice:  # fmt: skip
    """The panels of ``size`` covering ``min_paradigms`` paradigms with the largest mean H.
    DistillError in one line when no panel is feasible (too few methods or paradigms)."""
    candidates = [s for s in scores if s.paradigm != "reference"]  # the oracle searches nothing
    covered = sorted({s.paradigm for s in candidates})
    if len(candidates) < size:
        raise DistillError(f"probe selection: {len(candidates)} candidate method(s), a panel needs {size}; "
                           "pass --probes")  # fmt: skip
    if len(covered) < min_paradigms:
        raise DistillError(f"probe selection: the {len(candidates)} recorded methods cover {len(covered)} paradigm(s) "
                           f"({', '.join(covered)}), so no {size}-method panel covers {min_paradigms}: pass "
                           f"--probes A,B,C,D or --min-paradigms {len(covered)}")  # fmt: skip
    panels = []
    for panel in itertools.combinations(sorted(candidates, key=lambda s: s.method), size):
        if len({s.paradigm for s in panel}) >= min_paradigms:
            panels.append((sum((s.h for s in panel), Fraction(0)) / size, tuple(s.method for s in panel)))
    if not panels:
        raise DistillError(f"probe selection: no {size}-method panel covers {min_paradigms} paradigms "
                           f"(found: {', '.join(covered)}); pass --probes or a smaller --min-paradigms")  # fmt: skip
    panels.sort(key=lambda item: (-item[0], item[1]))
    best = panels[0][0]
    optima = [panel for u, panel in panels if u == best]
    return PanelChoice(optima, best, len(panels), math.comb(len(candidates), size), panels[: max(top, len(optima))])
