"""The distilled core as a catalog srbf runs directly (``catalogs: [./core.yaml]``), and back.

The core is an srbf catalog (docs/catalogs.md): each chosen task's entry copied from its set
(formula, target, variables with ranges, distributions and signs, sources), under its own problem
id (the core holds one task per name, so the ids are unique), with ``meta.source`` naming the set,
its version and the problem, and ``meta.distill`` its descriptors. The catalog's ``meta.distill``
records how it was made: the records, condition, probes, size, weights, the objective's terms,
the constraints' bounds and every start of the search. Its draws are its own (they follow the
core's name and version), so a run on the core draws new points; the records it was distilled
from stay the evidence.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from srbf.catalogs.files import write_catalog
from srbf.catalogs.loader import CatalogError, load_catalog
from srbf.distill.errors import DistillError

__all__ = ["DESCRIPTOR_FIELDS", "core_document", "read_core", "write_core"]

DESCRIPTOR_FIELDS = ("disc", "stab", "info", "difficulty", "difficulty_bin", "winner", "limited", "one_sided", "unstable",
                     "all_struggle", "ood_degraded", "n_vars", "complexity", "operators", "dup_group")  # fmt: skip


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _entry(task: Mapping[str, Any], probes: list[str]) -> dict[str, Any]:
    catalog = load_catalog(task["family"], admit=False)
    entry = catalog.entry(task["problem_id"])
    descriptors = {k: _plain(task[k]) for k in DESCRIPTOR_FIELDS}
    descriptors["probes"] = {p: {k: _plain(task[f"{k}@{p}"]) for k in ("m_id", "m_ood", "iqr_id", "iqr_ood", "v")}
                             for p in probes}  # fmt: skip
    return {
        "id": entry.id, "formula": entry.formula, "target": entry.target,
        "variables": [{"name": v.name, "range": [v.low, v.high], "distribution": v.distribution, "sign": v.sign}
                      for v in entry.variables],
        "sources": list(entry.sources),
        "meta": {"source": {"catalog": catalog.name, "version": catalog.version, "problem_id": entry.id},
                 "distill": descriptors},
    }  # fmt: skip


def core_document(name: str, chosen: pd.DataFrame, probes: list[str], made: Mapping[str, Any]) -> dict[str, Any]:
    """The catalog dict of a core: the ``chosen`` descriptor rows and how it was ``made``."""
    families = sorted(chosen["family"].unique())
    return {
        "srbf_catalog": 1, "name": name, "version": 1,
        "description": f"A {len(chosen)}-task core distilled by srbf distill from {made.get('records', 'records')} "
                       f"(probes {', '.join(probes)}), from the sets {', '.join(families)}.",
        "sources": [f"srbf distill (docs/distill.md); tasks from the srbf catalogs {', '.join(families)}"],
        "meta": {"distill": dict(made)},
        "problems": [_entry(row, probes) for row in chosen.to_dict("records")],
    }  # fmt: skip


def write_core(document: Mapping[str, Any], path: str | Path) -> Path:
    """Write the core and check that srbf loads it as a catalog."""
    out = write_catalog(document, path, header="Distilled by `srbf distill` (docs/distill.md); regenerate, do not edit.")
    load_catalog(out)  # refuse to leave a file srbf cannot run
    return out


def read_core(path: str | Path) -> tuple[list[str], list[str], Mapping[str, Any]]:
    """The tasks (``set/problem_id``), the probes and ``meta.distill`` of a core file."""
    try:
        catalog = load_catalog(Path(path), admit=False)
    except CatalogError as error:
        raise DistillError(f"--core: {error}") from None
    made = catalog.meta.get("distill")
    if not isinstance(made, Mapping) or not made.get("probes"):
        raise DistillError(f"{path}: meta.distill.probes: missing (not a core written by srbf distill)")
    tasks = []
    for entry in catalog.entries:
        source = entry.meta.get("source")
        if not isinstance(source, Mapping) or "catalog" not in source or "problem_id" not in source:
            raise DistillError(f"{path}: problem {entry.id!r}: meta.source: missing its set and problem id")
        tasks.append(f"{source['catalog']}/{source['problem_id']}")
    return tasks, list(made["probes"]), made
