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
import functools
import hashlib
import json
import keyword
import math
import re
import threading
from pathlib import Path
from typing import Any, Mapping

import yaml

from srbf.catalogs.model import (
    DISTRIBUTIONS,
    SIGNS,
    Catalog,
    CatalogEntry,
    CatalogError,
    VariableSpec,
    frozen_mapping,
)
from srbf.expr.operators import lookup_function

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

FORMAT_VERSION = 1  # the srbf_catalog value this module reads and the importer writes
DATA_DIR = Path(__file__).resolve().parent / "data"

_CACHE: dict[str, Catalog] = {}  # shipped catalogs by name
_LEVEL: dict[str, int] = {}  # how far each cached one was admitted: 0 structure, 1 parse, 2 numeric
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


def load_catalog(name_or_path: str | Path, *, admit: bool = True, numeric: bool = False) -> Catalog:
    """A shipped catalog by name (``"feynman"``) or a catalog file by path.

    With ``admit`` (the default) every entry must parse over its declared variables and use only
    declared variables; an entry that does not raises CatalogError naming it. ``numeric`` also
    evaluates every entry on points from its declared ranges (about 0.2 ms per entry; the shipped
    catalogs passed it when they were built) and adds those finite on too few points to
    ``Catalog.placeholders``. With ``admit=False`` only the file's structure is checked.
    """
    from srbf.catalogs.admission import admit_catalog  # admission depends on this module's records

    level = 2 if numeric else 1 if admit else 0
    shipped = not _is_path(name_or_path)
    if shipped:
        name = str(name_or_path)
        with _LOCK:
            cached = _CACHE.get(name)
            if cached is not None and _LEVEL[name] >= level:
                return cached
        path = catalog_path(name)
        label = path.name
    else:
        cached = None
        path = Path(name_or_path).expanduser()
        label = str(name_or_path)
    catalog = cached if cached is not None else _read(path, label)
    if level:
        catalog = admit_catalog(catalog, label=label, numeric=numeric)
    if shipped:
        with _LOCK:
            _CACHE[name] = catalog
            _LEVEL[name] = level
    return catalog


def _read(path: Path, label: str) -> Catalog:
    if not path.is_file():
        raise CatalogError(f"{label}: no such catalog file")
    try:
        document = read_yaml(path)
    except CatalogError as error:
        raise CatalogError(str(error).replace(str(path), label, 1)) from None
    if isinstance(document, Mapping) and "srbf_catalog" not in document and "expressions" in document:
        from srbf.catalogs.importer import convert_reference_catalog  # the importer reads through us

        document = convert_reference_catalog(document, source=label)  # the reference format
    return catalog_from_dict(document, label=label, path=str(path))


# --- reading YAML ------------------------------------------------------------------------------

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MAP, _SEQ = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_STR, _FLOAT = "tag:yaml.org,2002:str", "tag:yaml.org,2002:float"


class _Unusual(Exception):
    """Something the fast reader leaves to PyYAML's own constructor (tags, merge keys, ...)."""


class DuplicateKeyError(yaml.YAMLError):
    """A mapping that gives the same key twice (PyYAML would silently keep the last one)."""

    def __init__(self, key: Any, mark: Any):
        super().__init__(f"duplicate key {key!r}")
        self.problem = f"duplicate key {key!r}"
        self.problem_mark = mark


class _Scalars:
    """Plain-scalar resolution and construction exactly as the safe loader does it, memoised."""

    def __init__(self) -> None:
        self.resolver = yaml.resolver.Resolver()
        self.constructor = yaml.constructor.SafeConstructor()
        self.tags: dict[tuple[str, Any], str] = {}
        self.values: dict[tuple[str, str], Any] = {}

    def value(self, event: Any) -> Any:
        if event.tag not in (None, "!"):
            raise _Unusual(event.tag)
        key = (event.value, event.implicit)
        tag = self.tags.get(key)
        if tag is None:
            tag = self.resolver.resolve(yaml.ScalarNode, event.value, event.implicit)
            if len(self.tags) < 100_000:
                self.tags[key] = tag
        if tag == _STR:
            return event.value
        if tag == _FLOAT:
            try:
                return float(event.value)  # the common spellings; YAML's others via the constructor
            except ValueError:
                pass
        cached = self.values.get((tag, event.value))
        if cached is None:
            construct = self.constructor.yaml_constructors.get(tag)
            if construct is None or tag == "tag:yaml.org,2002:merge":
                raise _Unusual(tag)
            cached = construct(self.constructor, yaml.ScalarNode(tag, event.value))
            if len(self.values) < 100_000 and not isinstance(cached, (list, dict)):
                self.values[(tag, event.value)] = cached
        return cached


