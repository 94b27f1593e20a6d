"""Run configs: YAML files validated with pydantic and read into plain, frozen records.

A config names an experiment, the problem sets and how to sample them, one method or a list of
methods, the budget ladder and any option sweeps; docs/config.md is the long form.
``load_config(path)`` reads and validates a file, ``config_from_dict(d)`` a dict. Every problem
found is reported at once, in one ``ConfigError`` with one line per problem that names the file,
the key path and the bad value, and the closest valid key or name for a typo::

    configs/q.yaml: method.time_limt: unknown key; did you mean 'time_limit'?
    configs/q.yaml: sampling.n_support: must be a positive integer, got -3

pydantic checks each section (the private ``_*Model`` classes); what a planner consumes are the
dataclasses ``RunConfig``, ``MethodConfig``, ``SamplingConfig``, ``Sweep`` and ``Adapter``, with
every default filled in and every short form expanded. ``srbf.runs.sweeps`` turns a RunConfig
into variants (``expand``) and cells (variant x budget x condition).

Relative paths to inputs (catalog files, method files, interpreters) are read from the config
file's folder; ``results`` is where you run srbf from.
"""

from __future__ import annotations

import difflib
import math
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Iterator, Mapping, Sequence, get_args

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, ValidationInfo, model_validator
from pydantic_core import PydanticCustomError

from srbf.runs.sweeps import Cell, Condition, Variant, axis_problems, canonical_json, expand, iter_cells

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

PROVENANCE_LABELS = ("upstream_default", "author_blessed", "harness_tuned")
DEFAULT_PROVENANCE = "harness_tuned"  # an unlabeled configuration was chosen by whoever assembled it
ADAPTER_TYPES = ("builtin", "file", "srbench")
BUILTIN_METHODS = ("enumeration", "linear", "oracle", "prior")  # fallback for builtin_method_names()
DEFAULT_BUDGETS = (1, 2, 4, 8)
DEFAULT_RESULTS = "./srbf-results"
DEFAULT_TIME_LIMIT = 600.0
RESERVED_OPTIONS = {"truth": "the driver passes the ground truth to the oracle; a config never sets it"}
MAX_POWER_OF_TWO = 62  # budgets up to 2**62; a wider ladder is a typo

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


# --- errors -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConfigProblem:
    """One problem: the file (or ``<dict>``), the key path (``method.time_limit``) and what is wrong."""

    source: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}: {self.path}: {self.message}" if self.path else f"{self.source}: {self.message}"


class ConfigError(ValueError):
    """A config that cannot be used. ``problems`` lists them; the message has one line each."""

    def __init__(self, problems: Sequence[ConfigProblem]):
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def _fail(message: str, *at: Any) -> PydanticCustomError:
    """A validation error at ``at`` below the value being validated."""
    return PydanticCustomError("srbf", "{message}", {"message": message, "problems": [(at, message)]})


def _fail_all(problems: Sequence[tuple[tuple[Any, ...], str]]) -> PydanticCustomError:
    """Several problems from one validator, each at its own place below the validated value."""
    return PydanticCustomError("srbf", "{message}", {"message": problems[0][1], "problems": list(problems)})


