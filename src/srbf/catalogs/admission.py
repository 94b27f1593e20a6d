"""Admission: which catalog entries can serve as benchmark problems.

Every entry is checked in three steps:

1. its formula parses, reading identifiers against the entry's declared input names (an unknown
   function, an undeclared variable or an unbalanced bracket is a parse error);
2. it names its variables: the parser would read a generic column name such as ``x3`` as the
   fourth column, so such a name must be a declared input. Declared inputs the formula does not
   use are allowed: srsd-dummy has irrelevant inputs on purpose;
3. (numeric) it evaluates on ``N_POINTS`` points drawn from its declared distributions with a
   fixed seed, and at least ``PLACEHOLDER_BELOW`` of the values are finite.

An entry failing 1 or 2, or whose evaluation raises, is *rejected*: ``load_catalog`` refuses the
catalog and names the entry. An entry failing only 3 is a *placeholder*: it is kept (published
sets keep their denominators) and reported with its finite share, because sampling it means
rejecting almost every point of its declared box. Steps 1-2 run on every ``load_catalog``;
step 3 costs about 0.2 ms per entry, so it runs in ``validate_catalog``, in
``load_catalog(numeric=True)`` and when the shipped catalogs are built (which records each
placeholder's reason in its ``meta.placeholder``).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from srbf.catalogs.model import Catalog, CatalogEntry, CatalogError, frozen_mapping
from srbf.catalogs.draws import draw_inputs
from srbf.expr import Expr, ParseError, compile_expr, parse

N_POINTS = 256
SEED = 20240229
PLACEHOLDER_BELOW = 0.01  # an entry finite on fewer than 1% of its declared points is a placeholder

OK, PLACEHOLDER, REJECTED = "ok", "placeholder", "rejected"

_GENERIC_RE = re.compile(r"(?<![\w.])[xX]_?\d+(?![\w.(])")


@dataclass(frozen=True)
class Admission:
    """The verdict on one entry: ``status`` is ok, placeholder or rejected, with the reasons."""

    problem_id: str
    status: str
    reasons: tuple[str, ...] = ()
    finite_fraction: float | None = None

    def describe(self) -> str:
        share = "" if self.finite_fraction is None else f" (finite on {self.finite_fraction:.1%} of {N_POINTS} points)"
        why = f": {'; '.join(self.reasons)}" if self.reasons else ""
        return f"{self.problem_id!r}: {self.status}{share}{why}"


@dataclass(frozen=True)
class AdmissionReport:
    """The verdicts on every entry of one catalog, in catalog order."""

    catalog: str
    results: tuple[Admission, ...]

    def _with(self, status: str) -> list[Admission]:
        return [r for r in self.results if r.status == status]

    @property
    def ok(self) -> list[Admission]:
        return self._with(OK)

    @property
    def placeholders(self) -> list[Admission]:
        return self._with(PLACEHOLDER)

    @property
    def rejected(self) -> list[Admission]:
        return self._with(REJECTED)

    def summary(self) -> str:
        """One line of counts, then one line per placeholder or rejected entry."""
        lines = [
            f"{self.catalog}: {len(self.results)} entries: {len(self.ok)} ok, "
            f"{len(self.placeholders)} placeholder, {len(self.rejected)} rejected"
        ]
        lines += [f"  {r.describe()}" for r in self.results if r.status != OK]
        return "\n".join(lines)


@lru_cache(maxsize=16384)
def parse_formula(formula: str, names: tuple[str, ...]) -> Expr:
    """A catalog formula as a tree over the given variable names, parsed once per process: the
    sampler reuses the tree admission parsed when the catalog was loaded."""
    return parse(formula, list(names), notation="infix")


def parse_entry(entry: CatalogEntry) -> Expr:
    """The entry's formula as a tree over its declared variable names (cached)."""
    return parse_formula(entry.formula, entry.variable_names)


