"""Run configs: YAML files read into frozen, validated config objects.

A config names an experiment, the problem sets and how to sample them, one method or a list of
methods, the budget ladder and any option sweeps; docs/config.md is the long form.
``load_config(path)`` reads and validates a file, ``config_from_dict(d)`` a dict. Every problem
found is reported at once, in one ``ConfigError`` with one line per problem that names the file,
the key path and the bad value, and the closest valid key or name for a typo::

    configs/q.yaml: method.time_limt: unknown key; did you mean 'time_limit'?
    configs/q.yaml: sampling.n_support: must be a positive integer, got -3

The config objects are the frozen pydantic models ``RunConfig``, ``MethodConfig``,
``SamplingConfig``, ``Sweep`` and ``Adapter``, with every default filled in and every short form
expanded. ``srbf.runs.sweeps`` turns a RunConfig into variants (``expand``) and cells (variant x
budget x condition).

Relative paths to inputs (catalog files, method files, interpreters) are read from the config
file's folder; ``results`` is where you run srbf from.

The work is split by job: ``config_yaml`` reads the YAML, ``config_limits`` holds the sizes a config
may have, ``config_fields`` checks single values, ``config_catalogs`` the catalogs and problems a
config names, ``config_schema`` holds the models, ``config_errors`` has ``ConfigProblem`` and
``ConfigError``. This module validates, words pydantic's errors as one line per problem, and
re-exports every name of ``__all__``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence, get_args

from pydantic import BaseModel, ValidationError

from srbf.runs.config_catalogs import is_catalog_path
from srbf.runs.config_errors import ConfigError, ConfigProblem, _show, _unknown_key, render_path
from srbf.runs.config_fields import (
    ADAPTER_TYPES,
    BUILTIN_METHODS,
    DEFAULT_BUDGETS,
    PROVENANCE_LABELS,
    builtin_method_names,
)
from srbf.runs.config_limits import data_problems
from srbf.runs.config_schema import Adapter, MethodConfig, RunConfig, SamplingConfig, Sweep
from srbf.runs.config_yaml import read_config_file

__all__ = [
    "ADAPTER_TYPES",
    "BUILTIN_METHODS",
    "DEFAULT_BUDGETS",
    "PROVENANCE_LABELS",
    "Adapter",
    "ConfigError",
    "ConfigProblem",
    "MethodConfig",
    "RunConfig",
    "SamplingConfig",
    "Sweep",
    "builtin_method_names",
    "config_from_dict",
    "is_catalog_path",
    "load_config",
    "read_config_file",
]


# --- entry points -------------------------------------------------------------------------------


def config_from_dict(data: Any, source: str = "<dict>", *, base_dir: str | Path | None = None,
                     allow_large: bool = False) -> RunConfig:
    """Validate a config given as a dict (as read from YAML); ``source`` names it in errors.

    Relative input paths (catalog files, method files, interpreters) are read from ``base_dir``,
    by default the current directory. The data is first held to the limits of
    ``srbf.runs.config_limits``; ``allow_large`` lifts the one on the number of variants.
    """
    if data is None:
        raise ConfigError([ConfigProblem(source, "", "the config is empty")])
    limits = data_problems(data)
    if limits:
        raise ConfigError([ConfigProblem(source, render_path(at), message) for at, message in limits])
    if not isinstance(data, Mapping):
        message = f"must be a mapping of keys (experiment, catalogs, method, ...), got {_show(data)}"
        raise ConfigError([ConfigProblem(source, "", message)])
    context = {"base_dir": Path(base_dir) if base_dir is not None else Path.cwd(), "allow_large": allow_large,
               "source": source}
    try:
        return RunConfig.model_validate(dict(data), context=context)
    except ValidationError as error:
        raise ConfigError(_problems_from(error, source)) from None


def load_config(path: str | Path, *, allow_large: bool = False) -> RunConfig:
    """Read and validate a config file; raises ConfigError naming the file, key path and value.
    ``allow_large``: accept more than ``MAX_VARIANTS`` method configurations (``--allow-large``)."""
    from srbf.runs.shipped import config_path

    path = config_path(path)  # a shipped config may be named: quickstart
    data = read_config_file(path)
    return config_from_dict(data, source=str(path), base_dir=Path(path).expanduser().resolve().parent,
                            allow_large=allow_large)


# --- pydantic's errors as one line per problem --------------------------------------------------


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _section_at(loc: Sequence[Any]) -> type[BaseModel] | None:
    """The model that holds the mapping at ``loc`` (list indices skipped)."""
    model: type[BaseModel] | None = RunConfig
    for part in loc:
        if isinstance(part, int):
            continue
        info = model.model_fields.get(part) if model is not None else None
        if info is None:
            return None
        model = _model_in(info.annotation)
    return model


_SECTIONS = {"": RunConfig, "sampling": SamplingConfig, "method": MethodConfig}


def _unknown_key_at(loc: tuple[Any, ...]) -> str:
    """'unknown key' with where the key belongs, or the closest valid key, or the valid keys."""
    key, parent = loc[-1], loc[:-1]
    model = _section_at(parent)
    if model is None:
        return "unknown key"
    elsewhere: dict[str, str] = {}  # keys of the other main sections: sampling keys at the top level, ...
    if model in _SECTIONS.values():
        for section, other in _SECTIONS.items():
            if other is not model:
                for name in other.model_fields:
                    elsewhere.setdefault(name, f"{section}.{name}" if section else f"{name} at the top level")
    return _unknown_key(key, list(model.model_fields), elsewhere)


_MESSAGES = {
    "missing": "missing required key",
    "model_type": "must be a mapping",
    "model_attributes_type": "must be a mapping",
    "dict_type": "must be a mapping",
    "list_type": "must be a list",
    "tuple_type": "must be a list",
    "string_type": "must be text",
}


def _problems_from(error: ValidationError, source: str) -> list[ConfigProblem]:
    problems: list[ConfigProblem] = []
    for item in error.errors(include_url=False):
        loc = tuple(item["loc"])
        kind = item["type"]
        if kind == "srbf":
            for at, message in item["ctx"]["problems"]:
                problems.append(ConfigProblem(source, render_path(loc + tuple(at)), message))
            continue
        if kind == "extra_forbidden":
            message = _unknown_key_at(loc)
        elif kind == "missing":
            message = _MESSAGES[kind]
        elif kind in _MESSAGES:
            message = f"{_MESSAGES[kind]}, got {_show(item['input'])}"
        else:
            text = item["msg"]
            message = f"{text[:1].lower()}{text[1:]}, got {_show(item['input'])}"
        problems.append(ConfigProblem(source, render_path(loc), message))
    unique = []
    for problem in problems:
        if problem not in unique:
            unique.append(problem)
    return unique
