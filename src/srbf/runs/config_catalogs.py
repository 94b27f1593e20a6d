"""Which problems a config runs: its catalog references and its problem selection, each checked
against the catalogs it names.

``catalogs`` names shipped catalogs or catalog files (``is_catalog_path`` tells which);
``_selection`` reads ``problems`` (ids for every catalog, or per catalog) once the catalogs are
known, so ``RunConfig`` calls it from its cross-section check. Problems are reported as in
``config_fields``: ``(place, message)`` pairs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Mapping

from pydantic import BeforeValidator, ValidationInfo

from srbf.core import did_you_mean
from srbf.runs.config_errors import _show
from srbf.runs.config_fields import _fail, _fail_all, _resolve

__all__ = ["CatalogRefs", "TrainingRefs", "is_catalog_path"]


def is_catalog_path(ref: str) -> bool:
    """Whether a catalog reference is a file path (has a slash or ends .yaml/.yml/.json) or a shipped name."""
    return "/" in ref or "\\" in ref or ref.endswith((".yaml", ".yml", ".json"))


def _catalogs(value: Any, info: ValidationInfo) -> tuple[str, ...]:
    from srbf.catalogs.loader import CatalogError, list_catalogs, load_catalog

    scalar = isinstance(value, str)
    if not scalar and not (isinstance(value, (list, tuple)) and value):
        raise _fail(f"must be a catalog name, a path to a catalog file, a list of them, or all; got {_show(value)}")
    items = [value] if scalar else list(value)
    if items == ["all"]:
        return tuple(list_catalogs())
    shipped = list_catalogs()
    problems, refs = [], []
    for i, item in enumerate(items):
        at = () if scalar else (i,)
        if item == "all":
            problems.append((at, "all means every shipped catalog and stands alone (catalogs: all)"))
            continue
        if not isinstance(item, str) or not item.strip():
            problems.append((at, f"must be a catalog name or a path to a catalog file, got {_show(item)}"))
            continue
        if is_catalog_path(item):
            path = _resolve(item, info)
            if not path.is_file():
                problems.append((at, f"no such catalog file {str(path)!r}"))
                continue
            try:
                load_catalog(path, admit=False)
            except CatalogError as error:
                problems.append((at, f"not a valid catalog: {error}"))
                continue
            ref = str(path)
        elif item not in shipped:
            hint = did_you_mean(item, shipped) or " (see `srbf catalogs list`; a file path needs a / or .yaml)"
            problems.append((at, f"unknown catalog {item!r}{hint}"))
            continue
        else:
            ref = item
        if ref in refs:
            problems.append((at, f"{item!r} is listed twice"))
        refs.append(ref)
    if problems:
        raise _fail_all(problems)
    return tuple(refs)


def _ids(value: Any, at: tuple[Any, ...], found: list) -> list[tuple[tuple[Any, ...], str]] | None:
    """(place, id) for a problem id or a list of ids; None (and a problem) for anything else."""
    single = isinstance(value, (str, int)) and not isinstance(value, bool)
    items = [value] if single else value
    if not isinstance(items, (list, tuple)) or not items or not all(
        isinstance(v, (str, int)) and not isinstance(v, bool) for v in items
    ):
        found.append((at, f"must be a problem id or a non-empty list of ids, got {_show(value)}"))
        return None
    located, seen = [], set()
    for i, v in enumerate(items):
        place = at if single else at + (i,)
        if str(v) in seen:
            found.append((place, f"{str(v)!r} is listed twice"))
        seen.add(str(v))
        located.append((place, str(v)))
    return located


def _selection(raw: Any, catalogs: tuple[str, ...], info: ValidationInfo, found: list) -> dict[str, tuple[str, ...]]:
    """``problems`` as {catalog ref: selected ids}, every id checked against its catalog.

    A list (or one id) applies to every catalog of the config: each id must be in at least one of
    them, and each catalog keeps the ids it has. A mapping selects per catalog; a catalog it does
    not name runs all its problems.
    """
    from srbf.catalogs.loader import load_catalog

    if raw is None:
        return {}

    def known(ref: str) -> list[str]:
        return [entry.id for entry in load_catalog(ref, admit=False).entries]

    def shown(ref: str) -> str:
        return Path(ref).name if is_catalog_path(ref) else ref

    if isinstance(raw, Mapping):
        selection: dict[str, tuple[str, ...]] = {}
        for key, value in raw.items():
            ref = key if key in catalogs else None
            if ref is None and isinstance(key, str) and is_catalog_path(key):
                resolved = str(_resolve(key, info))
                ref = resolved if resolved in catalogs else None
            if ref is None:
                names = [shown(c) for c in catalogs]
                hint = did_you_mean(key, names) or f" (catalogs: {', '.join(names)})"
                found.append((("problems", key), f"not one of this config's catalogs{hint}"))
                continue
            located = _ids(value, ("problems", key), found)
            if located is None:
                continue
            valid = known(ref)
            for place, pid in located:
                if pid not in valid:
                    hint = did_you_mean(pid, valid)
                    found.append((place, f"unknown problem id {pid!r} in catalog {shown(ref)}{hint}"))
            selection[ref] = tuple(dict.fromkeys(pid for _, pid in located))
        return selection
    located = _ids(raw, ("problems",), found)
    if located is None:
        return {}
    per_catalog = {ref: set(known(ref)) for ref in catalogs}
    everywhere = sorted(set().union(*per_catalog.values()))
    where = f"catalog {shown(catalogs[0])}" if len(catalogs) == 1 else "any of this config's catalogs"
    for place, pid in located:
        if pid not in everywhere:
            found.append((place, f"unknown problem id {pid!r} in {where}{did_you_mean(pid, everywhere)}"))
    ids = list(dict.fromkeys(pid for _, pid in located))
    return {ref: tuple(pid for pid in ids if pid in valid) for ref, valid in per_catalog.items()}


def _training(value: Any, info: ValidationInfo) -> tuple[str, ...]:
    """``exclude``: training sources (shipped catalog names, catalog files or generator
    descriptions, srbf.protocol.training) whose problems the run drops; files resolved like
    catalogs. Only their existence is checked here; the plan reads them."""
    from srbf.catalogs.loader import list_catalogs

    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise _fail(f"must be a training catalog (name or file) or a list of them, got {_show(value)}")
    shipped, problems, refs = list_catalogs(), [], []
    for i, item in enumerate(items):
        at = () if isinstance(value, str) else (i,)
        if not isinstance(item, str) or not item.strip():
            problems.append((at, f"must be a catalog name or a path to a training file, got {_show(item)}"))
        elif is_catalog_path(item):
            path = _resolve(item, info)
            if path.is_file():
                refs.append(str(path))
            else:
                problems.append((at, f"no such training file {str(path)!r}"))
        elif item in shipped:
            refs.append(item)
        else:
            problems.append((at, f"unknown catalog {item!r}{did_you_mean(item, shipped)}"))
    if problems:
        raise _fail_all(problems)
    return tuple(dict.fromkeys(refs))


CatalogRefs = Annotated[Any, BeforeValidator(_catalogs)]
TrainingRefs = Annotated[Any, BeforeValidator(_training)]
