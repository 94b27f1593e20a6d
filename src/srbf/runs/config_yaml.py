"""Reading a config file's YAML: YAML 1.2 spellings, duplicate keys refused, errors with line and column.

``read_config_file(path)`` returns the document as plain data; ``srbf.runs.config.load_config``
validates it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from srbf.runs.config_errors import ConfigError, ConfigProblem

__all__ = ["read_config_file"]


class _Loader(yaml.SafeLoader):
    """YAML 1.2 spellings for the values a config holds, and duplicate keys refused.

    Only true/false are booleans (``no`` or ``off`` as an option value stays text), a date stays
    text, and ``1e-3`` is a number, not text as in YAML 1.1.
    """

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
    except yaml.YAMLError as error:
        raise ConfigError([_yaml_problem(error, source)]) from None
