"""Find, read and validate catalogs: the shipped problem sets by name, or a user's file by path.

``load_catalog`` reads a catalog file (srbf's format; a file in the reference format is converted
on the fly), checks its structure field by field, computes its content hash and, unless told
otherwise, admits every entry (see ``admission``). Every failure is a ``CatalogError`` whose
message names the file, the problem id, the field and the bad value, e.g.
``feynman.yaml: problem 'I.6.2': variables[0].range: low 3.0 > high 1.0``.
Shipped catalogs are cached in the process after the first load.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import re
import threading
from pathlib import Path
from typing import Any, Mapping

from srbf.catalogs.importer import FORMAT_VERSION, convert_reference_catalog, read_yaml
from srbf.catalogs.model import (
    DISTRIBUTIONS,
    SIGNS,
    Catalog,
    CatalogEntry,
    CatalogError,
    VariableSpec,
    frozen_mapping,
)

__all__ = [
    "CatalogError",
    "DATA_DIR",
    "catalog_from_dict",
    "catalog_info",
    "catalog_path",
    "content_hash",
    "list_catalogs",
    "load_catalog",
]

DATA_DIR = Path(__file__).resolve().parent / "data"

_CACHE: dict[str, Catalog] = {}  # shipped catalogs by name
_ADMITTED: set[str] = set()  # the cached ones that went through admission
_LOCK = threading.Lock()

_IDENTIFIER = re.compile(r"[^\W\d]\w*")
_TOP_KEYS = {"srbf_catalog", "name", "version", "description", "license", "sources", "conventions", "meta", "problems"}
_REQUIRED_TOP_KEYS = ("srbf_catalog", "name", "version", "problems")
_PROBLEM_KEYS = {"id", "formula", "target", "variables", "sources", "meta"}
_VARIABLE_KEYS = {"name", "range", "distribution", "sign"}


def list_catalogs() -> list[str]:
    """The names of the shipped catalogs, sorted."""
    return sorted(p.stem for p in DATA_DIR.glob("*.yaml"))


def catalog_path(name: str) -> Path:
    """The file of a shipped catalog; unknown names raise CatalogError with the valid names."""
    path = DATA_DIR / f"{name}.yaml"
    if path.is_file():
        return path
    names = list_catalogs()
    close = difflib.get_close_matches(name, names, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise CatalogError(f"unknown catalog {name!r}.{hint} Shipped catalogs: {', '.join(names)}; or give a path to a catalog file.")


def _is_path(name_or_path: str | Path) -> bool:
    if isinstance(name_or_path, Path):
        return True
    text = str(name_or_path)
    return "/" in text or "\\" in text or text.endswith((".yaml", ".yml")) or (
        not (DATA_DIR / f"{text}.yaml").is_file() and Path(text).is_file()
    )


def load_catalog(name_or_path: str | Path, *, admit: bool = True) -> Catalog:
    """A shipped catalog by name (``"feynman"``) or a catalog file by path.

    With ``admit`` (the default) every entry must parse over its declared variables, use only
    declared variables and evaluate; an entry that does not raises CatalogError naming it, and
    entries that evaluate to finite values too rarely are kept and listed in
    ``Catalog.placeholders``. With ``admit=False`` only the file's structure is checked.
    """
    from srbf.catalogs.admission import admit_catalog  # admission depends on this module's records

    shipped = not _is_path(name_or_path)
    if shipped:
        name = str(name_or_path)
        with _LOCK:
            cached = _CACHE.get(name)
            if cached is not None and (name in _ADMITTED or not admit):
                return cached
        path = catalog_path(name)
        label = path.name
    else:
        path = Path(name_or_path).expanduser()
        label = str(name_or_path)
    catalog = cached if shipped and cached is not None else _read(path, label)
    if admit:
        catalog = admit_catalog(catalog, label=label)
    if shipped:
        with _LOCK:
            _CACHE[name] = catalog
            if admit:
                _ADMITTED.add(name)
    return catalog


def _read(path: Path, label: str) -> Catalog:
    if not path.is_file():
        raise CatalogError(f"{label}: no such catalog file")
    try:
        document = read_yaml(path)
    except CatalogError as error:
        raise CatalogError(str(error).replace(str(path), label, 1)) from None
    if isinstance(document, Mapping) and "srbf_catalog" not in document and "expressions" in document:
        document = convert_reference_catalog(document, source=label)  # the reference format
    return catalog_from_dict(document, label=label, path=str(path))


# --- structure ---------------------------------------------------------------------------------


def _fail(label: str, where: str, message: str) -> CatalogError:
    return CatalogError(f"{label}: {where}: {message}" if where else f"{label}: {message}")


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):  # YAML 1.1 reads 1e5 (no dot) as a string
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _strings(value: Any, label: str, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(label, where, f"expected a list of strings, got {value!r}")
    return list(value)


def _variable(spec: Any, label: str, where: str, taken: set[str]) -> dict[str, Any]:
    from srbf.catalogs.importer import is_reserved_name

    if not isinstance(spec, Mapping):
        raise _fail(label, where, f"expected a mapping with name and range, got {spec!r}")
    unknown = sorted(set(spec) - _VARIABLE_KEYS)
    if unknown:
        raise _fail(label, f"{where}.{unknown[0]}", f"unknown field (allowed: {', '.join(sorted(_VARIABLE_KEYS))})")
    name = spec.get("name")
    if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
        raise _fail(label, f"{where}.name", f"{name!r} is not a valid identifier")
    if is_reserved_name(name):
        raise _fail(label, f"{where}.name", f"{name!r} is reserved (a keyword, constant or function name); rename it, e.g. {name + '_'!r}")
    if name in taken:
        raise _fail(label, f"{where}.name", f"{name!r} is declared twice")
    bounds = spec.get("range")
    if not isinstance(bounds, (list, tuple)) or len(bounds) != 2:
        raise _fail(label, f"{where}.range", f"expected [low, high], got {bounds!r}")
    low, high = _number(bounds[0]), _number(bounds[1])
    for side, raw, value in (("low", bounds[0], low), ("high", bounds[1], high)):
        if value is None or not math.isfinite(value):
            raise _fail(label, f"{where}.range", f"{side} {raw!r} is not a finite number")
    if low > high:
        raise _fail(label, f"{where}.range", f"low {low!r} > high {high!r}")
    distribution = spec.get("distribution", "uniform")
    if distribution not in DISTRIBUTIONS:
        raise _fail(label, f"{where}.distribution", f"unknown distribution {distribution!r} (expected one of {', '.join(DISTRIBUTIONS)})")
    sign = spec.get("sign", "range")
    if sign not in SIGNS:
        raise _fail(label, f"{where}.sign", f"unknown sign {sign!r} (expected one of {', '.join(SIGNS)})")
    if distribution == "log_uniform" and low <= 0:
        raise _fail(label, f"{where}.range", f"log_uniform needs 0 < low, got low {low!r} (use sign: negative or both for negative values)")
    if distribution == "integer" and math.floor(high) < math.ceil(low):
        raise _fail(label, f"{where}.range", f"integer range [{low!r}, {high!r}] contains no integer")
    return {"name": name, "low": low, "high": high, "distribution": distribution, "sign": sign}


def _problem(raw: Any, index: int, label: str, catalog_sources: list[str]) -> dict[str, Any]:
    where = f"problems[{index}]"
    if not isinstance(raw, Mapping):
        raise _fail(label, where, f"expected a mapping with id, formula and variables, got {raw!r}")
    pid = raw.get("id")
    if isinstance(pid, bool) or not isinstance(pid, (str, int)) or str(pid).strip() == "":
        raise _fail(label, f"{where}.id", f"expected a non-empty string, got {pid!r}")
    pid = str(pid)
    where = f"problem {pid!r}"
    unknown = sorted(set(raw) - _PROBLEM_KEYS)
    if unknown:
        raise _fail(label, f"{where}: {unknown[0]}", f"unknown field (allowed: {', '.join(sorted(_PROBLEM_KEYS))})")
    formula = raw.get("formula")
    if not isinstance(formula, str) or not formula.strip():
        raise _fail(label, f"{where}: formula", f"expected a non-empty formula string, got {formula!r}")
    specs = raw.get("variables")
    if not isinstance(specs, list) or not specs:
        raise _fail(label, f"{where}: variables", f"expected a non-empty list of variables, got {specs!r}")
    variables, taken = [], set()
    for i, spec in enumerate(specs):
        variable = _variable(spec, label, f"{where}: variables[{i}]", taken)
        taken.add(variable["name"])
        variables.append(variable)
    target = raw.get("target", "y")
    if not isinstance(target, str) or not target.strip():
        raise _fail(label, f"{where}: target", f"expected a non-empty name, got {target!r}")
    if target in taken:
        raise _fail(label, f"{where}: target", f"{target!r} is also the name of an input variable")
    sources = _strings(raw["sources"], label, f"{where}: sources") if "sources" in raw else list(catalog_sources)
    meta = raw.get("meta") or {}
    if not isinstance(meta, Mapping):
        raise _fail(label, f"{where}: meta", f"expected a mapping, got {meta!r}")
    return {"id": pid, "formula": formula.strip(), "target": target, "variables": variables, "sources": sources, "meta": dict(meta)}


def content_hash(name: str, version: int, entries: list[Mapping[str, Any]]) -> str:
    """sha256 of the canonical JSON of the catalog's name, version and entries (as plain dicts).

    Keys sorted, no whitespace, floats by repr; anything YAML reads that JSON cannot hold (dates)
    by its str. Entry order counts: a problem's position is part of the published set.
    """
    payload = json.dumps(
        {"name": name, "version": version, "entries": entries},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=True,
        default=str,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def catalog_from_dict(document: Any, *, label: str = "<catalog>", path: str = "") -> Catalog:
    """Validate an srbf catalog dict (as read from YAML) and build the frozen records."""
    if not isinstance(document, Mapping):
        raise _fail(label, "", f"expected a mapping at the top level, got {type(document).__name__}")
    for key in _REQUIRED_TOP_KEYS:
        if key not in document:
            raise _fail(label, key, "missing required field")
    unknown = sorted(set(document) - _TOP_KEYS)
    if unknown:
        raise _fail(label, unknown[0], f"unknown top-level field (allowed: {', '.join(sorted(_TOP_KEYS))})")
    if document["srbf_catalog"] != FORMAT_VERSION:
        raise _fail(label, "srbf_catalog", f"unsupported format version {document['srbf_catalog']!r} (this srbf reads {FORMAT_VERSION})")
    name = document["name"]
    if not isinstance(name, str) or not name.strip():
        raise _fail(label, "name", f"expected a non-empty string, got {name!r}")
    version = document["version"]
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise _fail(label, "version", f"expected a positive integer, got {version!r}")
    description = document.get("description") or ""
    license_ = document.get("license") or ""
    for key, value in (("description", description), ("license", license_)):
        if not isinstance(value, str):
            raise _fail(label, key, f"expected a string, got {value!r}")
    sources = _strings(document.get("sources"), label, "sources")
    conventions = document.get("conventions") or {}
    meta = document.get("meta") or {}
    for key, value in (("conventions", conventions), ("meta", meta)):
        if not isinstance(value, Mapping):
            raise _fail(label, key, f"expected a mapping, got {value!r}")
    problems = document["problems"]
    if not isinstance(problems, list) or not problems:
        raise _fail(label, "problems", f"expected a non-empty list of problems, got {problems!r}")

    entries_plain = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(problems):
        plain = _problem(raw, index, label, sources)
        if plain["id"] in seen:
            raise _fail(label, f"problem {plain['id']!r}: id", f"duplicate id (also problems[{seen[plain['id']]}])")
        seen[plain["id"]] = index
        entries_plain.append(plain)

    entries = tuple(
        CatalogEntry(
            id=p["id"],
            formula=p["formula"],
            variables=tuple(VariableSpec(**v) for v in p["variables"]),
            target=p["target"],
            sources=tuple(p["sources"]),
            meta=frozen_mapping(p["meta"]) if p["meta"] else _EMPTY,
        )
        for p in entries_plain
    )
    return Catalog(
        name=name,
        version=version,
        description=description.strip(),
        entries=entries,
        sources=tuple(sources),
        license=license_,
        conventions=frozen_mapping(conventions),
        content_hash=content_hash(name, version, entries_plain),
        path=path,
        meta=frozen_mapping(meta),
    )


_EMPTY = frozen_mapping({})


def catalog_info(catalog: Catalog) -> dict[str, Any]:
    """A plain summary of a catalog for listings: name, version, counts, hash, sources, license."""
    return {
        "name": catalog.name,
        "version": catalog.version,
        "problems": len(catalog),
        "max_inputs": max((len(e.variables) for e in catalog.entries), default=0),
        "placeholders": len(catalog.placeholders),
        "content_hash": catalog.content_hash,
        "license": catalog.license,
        "sources": list(catalog.sources),
        "description": catalog.description,
        "path": catalog.path,
    }


def clear_cache() -> None:
    """Forget the shipped catalogs loaded so far (tests; after rebuilding the data files)."""
    with _LOCK:
        _CACHE.clear()
        _ADMITTED.clear()

