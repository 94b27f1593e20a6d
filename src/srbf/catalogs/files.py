"""Catalog files in and out: JSON through the standard library, YAML through PyYAML's C loader.

The shipped sets are JSON files (the standard library parses all 29 in a few hundredths of a
second); a user's catalog may be JSON or YAML, told apart by its suffix (``.json``, else YAML).
Both readers refuse a mapping that gives a key twice (both parsers would silently keep the last
one), and every parse error becomes one ``CatalogError`` line naming the file, line and column.
``write_catalog`` writes JSON for a ``.json`` path (one problem per line, ``comment`` lines
first, since JSON has none) and YAML otherwise (variable specs and number lists on one line,
the comment as ``#`` lines).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

import yaml

from srbf.catalogs.model import CatalogError

__all__ = ["catalog_text", "dump_catalog", "parse_catalog_text", "read_catalog_file", "write_catalog"]

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C parser when PyYAML has libyaml
_BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_MERGE = "tag:yaml.org,2002:merge"


def is_json(path: str | Path) -> bool:
    return str(path).lower().endswith(".json")


# --- reading -----------------------------------------------------------------------------------


class _DuplicateKey(ValueError):
    pass


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(f"duplicate key {key!r}")
            seen.add(key)
    return out


class _StrictLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """PyYAML's safe loader, refusing a key given twice in one mapping (merged keys aside)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: set = set()
            for key_node, _ in node.value:
                if key_node.tag == _MERGE:
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                except TypeError:  # an unhashable key: PyYAML's own error follows
                    continue
                if duplicate:
                    raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


def read_catalog_file(path: str | Path) -> Any:
    """The plain data of a catalog file (JSON for ``.json``, else YAML); a ``CatalogError`` naming
    the file (and the line and column) when it cannot be read or parsed."""
    path = Path(path)
    return parse_catalog_text(catalog_text(path), path)


def catalog_text(path: Path) -> str:
    """The text of a catalog file; a ``CatalogError`` naming the file when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CatalogError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CatalogError(f"{path}: cannot be read: {error}") from None


def parse_catalog_text(text: str, path: Path, *, unique_keys: bool = False) -> Any:
    """The plain data of the text of the catalog file ``path`` (see ``read_catalog_file``).

    ``unique_keys`` skips the search for keys given twice in a JSON text known to have none (a
    shipped file whose bytes are those recorded when it was built): it costs a third of the parse.
    """
    if is_json(path):
        try:
            return json.loads(text) if unique_keys else json.loads(text, object_pairs_hook=_json_object)
        except json.JSONDecodeError as error:
            raise CatalogError(f"{path}: not valid JSON (line {error.lineno}, column {error.colno}): {error.msg}") from None
        except _DuplicateKey as error:
            raise CatalogError(f"{path}: not valid JSON: {error}") from None
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error)
        raise CatalogError(f"{path}: not valid YAML{where}: {problem}") from None


# --- writing -----------------------------------------------------------------------------------


class _Flow(dict):
    """A mapping written on one line: ``{name: x, range: [0, 1]}``."""


class _FlowList(list):
    """A list written on one line: ``[0.1, 10.0]``."""


class _Dumper(_BaseDumper):  # type: ignore[misc, valid-type]
    pass


_Dumper.add_representer(_Flow, lambda d, data: d.represent_mapping("tag:yaml.org,2002:map", data, flow_style=True))
_Dumper.add_representer(_FlowList, lambda d, data: d.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=True))


def _styled(value: Any, *, key: str = "") -> Any:
    """Lists of numbers and variable specs on one line; everything else in block style."""
    if isinstance(value, Mapping):
        return {k: _styled(v, key=str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if key == "variables" and all(isinstance(v, Mapping) for v in value):
            return [_Flow({k: _styled(x) for k, x in v.items()}) for v in value]
        if value and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            return _FlowList(value)
        return [_styled(v) for v in value]
    return value


def _json_text(catalog: Mapping[str, Any], header: str) -> str:
    def text(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)

    fields = dict(catalog)
    if header:
        fields = {"comment": header.splitlines(), **{k: v for k, v in fields.items() if k != "comment"}}
    lines = [f"{text(k)}: {text(v)}" for k, v in fields.items() if k != "problems"]
    if "problems" in fields:
        problems = ",\n".join(text(p) for p in fields["problems"])
        lines.append(f'"problems": [\n{problems}\n]')
    return "{\n" + ",\n".join(lines) + "\n}\n"


def dump_catalog(catalog: Mapping[str, Any], *, header: str = "", json_format: bool = False) -> str:
    """The text of an srbf catalog dict: YAML with ``header`` as leading comment lines, or JSON
    (``json_format``) with ``header`` as the ``comment`` field's lines."""
    if json_format:
        return _json_text(catalog, header)
    body = yaml.dump(
        _styled(dict(catalog)), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1_000_000, indent=2
    )
    comment = "".join(f"# {line}".rstrip() + "\n" for line in header.splitlines()) if header else ""
    return comment + body


def write_catalog(catalog: Mapping[str, Any], path: str | Path, *, header: str = "") -> Path:
    """Write an srbf catalog dict to ``path`` (parents created): JSON for a ``.json`` path, YAML
    otherwise; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_catalog(catalog, header=header, json_format=is_json(path)), encoding="utf-8")
    return path
