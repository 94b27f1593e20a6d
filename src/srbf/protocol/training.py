"""What a method was trained on, read into skeletons: a catalog of formulas or a generator's
holdout list.

Two kinds of training source (docs/fairness.md, "Decontamination"):

- **a catalog** (a shipped set's name or a file in srbf's catalog format, JSON or YAML): the
  formulas the method saw. Only ``problems[*].formula`` (and ``id`` and the variable names, when
  given) are read; ranges are not needed. A benchmark problem is held out when its skeleton is
  absent from these.
- **a generator description** (a file with ``generator:``): a method trained on formulas drawn
  afresh from a generator cannot list them, but its generator can refuse a holdout list. A
  benchmark problem is held out when its skeleton is on that list (``holdout:`` formulas and
  ``holdout_catalogs:``, sets whose every formula the generator refuses).

A training entry that cannot be read (no formula, a formula that does not parse, a canonical form
cut short by its time limit) is kept as a reason: it could be any formula, so it leaves every
problem it might match unverifiable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from srbf.catalogs.files import read_catalog_file
from srbf.catalogs.loader import catalog_path
from srbf.catalogs.model import CatalogError
from srbf.expr.parser import parse
from srbf.expr.syntax import ParseError
from srbf.protocol.skeletons import Skeleton, skeleton

__all__ = ["CATALOG", "GENERATOR", "TrainingSource", "read_training"]

CATALOG, GENERATOR = "catalog", "generator"
_GENERATOR_KEYS = {"generator", "description", "holdout", "holdout_catalogs", "comment"}


@dataclass(frozen=True)
class TrainingSource:
    """The skeletons of a training source. ``texts``: every exact skeleton text; ``shapes``: the
    name-blind keys of every entry, ``inexact_shapes``: those of entries whose text may differ from
    a renamed copy's; ``unreadable``: one line per entry that could not be read."""

    label: str
    kind: str
    description: str
    entries: int
    texts: frozenset[str]
    shapes: frozenset[str]
    inexact_shapes: frozenset[str]
    unreadable: tuple[str, ...] = field(default=())
    level: str = "structure"  # the masking level of every skeleton (srbf.expr.masking.LEVELS)


def _variable_names(raw: Any) -> list[str] | None:
    if not isinstance(raw, list):
        return None
    names = [v.get("name") if isinstance(v, Mapping) else v for v in raw]
    return names if all(isinstance(n, str) for n in names) else None


def _entry_skeleton(formula: Any, variables: list[str] | None, level: str) -> Skeleton | str:
    """The skeleton of one formula, or why it has none."""
    if not isinstance(formula, str) or not formula.strip():
        return f"no formula (got {formula!r})"
    try:
        tree = parse(formula, variables)
    except ParseError as error:
        return f"formula {formula!r} does not parse: {error}"
    found = skeleton(tree, level)
    if not found.complete:
        return f"formula {formula!r}: its canonical form did not finish within the time limit"
    return found


def _document(source: str | Path) -> tuple[Any, str]:
    text = str(source)
    path = Path(text).expanduser()
    if not path.is_file() and "/" not in text and not text.endswith((".yaml", ".yml", ".json")):
        path = catalog_path(text)  # a shipped set's name, or a one-line error listing them
    elif not path.is_file():
        raise CatalogError(f"{text}: no such training file")
    document = read_catalog_file(path)
    if not isinstance(document, Mapping):
        raise CatalogError(f"{text}: expected a catalog (problems:) or a generator description (generator:), got {type(document).__name__}")
    return document, text


def read_training(source: str | Path, level: str = "structure") -> TrainingSource:
    """Read ``source`` (a shipped catalog's name, a catalog file, or a generator description) into
    its skeletons; a file that is no such thing is a one-line ``CatalogError``."""
    document, label = _document(source)
    if "generator" in document:
        return _generator(document, label, level)
    problems = document.get("problems")
    if not isinstance(problems, list):
        raise CatalogError(f"{label}: problems: expected a list of formulas (or generator: for a generator description), got {problems!r}")
    items = []
    for index, raw in enumerate(problems):
        if isinstance(raw, Mapping):
            name = f"problem {str(raw.get('id', index))!r}"
            items.append((name, raw.get("formula"), _variable_names(raw.get("variables"))))
        else:
            items.append((f"problems[{index}]", None, None))
    return _collect(label, CATALOG, str(document.get("description") or document.get("name") or ""), items, level)


def _generator(document: Mapping[str, Any], label: str, level: str) -> TrainingSource:
    unknown = sorted(set(document) - _GENERATOR_KEYS)
    if unknown:
        raise CatalogError(f"{label}: {unknown[0]}: unknown field of a generator description (allowed: {', '.join(sorted(_GENERATOR_KEYS))})")
    formulas = document.get("holdout") or []
    catalogs = document.get("holdout_catalogs") or []
    for key, value in (("holdout", formulas), ("holdout_catalogs", catalogs)):
        if not isinstance(value, list):
            raise CatalogError(f"{label}: {key}: expected a list, got {value!r}")
    if not formulas and not catalogs:
        raise CatalogError(f"{label}: a generator description needs a holdout list (holdout: formulas, holdout_catalogs: sets)")
    items = [(f"holdout[{i}]", formula, None) for i, formula in enumerate(formulas)]
    for name in catalogs:
        held = read_training(str(name), level) if isinstance(name, str) else None
        if held is None:
            raise CatalogError(f"{label}: holdout_catalogs: expected catalog names or files, got {name!r}")
        items.append((held, None, None))
    description = f"{document['generator']}" + (f": {document['description']}" if document.get("description") else "")
    return _collect(label, GENERATOR, description, items, level)


def _collect(label: str, kind: str, description: str, items: list, level: str) -> TrainingSource:
    texts, shapes, inexact, unreadable, count = set(), set(), set(), [], 0
    for name, formula, variables in items:
        if isinstance(name, TrainingSource):  # a whole catalog on a holdout list
            texts |= name.texts
            shapes |= name.shapes
            inexact |= name.inexact_shapes
            unreadable += [f"{name.label}: {line}" for line in name.unreadable]
            count += name.entries
            continue
        count += 1
        found = _entry_skeleton(formula, variables, level)
        if isinstance(found, str):
            unreadable.append(f"{name}: {found}")
            continue
        texts.add(found.text)
        shapes.add(found.shape)
        if not found.exhaustive:
            inexact.add(found.shape)
    return TrainingSource(label, kind, description, count, frozenset(texts), frozenset(shapes), frozenset(inexact),
                          tuple(unreadable), level)