def undeclared_names(formula: str, names: Sequence[str]) -> list[str]:
    """Generic column names (``x3``, ``X_3``) in ``formula`` that are not declared names.

    With a variable list the parser rejects every other unknown identifier, but it reads a
    generic column name as a column index; a catalog formula must name its variables.
    """
    declared = set(names)
    unknown: list[str] = []
    for word in _GENERIC_RE.findall(formula):
        if word not in declared and word not in unknown:
            unknown.append(word)
    return unknown


def admit_entry(entry: CatalogEntry, *, numeric: bool = True, n_points: int = N_POINTS, seed: int = SEED) -> Admission:
    """Check one entry (see the module docstring); never raises for a bad entry."""
    names = entry.variable_names
    try:
        tree = parse_entry(entry)
    except ParseError as error:
        return Admission(entry.id, REJECTED, (f"formula does not parse: {error}",))
    unknown = undeclared_names(entry.formula, names)
    if unknown:
        listed = ", ".join(repr(w) for w in unknown)
        return Admission(entry.id, REJECTED, (f"formula uses undeclared variable(s) {listed} (declared: {', '.join(names)})",))
    if not numeric:
        return Admission(entry.id, OK)
    try:
        values = compile_expr(tree, names)(draw_inputs(entry.variables, n_points, np.random.default_rng(seed)))
    except Exception as error:  # noqa: BLE001 - any failure to evaluate is a verdict, not a crash
        return Admission(entry.id, REJECTED, (f"formula does not evaluate: {type(error).__name__}: {error}",))
    finite = float(np.count_nonzero(np.isfinite(values))) / n_points
    if finite < PLACEHOLDER_BELOW:
        reason = f"finite on {finite:.1%} of {n_points} points drawn from its declared ranges (< {PLACEHOLDER_BELOW:.0%})"
        return Admission(entry.id, PLACEHOLDER, (reason,), finite)
    return Admission(entry.id, OK, (), finite)


def admission_report(catalog: Catalog, *, numeric: bool = True, n_points: int = N_POINTS, seed: int = SEED) -> AdmissionReport:
    """The verdict on every entry of ``catalog``."""
    results = tuple(admit_entry(e, numeric=numeric, n_points=n_points, seed=seed) for e in catalog.entries)
    return AdmissionReport(catalog.name, results)


def admit_catalog(catalog: Catalog, *, label: str | None = None, numeric: bool = False) -> Catalog:
    """``catalog`` with its placeholders recorded; CatalogError naming every rejected entry.

    Placeholders are the entries whose ``meta.placeholder`` gives a reason (the build tool
    records the numeric verdict there) and, with ``numeric``, those the numeric check finds.
    """
    report = admission_report(catalog, numeric=numeric)
    rejected = report.rejected
    if rejected:
        label = label or catalog.path or catalog.name
        shown = "; ".join(f"problem {r.problem_id!r}: {'; '.join(r.reasons)}" for r in rejected[:5])
        more = f" (and {len(rejected) - 5} more)" if len(rejected) > 5 else ""
        raise CatalogError(f"{label}: {len(rejected)} entr{'y' if len(rejected) == 1 else 'ies'} rejected: {shown}{more}")
    return recorded_placeholders(catalog, {r.problem_id: r.reasons[0] for r in report.placeholders})


def recorded_placeholders(catalog: Catalog, found: dict[str, str] | None = None) -> Catalog:
    """``catalog`` with its placeholders: the entries whose ``meta.placeholder`` gives a reason,
    and those in ``found`` (id -> reason). Alone, this is how a shipped catalog is admitted at
    load: the build tool admitted and recorded it, and tests/catalogs hold every shipped set to it."""
    placeholders = {e.id: str(e.meta["placeholder"]) for e in catalog.entries if e.meta.get("placeholder")}
    placeholders.update(found or {})
    return dataclasses.replace(catalog, placeholders=frozen_mapping(placeholders))


def validate_catalog(name_or_path: str, *, numeric: bool = True) -> AdmissionReport:
    """Load a catalog (structure errors raise CatalogError) and report on every entry without raising."""
    from srbf.catalogs.loader import load_catalog

    return admission_report(load_catalog(name_or_path, admit=False), numeric=numeric)
