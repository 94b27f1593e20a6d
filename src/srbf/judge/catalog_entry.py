"""The shipped catalog entry a problem's points were drawn from, when they name one.

A sampled ``Problem`` and an ``.npz`` written by ``srbf sample`` record their catalog, its version
and the problem id. The judge takes the entry's positive variables (``data.positive_variables``)
and its target's name from there, so that ``srbf.judge.score()``, ``Judge``, ``srbf judge`` and
the scoring pass (``srbf score``) give one prediction the same metrics. ``positive_note`` is what
a record says about the positive variables it was scored under.
"""

from __future__ import annotations

import functools
from typing import Any, Iterable

import numpy as np

from srbf.judge.data import positive_variables

__all__ = ["declared_entry", "entry_defaults", "positive_note"]

NAMING_KEYS = ("catalog", "catalog_version", "problem_id")


def _named(data: Any, key: str) -> str | None:
    if hasattr(data, "keys") and hasattr(data, "__getitem__"):
        try:
            value = data[key] if key in data else None
        except (KeyError, TypeError):
            value = None
    else:
        value = getattr(data, key, None)
    return None if value is None else str(np.asarray(value).item() if np.ndim(value) == 0 else value)


def declared_entry(data: Any, variables: Iterable[str] | None) -> Any:
    """The shipped catalog entry ``data`` names (catalog, version, problem id) when the catalog is
    shipped, of that version, and the entry's variables are ``variables`` in order; else None."""
    from srbf.catalogs.loader import list_catalogs, load_catalog

    named = [_named(data, key) for key in NAMING_KEYS]
    if None in named or variables is None:
        return None
    name, version, problem_id = named
    if name not in _shipped(list_catalogs):
        return None
    try:
        catalog = load_catalog(name)
        entry = catalog.entry(problem_id)
    except (KeyError, ValueError, OSError):
        return None
    if str(catalog.version) != version or list(entry.variable_names) != [str(v) for v in np.ravel(list(variables))]:
        return None
    return entry, name


@functools.cache
def _shipped(lister) -> frozenset[str]:
    """The shipped catalogs' names, listed once (a directory listing per judge would cost more
    than the rest of its preparation)."""
    return frozenset(lister())


def entry_defaults(data: Any, variables: Iterable[str] | None) -> tuple[tuple[str, ...] | None, str | None, str]:
    """(positive variables, target, where they come from) of the entry ``data`` names, or
    (None, None, "") when it names none."""
    found = declared_entry(data, variables)
    if found is None:
        return None, None, ""
    entry, name = found
    return positive_variables(entry.variables), entry.target, f"catalog {name}, {entry.id}"


def positive_note(names: Iterable[str], source: str) -> str:
    """What a record says of its positive variables: the names (or "none") and their source, or
    "none given" when neither the caller nor a catalog entry gave any."""
    listed = ", ".join(sorted(names))
    if not source:
        return listed + " (given)" if listed else "none given"
    return f"{listed or 'none'} ({source})"
