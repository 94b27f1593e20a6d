"""The two passes the command runs: distil a core from records, and validate a core against them.

``distill_core``: records -> probes (given, or chosen by ``probes.select_panel``) -> descriptors
of every task -> constraints and objective over the eligible tasks -> search -> the core file.
``validate_core``: a core file and records -> the full set's descriptors and task scores -> the
fidelity table against the six selectors (``validate``) -> its files (``validation_files``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from srbf.distill.constraints import BETA, UNBOUNDED, check, constraints
from srbf.distill.core_file import core_document, read_core, write_core
from srbf.distill.descriptors import descriptors
from srbf.distill.errors import DistillError
from srbf.distill.objective import WEIGHTS, Objective, Terms
from srbf.distill.probes import (
    MIN_PARADIGMS,
    PanelChoice,
    paradigms_of,
    select_panel,
    usability,
)
from srbf.distill.records import Records, load_records
from srbf.distill.scores import PENALTY, task_scores
from srbf.distill.search import DEFAULT_STARTS, search
from srbf.distill.structure import structure
from srbf.distill.validate import DEFAULT_DRAWS, Validation, validate

__all__ = ["CoreResult", "choose_probes", "distill_core", "full_set", "validate_core"]


@dataclass(frozen=True)
class CoreResult:
    path: Path
    tasks: list[str]
    probes: list[str]
    terms: Terms
    panel: PanelChoice | None
    eligible: int
    total: int


def choose_probes(records: Records, *, min_paradigms: int = MIN_PARADIGMS) -> PanelChoice:
    """The optimal probe panels of the records by calibration usability."""
    return select_panel(usability(records, paradigms_of(records)), min_paradigms=min_paradigms)


def full_set(records: Records, probes: Sequence[str]) -> pd.DataFrame:
    """Every task's descriptors, structural ones included, sorted by task."""
    return descriptors(records, probes, structure(records.tasks)).sort_values("task").reset_index(drop=True)


def _probes(records: Records, probes: Sequence[str] | None, min_paradigms: int) -> tuple[list[str], PanelChoice | None]:
    if probes:
        unknown = sorted(set(probes) - set(records.methods))
        if unknown:
            raise DistillError(f"--probes: {', '.join(unknown)} not in the records (methods: {', '.join(records.methods)})")
        return sorted(probes), None
    panel = choose_probes(records, min_paradigms=min_paradigms)
    if len(panel.optima) > 1:
        listed = "; ".join(", ".join(p) for p in panel.optima)
        raise DistillError(f"probe selection: {len(panel.optima)} panels tie at U = {panel.best} ({listed}): "
                           "choose one with --probes")  # fmt: skip
    return list(panel.optima[0]), panel


def distill_core(results: str | Path, size: int, output: str | Path, *, probes: Sequence[str] | None = None,
                 min_paradigms: int = MIN_PARADIGMS, condition: str | None = None, starts: int = DEFAULT_STARTS,
                 seed: int = 0, records: Records | None = None, configs=("latest",)) -> CoreResult:  # fmt: skip
    """Distil a core of ``size`` tasks from the records at ``results`` and write it to ``output``
    (of the configurations ``configs`` chooses: ``srbf.store.configurations``)."""
    records = records or load_records(results, condition=condition, configs=configs)
    chosen_probes, panel = _probes(records, probes, min_paradigms)
    table = full_set(records, chosen_probes)
    eligible = table[table["eligible"]].reset_index(drop=True)
    bounds = constraints(eligible, size)
    check(bounds, size, len(eligible))
    objective = Objective(eligible, chosen_probes)
    found = search(objective, bounds, size, starts=starts, seed=seed)
    if found is None:
        raise DistillError(f"--size {size}: no start found a core meeting every constraint together; "
                           "try a different size or more --starts")  # fmt: skip
    chosen = eligible.iloc[list(found.subset)]
    made = {
        "records": records.source, "condition": records.condition, "repeats": records.repeats,
        "probes": chosen_probes, "probe_selection": None if panel is None else {
            "usability": str(panel.best), "optima": [list(p) for p in panel.optima], "min_paradigms": min_paradigms},
        "size": size, "full_set": len(table), "eligible": len(eligible), "weights": WEIGHTS, "beta": BETA,
        "penalty": PENALTY, "terms": found.terms.as_dict(),
        "constraints": {"one task per": ["duplicate group", "name"], **{
            c.name: {cat: [int(lo), int(hi)] for cat, lo, hi in zip(c.categories, c.low, c.high) if hi < UNBOUNDED}
            for c in bounds if c.name not in ("duplicate group", "name")}},
        "search": {"starts": starts, "seed": seed, "runs": found.starts},
    }  # fmt: skip
    path = write_core(core_document(Path(output).stem, chosen, chosen_probes, made), output)
    return CoreResult(path, list(chosen["task"]), chosen_probes, found.terms, panel, len(eligible), len(table))


def validate_core(core: str | Path, results: str | Path, *, draws: int = DEFAULT_DRAWS, seed: int = 0,
                  records: Records | None = None, configs=("latest",)) -> tuple[Validation, list[str]]:  # fmt: skip
    """Validate the core file ``core`` against the records at ``results`` (of the configurations
    ``configs`` chooses); also return its probes."""
    tasks, probes, made = read_core(core)
    records = records or load_records(results, condition=made.get("condition"), configs=configs)
    table = full_set(records, probes)
    position = {task: i for i, task in enumerate(table["task"])}
    missing = [t for t in tasks if t not in position]
    if missing:
        raise DistillError(f"{core}: {len(missing)} task(s) of the core are not in the records {records.source} "
                           f"(first: {missing[0]})")  # fmt: skip
    z = task_scores(records).reindex(index=table["task"])
    return validate(table, z, [position[t] for t in tasks], probes, draws=draws, seed=seed), probes
