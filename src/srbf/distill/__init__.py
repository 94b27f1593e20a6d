"""Compact-benchmark distillation after SymbolicArena (docs/distill.md): a validated core subset.

From probe records (a results store: several methods x K repeats on a task set), ``build``
chooses the probes by calibration usability (``probes``), describes every task (``descriptors``,
``structure``, ``duplicates``), and searches the core that maximises J = 0.45 Coverage + 0.35
MeanInfo + 0.20 Balance within the feasible set (``objective``, ``constraints``, ``search``),
written as a catalog srbf runs (``core_file``). ``validate`` measures how well a core reproduces
the full set's aggregate scores and ranking, against six alternative selectors (``selectors``).
"""

from __future__ import annotations

from srbf.core import lazy_attributes

_EXPORTS = {
    "CoreResult": "srbf.distill.build",
    "choose_probes": "srbf.distill.build",
    "distill_core": "srbf.distill.build",
    "full_set": "srbf.distill.build",
    "validate_core": "srbf.distill.build",
    "RULE": "srbf.distill.duplicates",
    "duplicate_groups": "srbf.distill.duplicates",
    "DistillError": "srbf.distill.errors",
    "Records": "srbf.distill.records",
    "load_records": "srbf.distill.records",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_attributes(__name__, _EXPORTS)
