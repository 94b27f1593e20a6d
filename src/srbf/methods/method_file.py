"""Reading one ``method.yaml``: the schema of a roster method's file and its one-line errors.

The file is checked field by field by a pydantic model (unknown fields refused, so a typo is not
silently ignored); its option constraints by ``srbf.methods.options.constraint_problems``. Any
problem becomes one ``MethodFileError`` line: the file, the field's path, what is wrong and the
value found. docs/adding_a_method.md describes every field.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

import re

import yaml
from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

_CONFIG_NAME = re.compile(r"[a-z][a-z0-9_]*")
# the primary search paradigms of SymbolicArena's grouping (seed 002, its Table 16), as slugs
PARADIGMS = ("structured_search", "evolutionary", "neural_policy", "hybrid", "transformer", "llm_assisted")


class _Run(BaseModel):
    """The keys of a config's method entry that method.yaml may give defaults for."""

    model_config = ConfigDict(extra="forbid")
    options: dict[str, Any] = Field(default_factory=dict)
    time_limit: float | None = None
    config_provenance: Literal["upstream_default", "author_blessed", "harness_tuned"] | None = None
    budgets: Any = None
    env: dict[str, str | None] | None = None
    limits: dict[str, int] | None = None


class _MethodFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    package: str = Field(min_length=1)
    version: str = Field(min_length=1)
    import_name: str | None = None
    requirements: list[str] | None = None
    python: str | None = None  # the Python the package needs, e.g. ">=3.12" (srbf.methods.interpreters)
    budget_knob: str = Field(min_length=1)
    trajectory: str = Field(min_length=1)
    exact_trajectory: StrictBool = False  # its report(expr, budget=b) is what a fit of budget b returns
    paradigm: Literal[PARADIGMS]  # type: ignore[valid-type]  # required: probe selection groups by it
    pre_install: list[list[str]] = Field(default_factory=list)
    pip_flags: list[str] = Field(default_factory=list)
    needs: list[str] = Field(default_factory=list)
    needs_variables: dict[str, str] = Field(default_factory=dict)
    needs_hint: str = ""
    licence: str | None = None
    reproducible: StrictBool = True
    notes: str = ""
    size_hint: str = ""
    run: _Run = Field(default_factory=_Run)
    configs: dict[str, _Run] = Field(default_factory=dict)
    options: dict[str, dict[str, Any]] = Field(default_factory=dict)


def _config_problems(name: str, model: _MethodFile) -> list[str]:
    """What is wrong with the named configurations of ``configs``: a name that is not a plain word
    or repeats the default's, a missing provenance label, options the adapter does not take."""
    from srbf.methods.options import option_problems
    from srbf.methods.roster import DEFAULT_CONFIG

    default = model.run.config_provenance or DEFAULT_CONFIG
    problems = []
    for key, config in model.configs.items():
        if not _CONFIG_NAME.fullmatch(key) or key == default:
            problems.append(f"configs.{key}: a configuration's name must be a lowercase word other than the "
                            f"default's ({default!r}), got {key!r}")
        elif config.config_provenance is None:
            problems.append(f"configs.{key}.config_provenance: missing (upstream_default, author_blessed or "
                            "harness_tuned)")
        else:
            problems += [f"configs.{key}.options.{where}: {message}"
                         for where, message in option_problems(name, model.options, config.options)]
    return problems


def _python_problems(model: _MethodFile) -> list[str]:
    from srbf.methods.interpreters import PythonSpecError, parse_requirement

    if model.python is None:
        return []
    try:
        parse_requirement(model.python)
    except PythonSpecError as exc:
        return [f"python: {exc}"]
    return []


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def read_method_file(path: Path, spec_type: type) -> Any:
    """``spec_type`` (``roster.MethodSpec``) built from the method.yaml at ``path``; the method's
    name is its folder's. Raises ``roster.MethodFileError`` with one line per problem."""
    from srbf.methods.options import constraint_problems
    from srbf.methods.roster import MethodFileError

    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, yaml.YAMLError) as exc:
        raise MethodFileError(f"{path}: cannot read it: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise MethodFileError(f"{path}: must be a mapping of fields (package, version, ...), got {data!r}")
    try:
        model = _MethodFile.model_validate(data)
    except ValidationError as error:
        lines = []
        for problem in error.errors():
            where = ".".join(str(p) for p in problem["loc"])
            if problem["type"] == "missing":  # pydantic's input is then the whole file: name what is expected
                expected = f" (one of {', '.join(PARADIGMS)})" if where == "paradigm" else ""
                lines.append(f"{path}: {where}: missing{expected}")
                continue
            lines.append(f"{path}: {where}: {problem['msg'].lower()}, got {problem.get('input')!r}")
        raise MethodFileError("\n".join(lines)) from None
    name = path.parent.name
    problems = constraint_problems(name, model.options) or _config_problems(name, model) or _python_problems(model)
    if problems:
        raise MethodFileError("\n".join(f"{path}: {problem}" for problem in problems))
    return spec_type(
        name=name,
        package=model.package,
        version=model.version,
        import_name=model.import_name or model.package.replace("-", "_"),
        requirements=tuple(model.requirements or (f"{model.package}=={model.version}",)),
        python=model.python or "",
        budget_knob=model.budget_knob,
        trajectory=model.trajectory,
        exact_trajectory=model.exact_trajectory,
        paradigm=model.paradigm,
        folder=path.parent,
        pre_install=tuple(tuple(step) for step in model.pre_install),
        pip_flags=tuple(model.pip_flags),
        needs=tuple(model.needs),
        needs_variables=_frozen(model.needs_variables),
        needs_hint=model.needs_hint,
        licence=model.licence,
        reproducible=model.reproducible,
        notes=model.notes,
        size_hint=model.size_hint,
        run=_frozen(model.run.model_dump(exclude_none=True, exclude_unset=True)),
        configs=_frozen({key: value.model_dump(exclude_none=True, exclude_unset=True)
                         for key, value in model.configs.items()}),
        options=_frozen(model.options),
    )
