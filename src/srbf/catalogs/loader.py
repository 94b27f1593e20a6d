"""Find, read and validate catalogs: the shipped problem sets by name, or a user's file by path.

``load_catalog`` reads a catalog file (srbf's format, JSON or YAML; a file in the reference format
is converted on the fly), checks its structure field by field, computes its content hash and, unless told
otherwise, admits every entry (see ``admission``). A shipped catalog was admitted when it was built
(tests/catalogs admit every shipped set again), so loading one by name only reads the placeholders
the build recorded: a command that loads all 29 sets does not parse 6,660 formulas first. Nor does
it hash them again: ``content_hashes.txt`` beside the shipped files records each file's sha256 and
its catalog's content hash, and a file whose bytes still have that sha256 takes the recorded hash
(an edited file is hashed in full; tests/catalogs hold the record to the files). Every failure is a ``CatalogError`` whose
message names the file, the problem id, the field and the bad value, e.g.
``feynman.json: problem 'I.6.2': variables[0].range: low 3.0 > high 1.0``.
Shipped catalogs are cached in the process after the first load.
"""

from __future__ import annotations

import functools
import hashlib
import json
import keyword
import math
import re
import threading
from pathlib import Path
from typing import Any, Mapping

from srbf.catalogs.model import (
    DISTRIBUTIONS,
    SIGNS,
    Catalog,
    CatalogEntry,
    CatalogError,
    VariableSpec,
    frozen_mapping,
    thawed,
)
from srbf.catalogs.files import catalog_text, parse_catalog_text
from srbf.core import did_you_mean
from srbf.expr.operators import is_reserved_name as _reserved_in_formulas

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
SHIPPED_SUFFIX = ".json"  # the shipped sets: JSON, which the standard library parses fast
HASHES_FILE = "content_hashes.txt"  # beside them: each file's sha256 and its catalog's content hash

_CACHE: dict[str, Catalog] = {}  # shipped catalogs by name
_LEVEL: dict[str, int] = {}  # how far each cached one was admitted: 0 structure, 1 parse, 2 numeric
_LOCK = threading.Lock()

_IDENTIFIER = re.compile(r"[^\W\d]\w*")
_TOP_KEYS = {"comment", "srbf_catalog", "name", "version", "description", "license", "sources", "conventions", "meta", "problems"}
_REQUIRED_TOP_KEYS = ("srbf_catalog", "name", "version", "problems")
_PROBLEM_KEYS = {"id", "formula", "target", "variables", "sources", "meta"}
_VARIABLE_KEYS = {"name", "range", "distribution", "sign"}


def list_catalogs() -> list[str]:
    """The names of the shipped catalogs, sorted."""
    return sorted(p.stem for p in DATA_DIR.glob(f"*{SHIPPED_SUFFIX}"))


def catalog_path(name: str) -> Path:
    """The file of a shipped catalog; unknown names raise CatalogError with the valid names."""
    path = DATA_DIR / f"{name}{SHIPPED_SUFFIX}"
    if path.is_file():
        return path
    names = list_catalogs()
    raise CatalogError(f"unknown catalog {name!r}{did_you_mean(name, names)} (shipped catalogs: {', '.join(names)}; "
                       "or give a path to a catalog file)")


def _is_path(name_or_path: str | Path) -> bool:
    if isinstance(name_or_path, Path):
        return True
    text = str(name_or_path)
    return "/" in text or "\\" in text or text.endswith((".yaml", ".yml", ".json")) or (
        not (DATA_DIR / f"{text}{SHIPPED_SUFFIX}").is_file() and Path(text).is_file()
    )