_SCALARS = _Scalars()


def _load_events(text: str) -> Any:
    """Build plain data straight from the C parser's events (3x faster than composing nodes)."""
    root: list[Any] = []
    stack: list[list[Any]] = []  # [container, pending key, whether a key is pending]
    anchors: dict[str, Any] = {}
    seen_keys: list[set] = []
    for event in yaml.parse(text, Loader=_BaseLoader):
        kind = type(event)
        if kind is yaml.ScalarEvent:
            value = _SCALARS.value(event)  # memo tables: plain dict reads and writes, GIL-safe
        elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            if event.tag not in (None, "!", _MAP if kind is yaml.MappingStartEvent else _SEQ):
                raise _Unusual(event.tag)
            value = {} if kind is yaml.MappingStartEvent else []
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            stack.pop()
            if kind is yaml.MappingEndEvent:
                seen_keys.pop()
            continue
        elif kind is yaml.AliasEvent:
            if event.anchor not in anchors:
                raise _Unusual("alias")
            value = anchors[event.anchor]
        else:  # stream and document events
            continue
        anchor = getattr(event, "anchor", None)
        if anchor is not None and kind is not yaml.AliasEvent:
            anchors[anchor] = value
        if not stack:
            root.append(value)
        else:
            frame = stack[-1]
            container = frame[0]
            if type(container) is list:
                container.append(value)
            elif not frame[2]:
                if isinstance(value, (list, dict)) or value == "<<":
                    raise _Unusual("complex or merge key")
                frame[1], frame[2] = value, True
                if value in seen_keys[-1]:
                    raise DuplicateKeyError(value, event.start_mark)
                seen_keys[-1].add(value)
            else:
                container[frame[1]] = value
                frame[2] = False
        if kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            stack.append([value, None, False])
            if kind is yaml.MappingStartEvent:
                seen_keys.append(set())
    if len(root) > 1:
        raise _Unusual("several documents")
    return root[0] if root else None


def _load_text(text: str) -> Any:
    try:
        return _load_events(text)
    except (_Unusual, RecursionError):
        return yaml.load(text, Loader=_BaseLoader)  # noqa: S506 - a safe loader


def read_yaml(path: str | Path) -> Any:
    """A YAML file's content, read with the safe C loader; YAML errors become CatalogError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CatalogError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CatalogError(f"{path}: cannot be read: {error}") from None
    try:
        return _load_text(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error)
        raise CatalogError(f"{path}: not valid YAML{where}: {problem}") from None


# --- structure ---------------------------------------------------------------------------------


# Identifiers the expression parser reads as something other than a variable when no variable
# list is given (constants and special numbers); a variable must not be called that.
_CONSTANT_WORDS = {"pi", "e", "E", "PI", "Pi", "inf", "infinity", "nan"}


@functools.lru_cache(maxsize=4096)
def is_reserved_name(name: str) -> bool:
    """True for a name a variable must not have: a keyword, a constant or a function name."""
    return (
        keyword.iskeyword(name)
        or name in _CONSTANT_WORDS
        or name.lower() in ("inf", "infinity", "nan")
        or lookup_function(name) is not None
    )


def _is_mapping(value: Any) -> bool:
    return type(value) is dict or isinstance(value, Mapping)  # the exact-type test is the fast path


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
    if not _is_mapping(spec):
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
    if not _is_mapping(raw):
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
    if "target" in raw:
        target = raw["target"]
        if not isinstance(target, str) or not target.strip():
            raise _fail(label, f"{where}: target", f"expected a non-empty name, got {target!r}")
        if target in taken:
            raise _fail(label, f"{where}: target", f"{target!r} is also the name of an input variable")
    else:
        target = "y"
        while target in taken:  # an input called y: the default output name steps aside
            target += "_"
    sources = _strings(raw["sources"], label, f"{where}: sources") if "sources" in raw else list(catalog_sources)
    meta = raw.get("meta") or {}
    if not _is_mapping(meta):
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
        _LEVEL.clear()

