"""Compact-benchmark distillation after SymbolicArena (docs/distill.md): a validated core subset.

From probe records (a results store: several methods x K repeats on a task set), ``build``
chooses the probes by calibration usability (``probes``), describes every task (``descriptors``,
``structure``, ``duplicates``), and searches the core that maximises J = 0.45 Coverage + 0.35
MeanInfo + 0.20 Balance within the feasible set (``objective``, ``constraints``, ``search``),
written as a catalog srbf runs (``core_file``). ``validate`` measures how well a core reproduces
the full set's aggregate scores and ranking, against six alternative selectors (``selectors``).
"""

from srbf.distill.build import (
           CoreResult,
           choose_probes,
           distill_core,
           full_set,
           validate_core,
)
from srbf.distill.duplicates import RULE, duplicate_groups
from srbf.distill.errors import DistillError
from srbf.distill.records import Records, load_records

__all__ = ["RULE", "CoreResult", "DistillError", "Records", "choose_probes", "distill_core", "duplicate_groups",
           "full_set", "load_records", "validate_core"]
