"""Import catalogs written in the reference format, and write catalogs in srbf's own format.

The reference format is the one the symbolic-data-catalogs data layer (MIT) stores its problem
sets in: a ``metadata`` block and an ``expressions`` mapping from problem id to ``prepared`` (a
formula over ``v1..vn``), ``vars`` (``v1..vn`` with ``sample_range`` and ``sample_type``
``[base, sign]``; ``v0`` names the target) and ``sources``. :func:`convert_reference_catalog`
turns one such document into the plain dict srbf's catalog format holds (see docs/catalogs.md):
formulas over the variables' own names, distributions and signs spelled out, per-problem facts
gathered under ``meta``. The conversion is pure (dict in, dict out); ``write_catalog``
(``srbf.catalogs.files``, re-exported here) does the I/O. ``tools/build_catalogs.py`` uses both
to build the shipped files.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping

from srbf.catalogs.files import read_catalog_file, write_catalog  # noqa: F401 - write_catalog re-exported (docs/catalogs.md)
from srbf.catalogs.loader import FORMAT_VERSION, as_number, is_reserved_name
from srbf.catalogs.model import CatalogError
from srbf.expr import Call, Expr, ParseError, Var, parse, to_infix

# sample_type = [base, sign] in the reference format -> srbf's distribution and sign.
REFERENCE_DISTRIBUTIONS = {"uni": "uniform", "log": "log_uniform", "int": "integer"}
REFERENCE_SIGNS = {"pos": "range", "neg": "negative", "pos_neg": "both"}

_V_RE = re.compile(r"\bv(\d+)\b")
# The entry keys that the conversion consumes; every other key is carried into meta as is.
_CONSUMED_ENTRY_KEYS = {"raw", "prepared", "vars", "n_variables", "sources", "meta"}
_CONSUMED_METADATA_KEYS = {"name", "version", "description", "sources", "license", "conventions"}


def safe_variable_name(name: Any, taken: set[str]) -> str:
    """``name`` made a valid, unreserved identifier not in ``taken``, deterministically.

    Characters that cannot appear in an identifier become ``_``; a leading digit gets an ``x``
    prefix; a reserved or taken name gets trailing underscores until it is free (``lambda`` ->
    ``lambda_``).
    """
    text = re.sub(r"\W", "_", str(name).strip()) or "x"
    if text[0].isdigit():
        text = "x" + text
    while is_reserved_name(text) or text in taken:
        text += "_"
    return text


def _rename(expr: Expr, mapping: Mapping[str, str]) -> Expr:
    if isinstance(expr, Var):
        return Var(mapping.get(expr.name, expr.name))
    if isinstance(expr, Call):
        return Call(expr.op, tuple(_rename(arg, mapping) for arg in expr.args))
    return expr


def _input_keys(vars_block: Mapping[str, Any], where: str) -> list[str]:
    keys = [k for k in vars_block if k != "v0"]
    indices = []
    for key in keys:
        match = re.fullmatch(r"v(\d+)", str(key))
        if match is None:
            raise CatalogError(f"{where}: vars: key {key!r} is not of the form v1, v2, ...")
        indices.append(int(match.group(1)))
    if sorted(indices) != list(range(1, len(indices) + 1)):
        raise CatalogError(f"{where}: vars: inputs must be v1..v{len(indices)} without gaps, got {sorted(keys)}")
    return [f"v{i}" for i in range(1, len(indices) + 1)]


def _convert_variable(key: str, spec: Any, where: str, notes: list[str]) -> dict[str, Any]:
    if not isinstance(spec, Mapping):
        raise CatalogError(f"{where}: vars.{key}: expected a mapping, got {spec!r}")
    raw_range = spec.get("sample_range")
    if not isinstance(raw_range, (list, tuple)):
        raise CatalogError(f"{where}: vars.{key}.sample_range: expected [low, high], got {raw_range!r}")
    bounds = [as_number(b) for b in raw_range]
    numeric = [b for b in bounds if b is not None]
    dropped = [b for b, n in zip(raw_range, bounds) if n is None]
    if len(numeric) != 2 or bounds[:2] != numeric:
        raise CatalogError(f"{where}: vars.{key}.sample_range: expected two numbers [low, high], got {raw_range!r}")
    if dropped:  # e.g. a stray 'uses_positive=False' left as a third element upstream
        notes.append(f"vars.{key}.sample_range: dropped non-numeric extra element(s) {dropped!r}")
    sample_type = spec.get("sample_type", ["uni", "pos"])
    if not isinstance(sample_type, (list, tuple)) or len(sample_type) != 2:
        raise CatalogError(f"{where}: vars.{key}.sample_type: expected [base, sign], got {sample_type!r}")
    base, sign = sample_type
    if base not in REFERENCE_DISTRIBUTIONS:
        raise CatalogError(
            f"{where}: vars.{key}.sample_type[0]: unknown base {base!r} (expected one of {', '.join(REFERENCE_DISTRIBUTIONS)})"
        )
    if sign not in REFERENCE_SIGNS:
        raise CatalogError(
            f"{where}: vars.{key}.sample_type[1]: unknown sign {sign!r} (expected one of {', '.join(REFERENCE_SIGNS)})"
        )
    out: dict[str, Any] = {"name": None, "range": numeric}
    if REFERENCE_DISTRIBUTIONS[base] != "uniform":
        out["distribution"] = REFERENCE_DISTRIBUTIONS[base]
    if REFERENCE_SIGNS[sign] != "range":
        out["sign"] = REFERENCE_SIGNS[sign]
    return out


def _formula(text: Any, keys: list[str], mapping: Mapping[str, str], where: str) -> str:
    if not isinstance(text, str) or not text.strip():
        raise CatalogError(f"{where}: prepared: expected a formula over {', '.join(keys)}, got {text!r}")
    try:
        tree = parse(text, keys)
    except ParseError as error:
        raise CatalogError(f"{where}: prepared: {text!r} does not parse: {error}") from None
    return to_infix(_rename(tree, mapping))


def _same_formula(text: Any, names: list[str], formula: str, target: str) -> bool:
    """Whether ``text`` (over the variables' names, perhaps ``target = ...``) reads as the same
    tree as ``formula``."""
    if not isinstance(text, str):
        return False
    try:
        return parse(text, names, target=target) == parse(formula, names)
    except ParseError:
        return False


def _rename_text(text: str, keys: list[str], mapping: Mapping[str, str]) -> str:
    """Formula-like text over v1..vn with the variables' names: reprinted if it parses."""
    try:
        return to_infix(_rename(parse(text, keys), mapping))
    except ParseError:
        return _V_RE.sub(lambda m: mapping.get(m.group(0), m.group(0)), text)


def convert_reference_entry(
    problem_id: str, entry: Mapping[str, Any], *, catalog_sources: list[str], where: str
) -> dict[str, Any]:
    """One reference-format expression as an srbf problem dict (see convert_reference_catalog)."""
    where = f"{where}: problem {problem_id!r}"
    if not isinstance(entry, Mapping):
        raise CatalogError(f"{where}: expected a mapping, got {type(entry).__name__}")
    vars_block = entry.get("vars")
    if not isinstance(vars_block, Mapping) or not vars_block:
        raise CatalogError(f"{where}: vars: expected a mapping v1..vn (and v0 for the target), got {vars_block!r}")
    keys = _input_keys(vars_block, where)
    notes: list[str] = []
    variables, mapping, renamed, taken = [], {}, {}, set()
    for key in keys:
        variable = _convert_variable(key, vars_block[key], where, notes)
        original = vars_block[key].get("name", key)
        name = safe_variable_name(original, taken)
        taken.add(name)
        if name != original:
            renamed[name] = original
        variable["name"] = name
        mapping[key] = name
        variables.append(variable)
    target_spec = vars_block.get("v0") or {}
    target_original = str(target_spec.get("name", "y")) if isinstance(target_spec, Mapping) else "y"
    target = target_original
    while target in taken:
        target += "_"
    if target != target_original:
        renamed[target] = target_original

    formula = _formula(entry.get("prepared"), keys, mapping, where)
    names = [v["name"] for v in variables]
    if "n_variables" in entry and entry["n_variables"] != len(keys):
        notes.append(f"n_variables {entry['n_variables']!r} differs from the {len(keys)} declared inputs")

    meta: dict[str, Any] = {}
    raw = entry.get("raw")
    if raw is not None and not _same_formula(raw, names, formula, target_original):
        meta["raw"] = raw  # the published spelling, when it is not just the formula reprinted
    for key, value in entry.items():
        if key in _CONSUMED_ENTRY_KEYS:
            continue
        if key == "accept" and isinstance(value, list):
            value = [_rename_text(str(form), keys, mapping) if isinstance(form, str) else form for form in value]
        elif key == "constraints" and isinstance(value, list):
            value = [_V_RE.sub(lambda m: mapping.get(m.group(0), m.group(0)), c) if isinstance(c, str) else c for c in value]
        meta[key] = value
    units = {}
    for key in [*keys, "v0"]:
        spec = vars_block.get(key)
        if isinstance(spec, Mapping) and "units" in spec:
            units[mapping.get(key, target)] = spec["units"]
    if units:
        meta["units"] = units
    reference_meta = entry.get("meta")
    if isinstance(reference_meta, Mapping):
        for key, value in reference_meta.items():
            if key == "erbench_task_id" and value == problem_id:
                continue  # the id itself
            meta[key] = value
    elif reference_meta is not None:
        meta["reference_meta"] = reference_meta
    if renamed:
        meta["renamed"] = renamed
    if notes:
        meta["import_notes"] = notes

    problem: dict[str, Any] = {"id": str(problem_id), "formula": formula}
    if target != "y":
        problem["target"] = target
    problem["variables"] = variables
    sources = entry.get("sources")
    if sources is not None:
        sources = [str(s) for s in sources] if isinstance(sources, list) else [str(sources)]
        if sources != catalog_sources:
            problem["sources"] = sources
    if meta:
        problem["meta"] = meta
    return problem


def convert_reference_catalog(document: Mapping[str, Any], *, source: str = "<reference>") -> dict[str, Any]:
    """A reference-format catalog document (``metadata`` + ``expressions``) as an srbf catalog dict.

    Problems keep their ids and order. Each formula is the reference's ``prepared`` formula with
    ``v1..vn`` replaced by the variables' names (renamed with a trailing ``_`` when a name is a
    keyword, a constant or a function name, recorded in ``meta.renamed``). Per-problem sources
    equal to the set's sources are left out (they default to the set's). ``source`` names the
    input in error messages and in ``meta.imported_from``.
    """
    if not isinstance(document, Mapping) or "expressions" not in document:
        raise CatalogError(f"{source}: not a reference-format catalog (expected 'metadata' and 'expressions' blocks)")
    metadata = document.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        raise CatalogError(f"{source}: metadata: expected a mapping, got {type(metadata).__name__}")
    expressions = document["expressions"]
    if not isinstance(expressions, Mapping) or not expressions:
        raise CatalogError(f"{source}: expressions: expected a non-empty mapping from problem id to expression")
    name = metadata.get("name") or Path(source).stem.split(".")[0]
    version = metadata.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int):
        raise CatalogError(f"{source}: metadata.version: expected an integer, got {version!r}")
    sources = metadata.get("sources") or []
    sources = [str(s) for s in sources] if isinstance(sources, list) else [str(sources)]

    problems = [
        convert_reference_entry(str(pid), entry, catalog_sources=sources, where=source)
        for pid, entry in expressions.items()
    ]
    catalog: dict[str, Any] = {
        "srbf_catalog": FORMAT_VERSION,
        "name": str(name),
        "version": version,
        "description": str(metadata.get("description", "")).strip(),
        "license": str(metadata.get("license", "")),
        "sources": sources,
    }
    conventions = metadata.get("conventions")
    if conventions:
        catalog["conventions"] = dict(conventions) if isinstance(conventions, Mapping) else {"notes": str(conventions)}
    meta = {k: v for k, v in metadata.items() if k not in _CONSUMED_METADATA_KEYS}
    meta["imported_from"] = {"format": "symbolic-data-catalogs", "file": Path(source).name}
    catalog["meta"] = meta
    catalog["problems"] = problems
    return catalog


def import_reference_catalog(path: str | Path) -> dict[str, Any]:
    """Read a reference-format catalog file and return it as an srbf catalog dict."""
    return convert_reference_catalog(read_catalog_file(path), source=str(path))