def load_catalog(name_or_path: str | Path, *, admit: bool = True, numeric: bool = False) -> Catalog:
    """A shipped catalog by name (``"feynman"``) or a catalog file by path.

    Parameters
    ----------
    name_or_path : str or Path
        A shipped catalog's name (``srbf catalogs list``) or the path of a catalog file
        (.yaml, .yml or .json).
    admit : bool, default True
        Every entry must parse over its declared variables and use only declared variables.
        With ``admit=False`` only the file's structure is checked.
    numeric : bool, default False
        Also evaluate every entry on points from its declared ranges (about 0.2 ms per entry) and
        add those finite on too few points to ``Catalog.placeholders``.

    Returns
    -------
    Catalog
        Its ``name``, ``version``, ``entries`` (``CatalogEntry``: id, formula, variables with
        their ranges, target) and ``placeholders``.

    Raises
    ------
    CatalogError
        An unknown name (with the closest shipped one), an unreadable file, or, with ``admit``,
        an entry that does not parse or uses an undeclared variable (naming the entry).

    Notes
    -----
    A shipped catalog is not parsed again with ``admit``: its build admitted it and recorded its
    placeholders (parsing 6,660 formulas would cost a second a load), and it is cached per process.
    The shipped catalogs passed ``numeric`` when they were built.

    Examples
    --------
    >>> catalog = load_catalog("nguyen")
    >>> catalog.name, catalog.version, len(catalog.entries)
    ('nguyen', 1, 12)
    >>> entry = catalog.entries[0]
    >>> entry.id, entry.formula, [(v.name, v.low, v.high) for v in entry.variables]
    ('Nguyen-1', 'x1**3 + x1**2 + x1', [('x1', -1.0, 1.0)])
    >>> load_catalog("nguyn")
    Traceback (most recent call last):
    srbf.catalogs.model.CatalogError: unknown catalog 'nguyn'...
    """
    from srbf.catalogs.admission import admit_catalog, recorded_placeholders  # they use this module's records

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
    catalog = _read(path, label, shipped=shipped) if cached is None else cached
    if level == 1 and shipped:  # admitted when built (parsing 6,660 formulas costs a second a load)
        catalog = recorded_placeholders(catalog)
    elif level:
        catalog = admit_catalog(catalog, label=label, numeric=numeric)
    if shipped:
        with _LOCK:
            _CACHE[name] = catalog
            _LEVEL[name] = level
    return catalog


def _read(path: Path, label: str, *, shipped: bool = False) -> Catalog:
    if not path.is_file():
        raise CatalogError(f"{label}: no such catalog file")
    try:
        text = catalog_text(path)
        known = _recorded_hash(path, text) if shipped else None
        document = parse_catalog_text(text, path, unique_keys=known is not None)  # built without duplicates
    except CatalogError as error:
        raise CatalogError(str(error).replace(str(path), label, 1)) from None
    if isinstance(document, Mapping) and "srbf_catalog" not in document and "expressions" in document:
        from srbf.catalogs.importer import convert_reference_catalog  # the importer reads through us

        document = convert_reference_catalog(document, source=label)  # the reference format
    return catalog_from_dict(document, label=label, path=str(path), known_hash=known)


# --- the recorded content hashes of the shipped files ------------------------------------------


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=4)
def _recorded(data_dir: Path) -> dict[str, tuple[str, str]]:
    """{catalog name: (sha256 of its file, content hash)} as ``HASHES_FILE`` in ``data_dir`` records them."""
    try:
        lines = (data_dir / HASHES_FILE).read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    rows = (line.split() for line in lines if line and not line.startswith("#"))
    return {row[0]: (row[1], row[2]) for row in rows if len(row) == 3}


def _recorded_hash(path: Path, text: str) -> str | None:
    """The content hash recorded for the shipped file ``path`` if ``text`` is still the file the
    record was made from (same sha256, about a millisecond for all 29), else None."""
    digest, recorded = _recorded(path.parent).get(path.stem, ("", ""))
    return recorded if digest and _sha256(text) == digest else None


def recorded_hashes_text(data_dir: Path = DATA_DIR) -> str:
    """The text of ``HASHES_FILE`` for the catalog files in ``data_dir``, each read, checked and
    hashed in full (``tools/build_catalogs.py`` writes it; a test holds the shipped one to it)."""
    lines = ["# catalog, sha256 of its file, its content hash: written by tools/build_catalogs.py (srbf.catalogs.loader)"]
    for path in sorted(data_dir.glob(f"*{SHIPPED_SUFFIX}")):
        text = catalog_text(path)
        catalog = catalog_from_dict(parse_catalog_text(text, path), label=path.name, path=str(path))
        lines.append(f"{path.stem} {_sha256(text)} {catalog.content_hash}")
    return "\n".join(lines) + "\n"


# --- structure ---------------------------------------------------------------------------------


# Besides srbf.expr.operators' constants and function names, the expression parser reads these
# words as constants or numbers (E, PI, Pi; inf, infinity and nan in any case), and a Python
# keyword cannot name a variable in a formula either.
_MORE_CONSTANT_SPELLINGS = {"E", "PI", "Pi"}
_NUMBER_WORDS = {"inf", "infinity", "nan"}


@functools.lru_cache(maxsize=4096)
def is_reserved_name(name: str) -> bool:
    """True for a name a variable must not have: a keyword, a constant or a function name.

    ``srbf.expr.operators.is_reserved_name`` (constants and function names) plus Python keywords
    and the parser's other spellings of constants and special numbers.
    """
    return (
        keyword.iskeyword(name)
        or name in _MORE_CONSTANT_SPELLINGS
        or name.lower() in _NUMBER_WORDS
        or _reserved_in_formulas(name)
    )


