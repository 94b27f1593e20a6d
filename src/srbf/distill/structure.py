"""The structural descriptors of each task (SymbolicArena's Appendix B.2 and C.3), from its catalog entry.

Per task (``set/problem_id``): its family (the set), its name (the problem id, case-folded: the
core takes one task per name, so one formula published under one name in two sets is not taken
twice), the number of input variables, the complexity (nodes of the parsed formula's tree), the
operators it uses, and its duplicate group (``duplicates``).
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from srbf.catalogs.loader import CatalogError, load_catalog
from srbf.distill.duplicates import formula_key, group_id
from srbf.distill.errors import DistillError
from srbf.expr.parser import parse
from srbf.expr.tree import Call, count_nodes, walk

__all__ = ["STRUCTURE_COLUMNS", "structure"]

STRUCTURE_COLUMNS = ("task", "family", "problem_id", "name", "n_vars", "complexity", "operators", "dup_group", "formula")


def structure(tasks: Iterable[str]) -> pd.DataFrame:
    """One row per task (``set/problem_id``) with the columns ``STRUCTURE_COLUMNS`` (``operators``:
    sorted and joined by spaces). DistillError when a set or a problem is not known."""
    rows, loaded = [], {}
    for task in tasks:
        family, _, pid = task.partition("/")
        if family not in loaded:
            try:
                loaded[family] = load_catalog(family, admit=False)
            except CatalogError as error:
                raise DistillError(f"task {task}: {error}") from None
        try:
            entry = loaded[family].entry(pid)
        except KeyError:
            raise DistillError(f"task {task}: no problem {pid!r} in the catalog {family!r} (a changed catalog?)") from None
        names = [v.name for v in entry.variables]
        tree = parse(entry.formula, names)
        operators = sorted({node.op for node in walk(tree) if isinstance(node, Call)})
        rows.append({"task": task, "family": family, "problem_id": pid, "name": pid.casefold(), "n_vars": len(names),
                     "complexity": count_nodes(tree), "operators": " ".join(operators),
                     "dup_group": group_id(formula_key(entry.formula, names)), "formula": entry.formula})  # fmt: skip
    return pd.DataFrame(rows, columns=list(STRUCTURE_COLUMNS))
