"""The immutable records a catalog is made of: sets, their formulas, and each input's sampling range.

A catalog file is read into these records once; everything downstream (sampling, the runner, the
judge) takes them as plain, frozen, hashable data, so an entry cannot change after admission.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from srbf.core import SrbfError, did_you_mean

DISTRIBUTIONS = ("uniform", "log_uniform", "integer")
SIGNS = ("range", "negative", "both")


class CatalogError(SrbfError, ValueError):
    """A catalog that cannot be used; the message names the file, the problem, the field and the value."""


class UnknownProblem(SrbfError, KeyError):
    """A problem id the catalog does not have; the message suggests the closest id."""

    def __str__(self) -> str:
        return self.args[0]


_SCALARS = (str, int, float, bool, type(None))
_SCALAR_TYPES = frozenset(_SCALARS)  # exact types, tested first: a catalog's meta is mostly scalars


def frozen_mapping(data: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """A read-only view of a (recursively) frozen copy of ``data``."""

    def freeze(value: Any) -> Any:
        if isinstance(value, _SCALARS):
            return value
        if type(value) is dict or (type(value) is not list and isinstance(value, Mapping)):  # exact types: fast
            return MappingProxyType({k: v if type(v) in _SCALAR_TYPES else freeze(v) for k, v in value.items()})
        if isinstance(value, (list, tuple)):
            return tuple(freeze(v) for v in value)
        return value

    return freeze(dict(data or {}))


@dataclass(frozen=True, slots=True)
class VariableSpec:
    """One input column and how its values are drawn.

    ``distribution``: uniform on [low, high], log_uniform on [low, high] (0 < low), or integer
    (uniform over the integers in [low, high]). ``sign``: ``range`` keeps the drawn value as the
    range gives it, ``negative`` negates it, ``both`` gives it a random sign (each with
    probability 1/2), which is how the FastSRB convention draws magnitudes for signed quantities.
    """

    name: str
    low: float
    high: float
    distribution: str = "uniform"
    sign: str = "range"


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One known formula: the ground truth of a problem."""

    id: str
    formula: str  # srbf infix over the variable names below
    variables: tuple[VariableSpec, ...]
    target: str = "y"
    sources: tuple[str, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=lambda: frozen_mapping({}))

    @property
    def variable_names(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.variables)

    def __reduce__(self):
        """Pickled with ``meta`` as plain dicts (a mapping proxy does not pickle) and frozen again
        on arrival: entries travel to scoring processes and Dask workers."""
        return _entry, (self.id, self.formula, self.variables, self.target, self.sources, thawed(self.meta))


def thawed(value: Any) -> Any:
    """``value`` with every (frozen) mapping in it a plain dict again, tuples kept."""
    if isinstance(value, Mapping):
        return {k: thawed(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(thawed(v) for v in value)
    return value


def _entry(id: str, formula: str, variables: tuple, target: str, sources: tuple, meta: dict) -> CatalogEntry:
    return CatalogEntry(id, formula, variables, target, sources, frozen_mapping(meta))


@dataclass(frozen=True)
class Catalog:
    """A published problem set: named, versioned, with a content hash over its entries.

    ``meta`` holds set-level facts that are not sampling rules (the published protocol's sample
    size, provenance of the file). ``placeholders`` maps the id of every admitted entry that
    evaluates to finite values on too few of its declared points to the reason; such entries are
    kept (so published numbers keep their denominators) but reported.
    """

    name: str
    version: int
    description: str
    entries: tuple[CatalogEntry, ...]
    sources: tuple[str, ...] = ()
    license: str = ""
    conventions: Mapping[str, Any] = field(default_factory=lambda: frozen_mapping({}))
    content_hash: str = ""
    path: str = ""
    meta: Mapping[str, Any] = field(default_factory=lambda: frozen_mapping({}), compare=False)
    placeholders: Mapping[str, str] = field(default_factory=lambda: frozen_mapping({}), compare=False)

    @functools.cached_property
    def _index(self) -> Mapping[str, int]:
        """Each entry's position by id, made on first lookup (a cache of ``entries``, no field)."""
        return {e.id: i for i, e in enumerate(self.entries)}

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(e.id for e in self.entries)

    def entry(self, problem_id: str) -> CatalogEntry:
        """The entry with this id; UnknownProblem (a KeyError) names the catalog and suggests the closest id."""
        position = self._index.get(problem_id)
        if position is not None:
            return self.entries[position]
        raise UnknownProblem(f"catalog {self.name!r} has no problem {problem_id!r}{did_you_mean(problem_id, self._index)}")