def _show(value: Any, limit: int = 60) -> str:
    """A value as the user wrote it in YAML, shortened."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _closest(word: Any, choices: Sequence[str]) -> str | None:
    if not isinstance(word, str) or not choices:
        return None
    lowered = {c.lower(): c for c in choices}
    if word.lower() in lowered:
        return lowered[word.lower()]
    close = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    if close:
        return lowered[close[0]]
    starts = [c for c in choices if c.startswith(word) or word.startswith(c)] if len(word) >= 3 else []
    return starts[0] if len(starts) == 1 else None


def _did_you_mean(word: Any, choices: Sequence[str]) -> str:
    close = _closest(word, choices)
    return f"; did you mean {close!r}?" if close else ""


# --- scalar validators (each raises with the value it got) --------------------------------------


def _integer(value: Any, minimum: int, what: str) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _fail(f"must be {what}, got {_show(value)}")
    return value


def _positive_int(value: Any) -> int:
    return _integer(value, 1, "a positive integer")


def _seed(value: Any) -> int:
    return _integer(value, 0, "a non-negative integer")


def _number(value: Any, *, positive: bool) -> float:
    what = "a positive number" if positive else "a number >= 0"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _fail(f"must be {what}, got {_show(value)}")
    if value < 0 or (positive and value == 0):
        raise _fail(f"must be {what}, got {_show(value)}")
    return value


def _positive_number(value: Any) -> float:
    return float(_number(value, positive=True))


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _fail(f"must be true or false, got {_show(value)}")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(f"must be a non-empty text, got {_show(value)}")
    return value.strip()


def _name(value: Any) -> str:
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        rule = "letters, digits and . _ + - (starting with a letter or digit)"
        raise _fail(f"must be a name of {rule}, got {_show(value)}")
    return value


def _provenance(value: Any) -> str:
    if value not in PROVENANCE_LABELS:
        hint = _did_you_mean(value, PROVENANCE_LABELS)
        raise _fail(f"must be one of {', '.join(PROVENANCE_LABELS)}, got {_show(value)}{hint}")
    return value


def _adapter_type(value: Any) -> str:
    if value not in ADAPTER_TYPES:
        hint = _did_you_mean(value, ADAPTER_TYPES)
        raise _fail(f"must be one of {', '.join(ADAPTER_TYPES)}, got {_show(value)}{hint}")
    return value


def _plain_value(value: Any, at: tuple[Any, ...], problems: list) -> Any:
    """``value`` if it is JSON-like (text, number, true/false, null, list, mapping with text keys)."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            problems.append((at, f"must be a finite number, got {_show(value)}"))
        return value
    if isinstance(value, (list, tuple)):
        return [_plain_value(v, at + (i,), problems) for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                problems.append((at, f"keys must be text, got key {_show(k)}"))
                continue
            out[k] = _plain_value(v, at + (k,), problems)
        return out
    problems.append((at, f"must be text, a number, true/false, null, a list or a mapping, got {_show(value)}"))
    return value


def _options(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _fail(f"must be a mapping of option names to values, got {_show(value)}")
    problems: list = [((k,), f"reserved: {why}") for k, why in RESERVED_OPTIONS.items() if k in value]
    plain = _plain_value(value, (), problems)
    if problems:
        raise _fail_all(problems)
    return plain


def _sweep_values(value: Any) -> tuple[Any, ...]:
    if not isinstance(value, (list, tuple)) or not value:
        raise _fail(f"must be a non-empty list of values, got {_show(value)}")
    problems: list = []
    values = [_plain_value(v, (i,), problems) for i, v in enumerate(value)]
    if not problems:
        seen: dict[str, int] = {}
        for i, v in enumerate(values):
            text = canonical_json(v)
            if text in seen:
                problems.append(((i,), f"{_show(v)} is already values[{seen[text]}]; each value once"))
            seen.setdefault(text, i)
    if problems:
        raise _fail_all(problems)
    return tuple(values)


def _list_of(value: Any, item: Any, what: str) -> tuple[Any, ...]:
    """A scalar or a non-empty list of distinct items, each checked by ``item``; scalars stay scalar."""
    scalar = not isinstance(value, (list, tuple))
    items = [value] if scalar else list(value)
    if not items:
        raise _fail(f"must be {what} or a non-empty list of them, got []")
    problems, out = [], []
    for i, v in enumerate(items):
        at = () if scalar else (i,)
        try:
            checked = item(v)
        except PydanticCustomError as error:
            problems.append((at, error.context["message"]))
            continue
        if checked in out:
            problems.append((at, f"{_show(v)} is listed twice"))
        out.append(checked)
    if problems:
        raise _fail_all(problems)
    return tuple(out)


def _support_sizes(value: Any) -> tuple[int, ...]:
    return _list_of(value, _positive_int, "a positive integer")


def _noise_levels(value: Any) -> tuple[float, ...]:
    return _list_of(value, lambda v: float(_number(v, positive=False)), "a number >= 0")


def _budget(value: Any) -> float:
    number = _number(value, positive=True)
    return int(number) if float(number).is_integer() and abs(number) < 2**53 else float(number)


def _budgets(value: Any) -> tuple[float, ...]:
    """A number, a list of positive numbers, or ``{powers_of_two: [first, last]}``; sorted ascending."""
    if isinstance(value, Mapping):
        unknown = [k for k in value if k != "powers_of_two"]
        if unknown:
            form = " (the short form is {powers_of_two: [first, last]})"
            raise _fail_all([((k,), "unknown key" + (_did_you_mean(k, ["powers_of_two"]) or form)) for k in unknown])
        if "powers_of_two" not in value:
            raise _fail("missing required key (the short form is {powers_of_two: [first, last]})", "powers_of_two")
        bounds = value["powers_of_two"]
        ok = (isinstance(bounds, (list, tuple)) and len(bounds) == 2
              and all(isinstance(b, int) and not isinstance(b, bool) for b in bounds))  # fmt: skip
        if not ok:
            raise _fail(f"must be [first, last], two integer exponents, got {_show(bounds)}", "powers_of_two")
        first, last = bounds
        if first > last:
            raise _fail(f"first exponent {first} is above last {last}", "powers_of_two")
        if max(abs(first), abs(last)) > MAX_POWER_OF_TWO:
            raise _fail(f"exponents must lie within +-{MAX_POWER_OF_TWO}, got {_show(bounds)}", "powers_of_two")
        return tuple(2**e if e >= 0 else 2.0**e for e in range(first, last + 1))
    if isinstance(value, (list, tuple)) or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return tuple(sorted(_list_of(value, _budget, "a positive number")))
    raise _fail(f"must be a list of positive numbers or {{powers_of_two: [first, last]}}, got {_show(value)}")


# --- paths --------------------------------------------------------------------------------------


def _base_dir(info: ValidationInfo) -> Path:
    context = info.context or {}
    return Path(context.get("base_dir") or Path.cwd())


def _resolve(text: str, info: ValidationInfo) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else (_base_dir(info) / path).resolve()


def is_catalog_path(ref: str) -> bool:
    """Whether a catalog reference is a file path (has a slash or ends .yaml/.yml) or a shipped name."""
    return "/" in ref or "\\" in ref or ref.endswith((".yaml", ".yml"))


def _catalogs(value: Any, info: ValidationInfo) -> tuple[str, ...]:
    from srbf.catalogs.loader import CatalogError, list_catalogs, load_catalog

    scalar = isinstance(value, str)
    if not scalar and not (isinstance(value, (list, tuple)) and value):
        raise _fail(f"must be a catalog name, a path to a catalog file, a list of them, or all; got {_show(value)}")
    items = [value] if scalar else list(value)
    if items == ["all"]:
        return tuple(list_catalogs())
    shipped = list_catalogs()
    problems, refs = [], []
    for i, item in enumerate(items):
        at = () if scalar else (i,)
        if item == "all":
            problems.append((at, "all means every shipped catalog and stands alone (catalogs: all)"))
            continue
        if not isinstance(item, str) or not item.strip():
            problems.append((at, f"must be a catalog name or a path to a catalog file, got {_show(item)}"))
            continue
        if is_catalog_path(item):
            path = _resolve(item, info)
            if not path.is_file():
                problems.append((at, f"no such catalog file {str(path)!r}"))
                continue
            try:
                load_catalog(path, admit=False)
            except CatalogError as error:
                problems.append((at, f"not a valid catalog: {error}"))
                continue
            ref = str(path)
        elif item not in shipped:
            hint = _did_you_mean(item, shipped) or " (see `srbf catalogs list`; a file path needs a / or .yaml)"
            problems.append((at, f"unknown catalog {item!r}{hint}"))
            continue
        else:
            ref = item
        if ref in refs:
            problems.append((at, f"{item!r} is listed twice"))
        refs.append(ref)
    if problems:
        raise _fail_all(problems)
    return tuple(refs)


def _python(value: Any, info: ValidationInfo) -> str:
    from srbf.methods import roster
    from srbf.methods.envs import env_name, is_env_spec

    text = _text(value)
    if is_env_spec(text):  # env:NAME, made by `srbf methods install NAME`; resolved when workers start
        try:
            name = env_name(text)
        except ValueError as error:
            raise _fail(str(error)) from None
        if name not in roster.ROSTER:
            hint = _did_you_mean(name, tuple(roster.ROSTER))
            raise _fail(f"no method environment {name!r} in the roster{hint}")
        return f"env:{name}"
    if "/" in text or "\\" in text or text.startswith("~"):
        path = _resolve(text, info)
        if not path.is_file():
            raise _fail(f"no such interpreter {str(path)!r}")
        if not os.access(path, os.X_OK):
            raise _fail(f"{str(path)!r} is not executable")
        return str(path)
    found = shutil.which(text)
    if found is None:
        raise _fail(f"no interpreter {text!r} on PATH; give its full path")
    return found


def _method_path(value: Any, info: ValidationInfo) -> str:
    """The adapter's path made absolute; whether it must be a file or a folder depends on the type."""
    return str(_resolve(_text(value), info))


def builtin_method_names() -> tuple[str, ...]:
    """The built-in reference methods (``srbf.methods.builtin.BUILTIN_METHODS``)."""
    try:
        from srbf.methods import builtin
    except ImportError:  # a partial install: the names this module knows
        return BUILTIN_METHODS
    return tuple(getattr(builtin, "BUILTIN_METHODS", BUILTIN_METHODS))


def _env(value: Any) -> dict[str, str | None]:
    """Environment variables for the worker: NAME: value (numbers become text), or null to unset."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _fail(f"must be a mapping of variable names to values, got {_show(value)}")
    problems, out = [], {}
    for name, v in value.items():
        if not isinstance(name, str) or not name or "=" in name or "\0" in name:
            problems.append(((), f"{_show(name)} is not an environment variable name"))
        elif v is not None and (isinstance(v, bool) or not isinstance(v, (str, int, float))):
            problems.append(((name,), f"must be text, a number or null (to unset it), got {_show(v)}"))
        else:
            out[name] = None if v is None else str(v)
    if problems:
        raise _fail_all(problems)
    return out


# --- the schema (pydantic) ----------------------------------------------------------------------

Name = Annotated[str, BeforeValidator(_name)]
Text = Annotated[str, BeforeValidator(_text)]
PositiveInt = Annotated[int, BeforeValidator(_positive_int)]
Seed = Annotated[int, BeforeValidator(_seed)]
PositiveNumber = Annotated[float, BeforeValidator(_positive_number)]
Flag = Annotated[bool, BeforeValidator(_flag)]
Provenance = Annotated[str, BeforeValidator(_provenance)]
AdapterType = Annotated[str, BeforeValidator(_adapter_type)]
Options = Annotated[Any, BeforeValidator(_options)]
SweepValues = Annotated[Any, BeforeValidator(_sweep_values)]
SupportSizes = Annotated[Any, BeforeValidator(_support_sizes)]
NoiseLevels = Annotated[Any, BeforeValidator(_noise_levels)]
Budgets = Annotated[Any, BeforeValidator(_budgets)]
Env = Annotated[Any, BeforeValidator(_env)]
CatalogRefs = Annotated[Any, BeforeValidator(_catalogs)]
Python = Annotated[str, BeforeValidator(_python)]
MethodPath = Annotated[str, BeforeValidator(_method_path)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)


class _SamplingModel(_Model):
    n_support: SupportSizes = (512,)
    n_validation: PositiveInt = 512
    draws: PositiveInt = 2
    noise: NoiseLevels = (0.0,)
    ood: Flag = False


class _SweepModel(_Model):
    option: Text
    values: SweepValues
    axis: Name | None = None


class _AdapterModel(_Model):
    type: AdapterType
    name: Text | None = None  # builtin: which built-in (default: the method's name)
    path: MethodPath | None = None  # file: the method file; srbench: the SRBench method folder


def _none_is(default: Any) -> Any:
    return lambda value: default if value is None else value


class _MethodModel(_Model):
    name: Name
    adapter: _AdapterModel | None = None
    options: Options = Field(default_factory=dict)
    python: Python | None = None
    env: Env = Field(default_factory=dict)
    time_limit: PositiveNumber = DEFAULT_TIME_LIMIT
    config_provenance: Provenance = DEFAULT_PROVENANCE
    budget_knob: Text | None = None
    budgets: Budgets | None = None
    sweeps: Annotated[tuple[_SweepModel, ...], BeforeValidator(_none_is(()))] = ()

    @model_validator(mode="before")
    @classmethod
    def _short_forms(cls, data: Any) -> Any:
        if isinstance(data, str):  # method: linear
            return {"name": data}
        if isinstance(data, Mapping) and isinstance(data.get("adapter"), str):  # adapter: builtin
            return {**data, "adapter": {"type": data["adapter"]}}
        return data

    @model_validator(mode="after")
    def _check_adapter(self) -> _MethodModel:
        builtins = builtin_method_names()
        adapter = self.adapter
        if adapter is None:
            if self.name not in builtins:
                close = _did_you_mean(self.name, builtins)
                if close:  # a typo of a built-in's name
                    raise _fail(f"unknown built-in method {self.name!r}{close}", "name")
                raise _fail(f"missing: {self.name!r} is not a built-in method ({', '.join(builtins)}), so say how "
                            "to run it, e.g. adapter: {type: file, path: my_method.py}", "adapter")  # fmt: skip
            self.adapter = _AdapterModel(type="builtin", name=self.name)
            return self
        problems = []
        if adapter.type == "builtin":
            if adapter.path is not None:
                problems.append((("adapter", "path"), "only a file adapter takes a path"))
            name = adapter.name if adapter.name is not None else self.name
            if name not in builtins:
                at = ("adapter", "name") if adapter.name is not None else ("name",)
                hint = _did_you_mean(name, builtins) or f" (built-ins: {', '.join(builtins)})"
                problems.append((at, f"unknown built-in method {name!r}{hint}"))
            adapter.name = name
        elif adapter.type == "file":
            if adapter.path is None:
                problems.append((("adapter", "path"), "missing required key (the method file a file adapter runs)"))
            elif not Path(adapter.path).is_file():
                problems.append((("adapter", "path"), f"no such method file {adapter.path!r}"))
            if adapter.name is not None:
                message = "only a builtin adapter takes a name (the method's own name is method.name)"
                problems.append((("adapter", "name"), message))
        elif adapter.type == "srbench":
            from srbf.methods.srbench import check_method_dir

            if adapter.path is None:
                problems.append((("adapter", "path"), "missing required key (the SRBench method folder with regressor.py)"))
            else:
                problems.extend((("adapter", "path"), problem) for problem in check_method_dir(adapter.path))
            if adapter.name is not None:
                message = "only a builtin adapter takes a name (the method's own name is method.name)"
                problems.append((("adapter", "name"), message))
        if problems:
            raise _fail_all(problems)
        return self


class _RunModel(_Model):
    experiment: Name
    seed: Seed = 0
    catalogs: CatalogRefs
    problems: Any = None
    limit: PositiveInt | None = None
    sampling: Annotated[_SamplingModel, BeforeValidator(_none_is({}))] = Field(default_factory=_SamplingModel)
    method: _MethodModel | None = None
    methods: tuple[_MethodModel, ...] | None = None
    budgets: Budgets = DEFAULT_BUDGETS
    sweeps: Annotated[tuple[_SweepModel, ...], BeforeValidator(_none_is(()))] = ()
    workers: PositiveInt | None = None
    results: Text = DEFAULT_RESULTS

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> _RunModel:
        found: list[tuple[tuple[Any, ...], str]] = []
        self._check_methods(found)
        if not found:
            for where, method in self._located_methods():
                self._check_sweeps(where, method, found)
        self.problems = _selection(self.problems, self.catalogs, info, found)
        if found:
            raise _fail_all(found)
        return self

    def _located_methods(self) -> list[tuple[tuple[Any, ...], _MethodModel]]:
        if self.method is not None:
            return [(("method",), self.method)]
        return [(("methods", i), m) for i, m in enumerate(self.methods or ())]

    def _check_methods(self, problems: list) -> None:
        if self.method is not None and self.methods is not None:
            problems.append((("methods",), "give either method (one) or methods (a list), not both"))
        elif self.method is None and self.methods is None:
            problems.append((("method",), "missing required key (or methods: a list of methods)"))
        elif self.methods is not None and not self.methods:
            problems.append((("methods",), "must list at least one method"))
        seen: dict[str, int] = {}
        for i, method in enumerate(self.methods or ()):
            if method.name in seen:
                message = f"{method.name!r} is already the name of methods[{seen[method.name]}]; give each its own"
                problems.append((("methods", i, "name"), message))
            seen.setdefault(method.name, i)

    def _check_sweeps(self, where: tuple[Any, ...], method: _MethodModel, problems: list) -> None:
        located = [(("sweeps", j), s) for j, s in enumerate(self.sweeps)]
        located += [(where + ("sweeps", j), s) for j, s in enumerate(method.sweeps)]
        options_path = _render_path(where + ("options",))
        first: dict[str, tuple[Any, ...]] = {}
        for at, sweep in located:
            if sweep.option in first:
                message = f"{sweep.option!r} is already swept by {_render_path(first[sweep.option])}"
                problems.append((at + ("option",), message))
            first.setdefault(sweep.option, at)
            if sweep.option in RESERVED_OPTIONS:
                problems.append((at + ("option",), f"reserved: {RESERVED_OPTIONS[sweep.option]}"))
            if sweep.option in method.options:
                message = f"{sweep.option!r} is swept and also set in {options_path}; keep one"
                problems.append((at + ("option",), message))
        for index, message in axis_problems([s for _, s in located]):
            problems.append((located[index][0] + ("values",), message))


def _ids(value: Any, at: tuple[Any, ...], found: list) -> list[tuple[tuple[Any, ...], str]] | None:
    """(place, id) for a problem id or a list of ids; None (and a problem) for anything else."""
    single = isinstance(value, (str, int)) and not isinstance(value, bool)
    items = [value] if single else value
    if not isinstance(items, (list, tuple)) or not items or not all(
        isinstance(v, (str, int)) and not isinstance(v, bool) for v in items
    ):
        found.append((at, f"must be a problem id or a non-empty list of ids, got {_show(value)}"))
        return None
    located, seen = [], set()
    for i, v in enumerate(items):
        place = at if single else at + (i,)
        if str(v) in seen:
            found.append((place, f"{str(v)!r} is listed twice"))
        seen.add(str(v))
        located.append((place, str(v)))
    return located


def _selection(raw: Any, catalogs: tuple[str, ...], info: ValidationInfo, found: list) -> dict[str, tuple[str, ...]]:
    """``problems`` as {catalog ref: selected ids}, every id checked against its catalog.

    A list (or one id) applies to every catalog of the config: each id must be in at least one of
    them, and each catalog keeps the ids it has. A mapping selects per catalog; a catalog it does
    not name runs all its problems.
    """
    from srbf.catalogs.loader import load_catalog

    if raw is None:
        return {}

    def known(ref: str) -> list[str]:
        return [entry.id for entry in load_catalog(ref, admit=False).entries]

    def shown(ref: str) -> str:
        return Path(ref).name if is_catalog_path(ref) else ref

    if isinstance(raw, Mapping):
        selection: dict[str, tuple[str, ...]] = {}
        for key, value in raw.items():
            ref = key if key in catalogs else None
            if ref is None and isinstance(key, str) and is_catalog_path(key):
                resolved = str(_resolve(key, info))
                ref = resolved if resolved in catalogs else None
            if ref is None:
                names = [shown(c) for c in catalogs]
                hint = _did_you_mean(key, names) or f" (catalogs: {', '.join(names)})"
                found.append((("problems", key), f"not one of this config's catalogs{hint}"))
                continue
            located = _ids(value, ("problems", key), found)
            if located is None:
                continue
            valid = known(ref)
            for place, pid in located:
                if pid not in valid:
                    hint = _did_you_mean(pid, valid)
                    found.append((place, f"unknown problem id {pid!r} in catalog {shown(ref)}{hint}"))
            selection[ref] = tuple(dict.fromkeys(pid for _, pid in located))
        return selection
    located = _ids(raw, ("problems",), found)
    if located is None:
        return {}
    per_catalog = {ref: set(known(ref)) for ref in catalogs}
    everywhere = sorted(set().union(*per_catalog.values()))
    where = f"catalog {shown(catalogs[0])}" if len(catalogs) == 1 else "any of this config's catalogs"
    for place, pid in located:
        if pid not in everywhere:
            found.append((place, f"unknown problem id {pid!r} in {where}{_did_you_mean(pid, everywhere)}"))
    ids = list(dict.fromkeys(pid for _, pid in located))
    return {ref: tuple(pid for pid in ids if pid in valid) for ref, valid in per_catalog.items()}


# --- the records a run uses ---------------------------------------------------------------------


@dataclass(frozen=True)
class Adapter:
    """How a method is run: ``builtin`` (``name`` of the built-in) or ``file`` (absolute ``path``)."""

    type: str
    name: str | None = None
    path: str | None = None


@dataclass(frozen=True)
class Sweep:
    """One option swept over ``values``; sweeps with the same ``axis`` advance together."""

    option: str
    values: tuple[Any, ...]
    axis: str | None = None


@dataclass(frozen=True)
class SamplingConfig:
    """How problems are drawn: support size(s), validation size, draws per problem, noise level(s), OOD."""

    n_support: tuple[int, ...] = (512,)
    n_validation: int = 512
    draws: int = 2
    noise: tuple[float, ...] = (0.0,)
    ood: bool = False

    def conditions(self) -> tuple[Condition, ...]:
        """Every support size x noise level, support sizes outer, in config order."""
        return tuple(Condition(n, noise) for n in self.n_support for noise in self.noise)


@dataclass(frozen=True)
class MethodConfig:
    """One method as a run uses it; ``sweeps`` are the config's top-level sweeps, then its own."""

    name: str
    adapter: Adapter
    options: Mapping[str, Any]
    python: str
    env: Mapping[str, str | None]  # for the worker; null unsets a variable
    time_limit: float
    config_provenance: str
    provenance_explicit: bool  # False when the config did not say (read as harness_tuned)
    budget_knob: str | None
    budgets: tuple[float, ...]
    sweeps: tuple[Sweep, ...] = ()


@dataclass(frozen=True)
class RunConfig:
    """A validated run config. ``catalogs`` holds shipped names and absolute paths of catalog files.

    ``problems`` maps a catalog to the ids selected from it; a catalog it does not mention runs
    every problem (then ``limit`` keeps the first N of each). ``variants()`` expands the methods'
    sweeps, ``cells()`` adds budgets and conditions, ``select(ref, entries)`` picks the problems.
    """

    experiment: str
    catalogs: tuple[str, ...]
    methods: tuple[MethodConfig, ...]
    seed: int = 0
    problems: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    limit: int | None = None
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    workers: int | None = None
    results: str = DEFAULT_RESULTS
    source: str = "<dict>"

    def variants(self) -> list[Variant]:
        """The concrete method configurations of this run (``srbf.runs.sweeps.expand``)."""
        return expand(self)

    def cells(self) -> Iterator[Cell]:
        """Every variant x budget x condition (``srbf.runs.sweeps.iter_cells``)."""
        return iter_cells(self)

    def select(self, catalog: str, entries: Sequence[Any]) -> tuple[Any, ...]:
        """The entries (anything with an ``id``) of ``catalog`` this run covers, in catalog order."""
        chosen = self.problems.get(catalog)
        picked = tuple(e for e in entries if chosen is None or e.id in chosen)
        return picked if self.limit is None else picked[: self.limit]

    def to_dict(self) -> dict[str, Any]:
        """The normalized config as plain JSON-like data (every default filled in), e.g. to store with a run."""
        return _plain(self)


def _plain(value: Any) -> Any:
    if hasattr(value, "__dataclass_fields__"):
        return {name: _plain(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _sweep(model: _SweepModel) -> Sweep:
    return Sweep(option=model.option, values=tuple(model.values), axis=model.axis)


def _build(model: _RunModel, source: str) -> RunConfig:
    methods = []
    for _, m in model._located_methods():
        adapter = m.adapter
        assert adapter is not None  # _MethodModel fills it in
        methods.append(
            MethodConfig(
                name=m.name,
                adapter=Adapter(type=adapter.type, name=adapter.name, path=adapter.path),
                options=MappingProxyType(dict(m.options)),
                python=m.python or sys.executable,
                env=MappingProxyType(dict(m.env)),
                time_limit=float(m.time_limit),
                config_provenance=m.config_provenance,
                provenance_explicit="config_provenance" in m.model_fields_set,
                budget_knob=m.budget_knob,
                budgets=tuple(m.budgets if m.budgets is not None else model.budgets),
                sweeps=tuple(_sweep(s) for s in model.sweeps) + tuple(_sweep(s) for s in m.sweeps),
            )
        )
    s = model.sampling
    return RunConfig(
        experiment=model.experiment,
        catalogs=tuple(model.catalogs),
        methods=tuple(methods),
        seed=model.seed,
        problems=MappingProxyType(dict(model.problems)),
        limit=model.limit,
        sampling=SamplingConfig(tuple(s.n_support), s.n_validation, s.draws, tuple(s.noise), s.ood),
        workers=model.workers,
        results=model.results,
        source=source,
    )


# --- turning pydantic's errors into one line per problem ---------------------------------------


def _render_path(loc: Sequence[Any]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int) and not isinstance(part, bool):
            text += f"[{part}]"
        elif isinstance(part, str) and _PLAIN_KEY.fullmatch(part):
            text += f".{part}" if text else part
        else:
            text += f"[{part!r}]"
    return text


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _section_at(loc: Sequence[Any]) -> type[BaseModel] | None:
    """The schema model that holds the mapping at ``loc`` (list indices skipped)."""
    model: type[BaseModel] | None = _RunModel
    for part in loc:
        if isinstance(part, int):
            continue
        info = model.model_fields.get(part) if model is not None else None
        if info is None:
            return None
        model = _model_in(info.annotation)
    return model


_SECTIONS = {"": _RunModel, "sampling": _SamplingModel, "method": _MethodModel}


def _unknown_key(loc: tuple[Any, ...]) -> str:
    """'unknown key' with where the key belongs, or the closest valid key, or the valid keys."""
    key, parent = loc[-1], loc[:-1]
    model = _section_at(parent)
    if model is None:
        return "unknown key"
    allowed = list(model.model_fields)
    elsewhere: dict[str, str] = {}  # keys of the other main sections: sampling keys at the top level, ...
    if model in _SECTIONS.values():
        for section, other in _SECTIONS.items():
            if other is not model:
                for name in other.model_fields:
                    elsewhere.setdefault(name, f"{section}.{name}" if section else f"{name} at the top level")
    if key in elsewhere and key not in allowed:
        return f"unknown key here; did you mean {elsewhere[key]}?"
    hint = _did_you_mean(key, allowed)
    if hint:
        return "unknown key" + hint
    close = _closest(key, list(elsewhere))
    if close is not None:
        return f"unknown key here; did you mean {elsewhere[close]}?"
    return f"unknown key (valid keys: {', '.join(allowed)})"


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
                problems.append(ConfigProblem(source, _render_path(loc + tuple(at)), message))
            continue
        if kind == "extra_forbidden":
            message = _unknown_key(loc)
        elif kind == "missing":
            message = _MESSAGES[kind]
        elif kind in _MESSAGES:
            message = f"{_MESSAGES[kind]}, got {_show(item['input'])}"
        else:
            text = item["msg"]
            message = f"{text[:1].lower()}{text[1:]}, got {_show(item['input'])}"
        problems.append(ConfigProblem(source, _render_path(loc), message))
    unique = []
    for problem in problems:
        if problem not in unique:
            unique.append(problem)
    return unique


# --- entry points -------------------------------------------------------------------------------


def config_from_dict(data: Any, source: str = "<dict>", *, base_dir: str | Path | None = None) -> RunConfig:
    """Validate a config given as a dict (as read from YAML); ``source`` names it in errors.

    Relative input paths (catalog files, method files, interpreters) are read from ``base_dir``,
    by default the current directory.
    """
    if data is None:
        raise ConfigError([ConfigProblem(source, "", "the config is empty")])
    if not isinstance(data, Mapping):
        message = f"must be a mapping of keys (experiment, catalogs, method, ...), got {_show(data)}"
        raise ConfigError([ConfigProblem(source, "", message)])
    context = {"base_dir": Path(base_dir) if base_dir is not None else Path.cwd()}
    try:
        model = _RunModel.model_validate(dict(data), context=context)
    except ValidationError as error:
        raise ConfigError(_problems_from(error, source)) from None
    return _build(model, source)


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


def load_config(path: str | Path) -> RunConfig:
    """Read and validate a config file; raises ConfigError naming the file, key path and value."""
    data = read_config_file(path)
    return config_from_dict(data, source=str(path), base_dir=Path(path).expanduser().resolve().parent)
