"""The config schema: pydantic models of each section, and pydantic's errors as one line per problem.

The private ``_*Model`` classes check a config section by section (the field validators are in
``config_fields``); ``_RunModel`` also checks what spans sections (method names, sweeps, the
problem selection against the catalogs). ``_problems_from`` turns a ``ValidationError`` into
``ConfigProblem`` lines naming the key path, the bad value and the closest valid key.
``srbf.runs.config`` builds the public records from a validated ``_RunModel``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Mapping, Sequence, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, ValidationInfo, model_validator

from srbf.methods.boundary import Limits
from srbf.runs.config_errors import ConfigProblem, _closest, _did_you_mean, _show, render_path
from srbf.runs.config_fields import (
    DEFAULT_BUDGETS,
    DEFAULT_PROVENANCE,
    DEFAULT_RESULTS,
    DEFAULT_TIME_LIMIT,
    RESERVED_OPTIONS,
    AdapterType,
    Budgets,
    CatalogRefs,
    Draws,
    Env,
    Flag,
    MethodPath,
    Name,
    NoiseLevels,
    Options,
    Points,
    PositiveInt,
    PositiveNumber,
    Provenance,
    Python,
    Seed,
    SupportSizes,
    SweepValues,
    Text,
    _fail,
    _fail_all,
    _resolve,
    builtin_method_names,
    is_catalog_path,
)
from srbf.runs.config_limits import MAX_VARIANTS
from srbf.runs.sweeps import axis_problems, grid_size

class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)


class _SamplingModel(_Model):
    n_support: SupportSizes = (512,)
    n_validation: Points = 512
    draws: Draws = 2
    noise: NoiseLevels = (0.0,)
    ood: Flag = False


class _SweepModel(_Model):
    option: Text
    values: SweepValues
    axis: Name | None = None


class _LimitsModel(_Model):
    """What one fit may send back (srbf.methods.boundary.Limits; the defaults are its)."""

    expression_bytes: PositiveInt = Limits.expression_bytes
    internals_bytes: PositiveInt = Limits.internals_bytes
    trajectory_rows: PositiveInt = Limits.trajectory_rows
    trajectory_bytes: PositiveInt = Limits.trajectory_bytes


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
    limits: Annotated[_LimitsModel, BeforeValidator(_none_is({}))] = Field(default_factory=_LimitsModel)
    config_provenance: Provenance = DEFAULT_PROVENANCE
    budget_knob: Text | None = None
    budgets: Budgets | None = None
    sweeps: Annotated[tuple[_SweepModel, ...], BeforeValidator(_none_is(()))] = ()

    @model_validator(mode="before")
    @classmethod
    def _short_forms(cls, data: Any) -> Any:
        from srbf.methods.roster import config_entry

        if isinstance(data, str):  # method: linear, method: gplearn
            data = {"name": data}
        if isinstance(data, Mapping):  # a roster method by name: its adapter, env and method.yaml defaults
            data = config_entry(data)
        if isinstance(data, Mapping) and isinstance(data.get("adapter"), str):  # adapter: builtin
            return {**data, "adapter": {"type": data["adapter"]}}
        return data

    @model_validator(mode="after")
    def _check_adapter(self) -> _MethodModel:
        builtins = builtin_method_names()
        adapter = self.adapter
        if adapter is None:
            if self.name not in builtins:
                from srbf.methods.roster import names as roster_names

                close = _did_you_mean(self.name, builtins)
                if close:  # a typo of a built-in's name
                    raise _fail(f"unknown built-in method {self.name!r}{close}", "name")
                close = _did_you_mean(self.name, roster_names())
                if close:  # a typo of a roster method's name
                    raise _fail(f"unknown roster method {self.name!r}{close}", "name")
                raise _fail(f"missing: {self.name!r} is not a built-in or roster method ({', '.join(builtins)}; "
                            "`srbf methods list`), so say how to run it, e.g. adapter: {type: file, path: my_method.py}",
                            "adapter")  # fmt: skip
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
            if not problems:  # a roster adapter: its options against its method.yaml's constraints
                from srbf.methods.roster import option_problems

                problems += [(("options", where), message) for where, message in option_problems(adapter.path, self.options)]
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
    sandbox: Flag = False

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> _RunModel:
        found: list[tuple[tuple[Any, ...], str]] = []
        self._check_methods(found)
        if not found:
            for where, method in self._located_methods():
                self._check_sweeps(where, method, found)
        if not found and not (info.context or {}).get("allow_large"):
            self._check_grid(found)
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

    def _check_grid(self, problems: list) -> None:
        """At most MAX_VARIANTS method configurations in the run: counted, never listed. The
        problem stands at the sweeps of the method with the largest grid."""
        sizes = [(where, method, grid_size(self.sweeps + method.sweeps)) for where, method in self._located_methods()]
        total = sum(size for _, _, size in sizes)
        if total > MAX_VARIANTS:
            where, method, _ = max(sizes, key=lambda entry: entry[2])
            problems.append((where + ("sweeps",) if method.sweeps else ("sweeps",),
                             f"the sweeps make {total:,} method configurations; the limit is {MAX_VARIANTS:,} "
                             "(--allow-large lifts it)"))

    def _check_sweeps(self, where: tuple[Any, ...], method: _MethodModel, problems: list) -> None:
        located = [(("sweeps", j), s) for j, s in enumerate(self.sweeps)]
        located += [(where + ("sweeps", j), s) for j, s in enumerate(method.sweeps)]
        options_path = render_path(where + ("options",))
        first: dict[str, tuple[Any, ...]] = {}
        for at, sweep in located:
            if sweep.option in first:
                message = f"{sweep.option!r} is already swept by {render_path(first[sweep.option])}"
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


# --- turning pydantic's errors into one line per problem ---------------------------------------


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
                problems.append(ConfigProblem(source, render_path(loc + tuple(at)), message))
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
        problems.append(ConfigProblem(source, render_path(loc), message))
    unique = []
    for problem in problems:
        if problem not in unique:
            unique.append(problem)
    return unique

