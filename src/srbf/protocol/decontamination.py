"""Decontamination: is every benchmark problem verifiably held out of a method's training data?

The check fails closed. A problem is *held out* only when srbf can show it: its skeleton
(``protocol.skeletons``) is absent from the training catalog's skeletons, or present on the
generator's holdout list. It is *missed* when the training source has it (or, for a generator,
does not refuse it), and *unverifiable* when the question cannot be settled (its own formula has
no skeleton, or the training source has entries that could not be read); only a run where every
problem is held out passes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from srbf.catalogs.model import Catalog
from srbf.expr.parser import parse
from srbf.expr.syntax import ParseError
from srbf.protocol.skeletons import skeleton
from srbf.protocol.training import GENERATOR, TrainingSource

__all__ = ["HELD_OUT", "MISSED", "UNVERIFIABLE", "SetCheck", "check_catalog", "check_problem"]

HELD_OUT, MISSED, UNVERIFIABLE = "held_out", "missed", "unverifiable"


@dataclass(frozen=True)
class SetCheck:
    """One catalog's verdicts: ``missed`` ids (with why) and ``unverifiable`` ids with the reason."""

    name: str
    total: int
    held_out: int
    missed: dict[str, str] = field(default_factory=dict)
    unverifiable: dict[str, str] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.held_out == self.total

    def to_dict(self) -> dict:
        return {"total": self.total, "held_out": self.held_out, "missed": sorted(self.missed),
                "missed_why": dict(self.missed),
                "unverifiable": [{"id": pid, "reason": why} for pid, why in self.unverifiable.items()]}


def _unreadable_reason(training: TrainingSource) -> str:
    first = training.unreadable[0]
    more = f" (and {len(training.unreadable) - 1} more)" if len(training.unreadable) > 1 else ""
    return f"{training.label} has entries that cannot be read, any of which could be this formula: {first}{more}"


def check_problem(formula: str, variables, training: TrainingSource) -> tuple[str, str]:
    """(verdict, why) for one benchmark formula against a training source."""
    try:
        found = skeleton(parse(formula, list(variables)), training.level)
    except ParseError as error:
        return UNVERIFIABLE, f"the problem's formula does not parse: {error}"
    if not found.complete:
        return UNVERIFIABLE, "the problem's canonical form did not finish within the time limit"
    if training.kind == GENERATOR:
        if found.text in training.texts:
            return HELD_OUT, ""
        if training.unreadable:
            return UNVERIFIABLE, _unreadable_reason(training)
        if not found.exhaustive and found.shape in training.shapes:
            return UNVERIFIABLE, "its variables have too many symmetric orders to match the holdout list exactly"
        return MISSED, f"not on {training.label}'s holdout list"
    if found.text in training.texts:
        return MISSED, f"its skeleton is in {training.label}"
    if found.shape in training.inexact_shapes or (not found.exhaustive and found.shape in training.shapes):
        return MISSED, f"an entry of {training.label} has its shape (variables too symmetric to compare names exactly)"
    if training.unreadable:
        return UNVERIFIABLE, _unreadable_reason(training)
    return HELD_OUT, ""


def check_catalog(catalog: Catalog, training: TrainingSource) -> SetCheck:
    """Every problem of ``catalog`` checked against ``training``."""
    missed, unverifiable = {}, {}
    for entry in catalog.entries:
        verdict, why = check_problem(entry.formula, entry.variable_names, training)
        if verdict == MISSED:
            missed[entry.id] = why
        elif verdict == UNVERIFIABLE:
            unverifiable[entry.id] = why
    held = len(catalog) - len(missed) - len(unverifiable)
    return SetCheck(catalog.name, len(catalog), held, missed, unverifiable)