def _is_mapping(value: Any) -> bool:
    return type(value) is dict or isinstance(value, Mapping)  # the exact-type test is the fast path


def _fail(label: str, where: str, message: str) -> CatalogError:
    return CatalogError(f"{label}: {where}: {message}" if where else f"{label}: {message}")


def as_number(value: Any) -> float | None:
    """``value`` as a float if it is a number or a string spelling one (YAML 1.1 reads ``1e5``,
    without a dot, as a string), else None; booleans are not numbers."""
    if type(value) is float:  # nearly every bound in a catalog file
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)  # float() ignores surrounding white space
        except ValueError:
            return None
    return None


def _unknown_key(mapping: Mapping[str, Any], allowed: set[str], label: str, prefix: str, *, what: str = "field") -> CatalogError:
    """The error naming the first key of ``mapping`` not in ``allowed`` (at ``prefix + key``), for
    callers that found ``not mapping.keys() <= allowed``: a misspelt field would otherwise be
    silently ignored."""
    unknown = sorted(set(mapping) - allowed)
    return _fail(label, f"{prefix}{unknown[0]}", f"unknown {what} (allowed: {', '.join(sorted(allowed))})")


def _strings(value: Any, label: str, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(label, where, f"expected a list of strings, got {value!r}")
    return list(value)


@functools.lru_cache(maxsize=4096)
def _name_error(name: str) -> str | None:
    """Why ``name`` cannot name a variable, or None (cached: catalogs reuse a few hundred names)."""
    if not _IDENTIFIER.fullmatch(name):
        return f"{name!r} is not a valid identifier"
    if is_reserved_name(name):
        return f"{name!r} is reserved (a keyword, constant or function name); rename it, e.g. {name + '_'!r}"
    return None


def _variable(spec: Any, label: str, pid: str, index: int, taken: set[str]) -> VariableSpec:
    """The ``index``-th variable of problem ``pid``, checked (the error's location is only
    formatted when there is an error: a catalog has thousands of variables)."""
    if not _is_mapping(spec):
        raise _fail(label, f"problem {pid!r}: variables[{index}]", f"expected a mapping with name and range, got {spec!r}")
    if not spec.keys() <= _VARIABLE_KEYS:
        raise _unknown_key(spec, _VARIABLE_KEYS, label, f"problem {pid!r}: variables[{index}].")
    name = spec.get("name")
    problem = _name_error(name) if isinstance(name, str) else f"{name!r} is not a valid identifier"
    if problem is None and name in taken:
        problem = f"{name!r} is declared twice"
    if problem is not None:
        raise _fail(label, f"problem {pid!r}: variables[{index}].name", problem)
    bounds = spec.get("range")
    if not isinstance(bounds, (list, tuple)) or len(bounds) != 2:
        raise _fail(label, f"problem {pid!r}: variables[{index}].range", f"expected [low, high], got {bounds!r}")
    low, high = as_number(bounds[0]), as_number(bounds[1])
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        for side, raw, value in (("low", bounds[0], low), ("high", bounds[1], high)):
            if value is None or not math.isfinite(value):
                raise _fail(label, f"problem {pid!r}: variables[{index}].range", f"{side} {raw!r} is not a finite number")
    if low > high:
        raise _fail(label, f"problem {pid!r}: variables[{index}].range", f"low {low!r} > high {high!r}")
    distribution = spec.get("distribution", "uniform")
    if distribution not in DISTRIBUTIONS:
        raise _fail(label, f"problem {pid!r}: variables[{index}].distribution", f"unknown distribution {distribution!r} (expected one of {', '.join(DISTRIBUTIONS)})")
    sign = spec.get("sign", "range")
    if sign not in SIGNS:
        raise _fail(label, f"problem {pid!r}: variables[{index}].sign", f"unknown sign {sign!r} (expected one of {', '.join(SIGNS)})")
    if distribution == "log_uniform" and low <= 0:
        raise _fail(label, f"problem {pid!r}: variables[{index}].range", f"log_uniform needs 0 < low, got low {low!r} (use sign: negative or both for negative values)")
    if distribution == "integer" and math.floor(high) < math.ceil(low):
        raise _fail(label, f"problem {pid!r}: variables[{index}].range", f"integer range [{low!r}, {high!r}] contains no integer")
    return VariableSpec(name, low, high, distribution, sign)


def _problem(raw: Any, index: int, label: str, catalog_sources: tuple[str, ...]) -> CatalogEntry:
    if not _is_mapping(raw):
        raise _fail(label, f"problems[{index}]", f"expected a mapping with id, formula and variables, got {raw!r}")
    pid = raw.get("id")
    if isinstance(pid, bool) or not isinstance(pid, (str, int)) or str(pid).strip() == "":
        raise _fail(label, f"problems[{index}].id", f"expected a non-empty string, got {pid!r}")
    pid = str(pid)
    if not raw.keys() <= _PROBLEM_KEYS:
        raise _unknown_key(raw, _PROBLEM_KEYS, label, f"problem {pid!r}: ")
    formula = raw.get("formula")
    if not isinstance(formula, str) or not formula.strip():
        raise _fail(label, f"problem {pid!r}: formula", f"expected a non-empty formula string, got {formula!r}")
    specs = raw.get("variables")
    if not isinstance(specs, list) or not specs:
        raise _fail(label, f"problem {pid!r}: variables", f"expected a non-empty list of variables, got {specs!r}")
    variables, taken = [], set()
    for i, spec in enumerate(specs):
        variable = _variable(spec, label, pid, i, taken)
        taken.add(variable.name)
        variables.append(variable)
    if "target" in raw:
        target = raw["target"]
        if not isinstance(target, str) or not target.strip():
            raise _fail(label, f"problem {pid!r}: target", f"expected a non-empty name, got {target!r}")
        if target in taken:
            raise _fail(label, f"problem {pid!r}: target", f"{target!r} is also the name of an input variable")
    else:
        target = "y"
        while target in taken:  # an input called y: the default output name steps aside
            target += "_"
    sources = tuple(_strings(raw["sources"], label, f"problem {pid!r}: sources")) if "sources" in raw else catalog_sources
    meta = raw.get("meta") or {}
    if not _is_mapping(meta):
        raise _fail(label, f"problem {pid!r}: meta", f"expected a mapping, got {meta!r}")
    return CatalogEntry(pid, formula.strip(), tuple(variables), target, sources, frozen_mapping(meta) if meta else _EMPTY)


def _plain(entry: CatalogEntry) -> dict[str, Any]:
    """An entry as the plain data its file gave (lists as tuples: the same JSON), to be hashed."""
    return {
        "id": entry.id,
        "formula": entry.formula,
        "target": entry.target,
        "variables": [{"name": v.name, "low": v.low, "high": v.high, "distribution": v.distribution, "sign": v.sign} for v in entry.variables],
        "sources": entry.sources,
        "meta": thawed(entry.meta),
    }


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


def catalog_from_dict(document: Any, *, label: str = "<catalog>", path: str = "", known_hash: str | None = None) -> Catalog:
    """Validate an srbf catalog dict (as read from a JSON or YAML file) and build the frozen records.

    ``known_hash`` is the document's content hash when it is known (recorded for a shipped file
    whose bytes are unchanged): hashing the 29 shipped sets costs more than parsing them.
    """
    if not isinstance(document, Mapping):
        raise _fail(label, "", f"expected a mapping at the top level, got {type(document).__name__}")
    for key in _REQUIRED_TOP_KEYS:
        if key not in document:
            raise _fail(label, key, "missing required field")
    if not document.keys() <= _TOP_KEYS:
        raise _unknown_key(document, _TOP_KEYS, label, "", what="top-level field")
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
    _strings(document.get("comment"), label, "comment")  # lines for people reading the file, not catalog content
    conventions = document.get("conventions") or {}
    meta = document.get("meta") or {}
    for key, value in (("conventions", conventions), ("meta", meta)):
        if not isinstance(value, Mapping):
            raise _fail(label, key, f"expected a mapping, got {value!r}")
    problems = document["problems"]
    if not isinstance(problems, list) or not problems:
        raise _fail(label, "problems", f"expected a non-empty list of problems, got {problems!r}")

    shared_sources = tuple(sources)
    entries = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(problems):
        entry = _problem(raw, index, label, shared_sources)
        if entry.id in seen:
            raise _fail(label, f"problem {entry.id!r}: id", f"duplicate id (also problems[{seen[entry.id]}])")
        seen[entry.id] = index
        entries.append(entry)
    return Catalog(
        name=name,
        version=version,
        description=description.strip(),
        entries=tuple(entries),
        sources=shared_sources,
        license=license_,
        conventions=frozen_mapping(conventions),
        content_hash=known_hash or content_hash(name, version, [_plain(e) for e in entries]),
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
    _recorded.cache_clear()

