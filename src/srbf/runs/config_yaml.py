"""Reading a config file's YAML: YAML 1.2 spellings, duplicate keys refused, errors with line and column.

``read_config_file(path)`` returns the document as plain data; ``srbf.runs.config.load_config``
validates it. The reader refuses, while composing and so before anything is built, more than
``MAX_ALIASES`` alias uses (an alias bomb is a few lines) and nesting deeper than ``MAX_DEPTH``
(which PyYAML's recursive composer would turn into a RecursionError): ``srbf.runs.config_limits``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from srbf.runs.config_errors import ConfigError, ConfigProblem, render_path
from srbf.runs.config_limits import MAX_ALIASES, MAX_DEPTH

__all__ = ["read_config_file"]


class _LimitError(yaml.YAMLError):
    """A size limit broken while composing: at ``path`` (keys and indices), ``message``, ``mark``."""

    def __init__(self, path: list[Any], message: str, mark: yaml.Mark):
        super().__init__(message)
        self.path, self.message, self.mark = tuple(path), message, mark


class _Loader(yaml.SafeLoader):
    """YAML 1.2 spellings for the values a config holds, duplicate keys refused, sizes limited.

    Only true/false are booleans (``no`` or ``off`` as an option value stays text), a date stays
    text, and ``1e-3`` is a number, not text as in YAML 1.1.
    """

    def __init__(self, stream: str):
        super().__init__(stream)
        self._aliases = 0
        self._path: list[Any] = []  # the keys and indices down to the node being composed

    def fetch_flow_collection_start(self, TokenClass: type) -> None:
        # The scanner reads ahead of the composer, and its cost grows with the square of the
        # bracket depth: "[[[[..." is refused here, at the key the composer is reading.
        if self.flow_level >= MAX_DEPTH:
            raise _LimitError(self._path, f"nested deeper than {MAX_DEPTH} levels, the limit", self.get_mark())
        super().fetch_flow_collection_start(TokenClass)

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                message = f"more than {MAX_ALIASES} alias uses (*name), the limit"
                raise _LimitError(self._path + [_part(index)], message, self.peek_event().start_mark)
            return super().compose_node(parent, index)
        if parent is None or index is None:  # the document, or a key: at its mapping's depth
            return super().compose_node(parent, index)
        self._path.append(_part(index))
        if len(self._path) > MAX_DEPTH:
            message = f"nested deeper than {MAX_DEPTH} levels, the limit"
            raise _LimitError(self._path, message, self.peek_event().start_mark)
        try:
            return super().compose_node(parent, index)
        finally:
            self._path.pop()

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, Any] = {}
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                key = self.construct_object(key_node)
                if key in seen:
                    message = f"duplicate key {key!r} (first at line {seen[key].line + 1})"
                    raise yaml.constructor.ConstructorError(None, None, message, key_node.start_mark)
                seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep=deep)


def _part(index: Any) -> Any:
    """The path part of a node composed at ``index``: its key's text, its list index, or "?" (the
    value of a key that is not text)."""
    if isinstance(index, yaml.ScalarNode):
        return index.value
    return index if isinstance(index, int) else "?"


_YAML_11_ONLY = ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")  # yes/no/on/off; bare dates
_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in _YAML_11_ONLY]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"), list("-+0123456789")
)


def _yaml_problem(error: yaml.YAMLError, source: str) -> ConfigProblem:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    if mark is None:
        return ConfigProblem(source, "", f"not valid YAML: {problem}")
    context = getattr(error, "context", None)
    context_mark = getattr(error, "context_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}"
    extra = ""
    if context and context_mark is not None and context_mark.line != mark.line:
        extra = f" ({context} at line {context_mark.line + 1})"
    return ConfigProblem(source, "", f"{where}: {problem}{extra}")


def read_config_file(path: str | Path) -> Any:
    """The YAML document of a config file, as plain data; malformed YAML names line and column."""
    source = str(path)
    file = Path(path).expanduser()
    if not file.is_file():
        raise ConfigError([ConfigProblem(source, "", "no such config file")])
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError([ConfigProblem(source, "", f"not UTF-8 text (byte {error.start})")]) from None
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    except _LimitError as error:
        raise ConfigError([ConfigProblem(source, render_path(error.path),
                                         f"{error.message} (line {error.mark.line + 1})")]) from None
    except yaml.YAMLError as error:
        raise ConfigError([_yaml_problem(error, source)]) from None
