"""Config problems and how they are worded: ``ConfigProblem``, ``ConfigError`` and the helpers that
show a bad value as the user wrote it and find the closest valid key or name for a typo.

No pydantic here: the YAML reader (``config_yaml``) and the schema (``config_schema``) both report
through these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from srbf.core import SrbfError, closest, did_you_mean

__all__ = ["ConfigError", "ConfigProblem", "render_path"]

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


@dataclass(frozen=True)
class ConfigProblem:
    """One problem: the file (or ``<dict>``), the key path (``method.time_limit``) and what is wrong."""

    source: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}: {self.path}: {self.message}" if self.path else f"{self.source}: {self.message}"


class ConfigError(SrbfError, ValueError):
    """A config that cannot be used. ``problems`` lists them; the message has one line each."""

    def __init__(self, problems: Sequence[ConfigProblem]):
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def render_path(loc: Sequence[Any]) -> str:
    """A key path as a config's reader writes it: ``methods[0].options['odd key']``."""
    text = ""
    for part in loc:
        if isinstance(part, int) and not isinstance(part, bool):
            text += f"[{part}]"
        elif isinstance(part, str) and _PLAIN_KEY.fullmatch(part):
            text += f".{part}" if text else part
        else:
            text += f"[{part!r}]"
    return text


def _show(value: Any, limit: int = 60) -> str:
    """A value as the user wrote it in YAML, shortened."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _unknown_key(key: Any, allowed: Sequence[str], elsewhere: Mapping[str, str] | None = None) -> str:
    """'unknown key' with where the key belongs (``elsewhere``: key -> its place in another
    section), or the closest valid key, or the valid keys."""
    elsewhere = elsewhere or {}
    if key in elsewhere and key not in allowed:
        return f"unknown key here; did you mean {elsewhere[key]}?"
    hint = did_you_mean(key, allowed)
    if hint:
        return "unknown key" + hint
    close = closest(key, list(elsewhere))
    if close is not None:
        return f"unknown key here; did you mean {elsewhere[close]}?"
    return f"unknown key (valid keys: {', '.join(allowed)})"
