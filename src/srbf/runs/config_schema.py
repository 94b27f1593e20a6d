"""The config objects: frozen pydantic models that read a config's sections and are what a run uses.

``RunConfig`` is a whole config; ``MethodConfig``, ``SamplingConfig``, ``Sweep`` and ``Adapter``
are its sections. Each field is declared once, here, and checked by its type's validator in
``config_fields``. Validators fill in what a file leaves out and expand its short forms
(``method: linear``, ``adapter: builtin``, the run's budget ladder and sweeps into each method), so a
validated ``RunConfig`` has every default filled in and is never changed after. ``RunConfig`` also
checks what spans sections (method names, sweeps, the problem selection against the catalogs).
``srbf.runs.config`` validates a file or a dict with these and words pydantic's errors.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Iterator, Mapping, Sequence

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, ValidationInfo, model_validator

from srbf.core import did_you_mean, to_plain
from srbf.methods.boundary import Limits
from srbf.runs.config_catalogs import CatalogRefs, TrainingRefs, _selection
from srbf.runs.config_errors import render_path
from srbf.runs.config_fields import (
    DEFAULT_BUDGETS,
    DEFAULT_CHECKPOINTS,
    DEFAULT_PROVENANCE,
    DEFAULT_RESULTS,
    DEFAULT_TIME_LIMIT,
    RESERVED_OPTIONS,
    AdapterType,
    Budgets,
    Checkpoints,
    Draws,
    Env,
    FitLimits,
    Flag,
    MethodPath,
    Name,
    NoiseLevels,
    Options,
    Points,
    Limit,
    MemoryLimit,
    Ladder,
    Provenance,
    Python,
    Repeats,
    SEALED,
    Seed,
    SupportSizes,
    SweepValues,
    Text,
    TimeLimit,
    Workers,
    _fail,
    _fail_all,
    builtin_method_names,
)
from srbf.runs.config_limits import MAX_VARIANTS
from srbf.runs.sweeps import Cell, Condition, Variant, axis_problems, expand, grid_size, iter_cells

__all__ = ["Adapter", "MethodConfig", "RunConfig", "SamplingConfig", "Sweep"]


class _Section(BaseModel):
    """A config section: no key it does not know, and frozen once validated."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def _none_is(default: Any) -> Any:
    return lambda value: default if value is None else value


def _read_only() -> Mapping[str, Any]:
    return MappingProxyType({})


class SamplingConfig(_Section):
    """How problems are drawn: support size(s), validation size, draws per problem, noise level(s), OOD."""

    n_support: SupportSizes = (512,)
    n_validation: Points = 512
    draws: Draws = 2
    noise: NoiseLevels = (0.0,)
    ood: Flag = False

    def conditions(self) -> tuple[Condition, ...]:
        """Every support size x noise level, support sizes outer, in config order."""
        return tuple(Condition(n, noise) for n in self.n_support for noise in self.noise)


class Sweep(_Section):
    """One option swept over ``values``; sweeps with the same ``axis`` advance together."""

    option: Text
    values: SweepValues
    axis: Name | None = None


class Adapter(_Section):
    """How a method is run: ``builtin`` (``name`` of the built-in), ``file`` (absolute ``path`` of
    the method file) or ``srbench`` (absolute ``path`` of the SRBench method folder)."""

    type: AdapterType
    name: Text | None = None  # builtin: which built-in (default: the method's name)
    path: MethodPath | None = None  # file: the method file; srbench: the SRBench method folder


# The keys of MethodConfig.to_dict and RunConfig.to_dict, in the order every stored campaign's config
# text has them (srbf.runs.driver stores it): a new key goes last.
_METHOD_KEYS = ("name", "adapter", "options", "python", "env", "time_limit", "config_provenance",
                "provenance_explicit", "budget_knob", "budgets", "sweeps", "limits")
_RUN_KEYS = ("experiment", "catalogs", "methods", "seed", "problems", "limit", "sampling", "workers", "results",
             "source", "sandbox", "repeats", "checkpoints")


class MethodConfig(_Section):
    """One method as a run uses it. Once validated ``adapter`` is always set (a built-in's when the
    config names none); in a ``RunConfig``, ``budgets`` is the ladder the method runs (its own or
    the config's) and ``sweeps`` are the config's top-level sweeps, then its own. ``options`` and
    ``env`` (for the worker; None unsets a variable) are read-only mappings."""

    name: Name
    adapter: Adapter | None = None
    options: Options = Field(default_factory=_read_only)
    python: Python = Field(default_factory=lambda: sys.executable)
    env: Env = Field(default_factory=_read_only)
    time_limit: TimeLimit = DEFAULT_TIME_LIMIT
    limits: FitLimits = Limits()  # what one fit may send back (not part of the hash unless changed)
    memory_limit: MemoryLimit | None = None  # MiB for the method's processes; None: the machine's share
    config_provenance: Provenance = DEFAULT_PROVENANCE
    budget_knob: Text | None = None
    budgets: Budgets | None = None
    # one_fit: the ladder's largest budget is fitted once and the smaller ones read from its exact
    # trajectory (method.yaml's exact_trajectory sets it); separate: every budget is its own fit
    ladder: Ladder = "separate"
    sweeps: Annotated[tuple[Sweep, ...], BeforeValidator(_none_is(()))] = ()

    @model_validator(mode="before")
    @classmethod
    def _short_forms(cls, data: Any, info: ValidationInfo) -> Any:
        from srbf.methods.roster import config_entry

        if isinstance(data, str):  # method: linear, method: gplearn
            data = {"name": data}
        if isinstance(data, Mapping):  # a roster method by name: its adapter, env and method.yaml defaults
            try:
                data = config_entry(data, run_budgets=bool((info.context or {}).get("run_budgets")))
            except ValueError as exc:  # a named configuration the method does not have
                raise _fail(str(exc), "config") from None
        if isinstance(data, Mapping) and "adapter" not in data and data.get("name") in builtin_method_names():
            data = _with_builtin_defaults(data, run_budgets=bool((info.context or {}).get("run_budgets")))
        if isinstance(data, Mapping) and isinstance(data.get("adapter"), str):  # adapter: builtin
            data = {**data, "adapter": {"type": data["adapter"]}}
        return _builtin_named(data) if isinstance(data, Mapping) else data

    @model_validator(mode="after")
    def _check_adapter(self) -> MethodConfig:
        builtins = builtin_method_names()
        adapter = self.adapter
        if adapter is None:  # not a built-in (``_builtin_named`` gave a built-in its adapter)
            from srbf.methods.roster import names as roster_names

            close = did_you_mean(self.name, builtins)
            if close:  # a typo of a built-in's name
                raise _fail(f"unknown built-in method {self.name!r}{close}", "name")
            close = did_you_mean(self.name, roster_names())
            if close:  # a typo of a roster method's name
                raise _fail(f"unknown roster method {self.name!r}{close}", "name")
            raise _fail(f"missing: {self.name!r} is not a built-in or roster method ({', '.join(builtins)}; "
                        "`srbf methods list`), so say how to run it, e.g. adapter: {type: file, path: my_method.py}",
                        "adapter")  # fmt: skip
        problems = []
        if adapter.type == "builtin":
            if adapter.path is not None:
                problems.append((("adapter", "path"), "only a file adapter takes a path"))
            name = adapter.name if adapter.name is not None else self.name
            if name not in builtins:
                at = ("adapter", "name") if adapter.name is not None else ("name",)
                hint = did_you_mean(name, builtins) or f" (built-ins: {', '.join(builtins)})"
                problems.append((at, f"unknown built-in method {name!r}{hint}"))
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
        if self.ladder == "one_fit" and not problems and not _may_read_one_fit(adapter):
            problems.append((("ladder",), "one_fit reads a ladder's budgets from one fit's exact trajectory, and this "
                             "method does not report one (a roster method must declare exact_trajectory: true in its "
                             "method.yaml); use separate"))
        if problems:
            raise _fail_all(problems)
        return self

    @property
    def provenance_explicit(self) -> bool:
        """False when the config did not say (read as harness_tuned)."""
        return "config_provenance" in self.model_fields_set

    def to_dict(self) -> dict[str, Any]:
        """The method as plain JSON-like data."""
        fields = {**self.model_dump(), "provenance_explicit": self.provenance_explicit}
        keys = _METHOD_KEYS + (("memory_limit",) if self.memory_limit is not None else ())  # absent: the text of before
        keys += ("ladder",) if self.ladder != "separate" else ()
        return to_plain({key: fields[key] for key in keys})


def _may_read_one_fit(adapter: Adapter) -> bool:
    """Whether ``ladder: one_fit`` may be asked of ``adapter``: a roster method only when its
    method.yaml declares an exact trajectory; a method file of one's own when its author says so in
    the config (a fit that then reports no budget marks fails its rungs: ``srbf.runs.ladder``); never
    a built-in or an SRBench folder, which report none."""
    from srbf.methods.roster import spec_of_adapter

    if adapter.type != "file" or adapter.path is None:
        return False
    spec = spec_of_adapter(adapter.path)
    return spec is None or spec.exact_trajectory


def _with_builtin_defaults(entry: Mapping[str, Any], *, run_budgets: bool) -> dict[str, Any]:
    """A bare built-in's entry (``- linear``) over the settings it ships with (``shipped.builtin_defaults``),
    as a roster method's entry over its method.yaml; a ladder given for the whole run wins, and
    options of its own make it no longer ``upstream_default`` (unless the entry says so)."""
    from srbf.runs.shipped import builtin_defaults

    defaults = builtin_defaults(entry["name"])
    if run_budgets:
        defaults.pop("budgets", None)
    if "options" in entry and entry["options"] != defaults.get("options"):  # no longer as shipped
        defaults.pop("config_provenance", None)
    return {**defaults, **entry}


def _builtin_named(data: Mapping) -> Mapping:
    """A method of a built-in gets the built-in's adapter with its name: the method's own name when
    the config names no adapter, or a builtin adapter without a name (any other name is left for
    ``_check_adapter`` to refuse, at the key the config used)."""
    name, adapter = data.get("name"), data.get("adapter")
    if not isinstance(name, str) or name not in builtin_method_names():
        return data
    if adapter is None:
        return {**data, "adapter": {"type": "builtin", "name": name}}
    if isinstance(adapter, Mapping) and adapter.get("type") == "builtin" and adapter.get("name") is None:
        return {**data, "adapter": {**adapter, "name": name}}
    if isinstance(adapter, Adapter) and adapter.type == "builtin" and adapter.name is None:
        return {**data, "adapter": adapter.model_copy(update={"name": name})}
    return data


class RunConfig(_Section):
    """A validated run config. ``catalogs`` holds shipped names and absolute paths of catalog files.

    A file names one ``method`` or a list of ``methods``; once validated, ``methods`` holds every
    method of the run (``method`` is then its only one, or None) with the config's ``budgets`` and
    ``sweeps`` filled into each. ``problems`` maps a catalog to the ids selected from it; a catalog
    it does not mention runs every problem (then ``limit`` keeps the first N of each); ``exclude``
    names training sources whose problems the plan drops (``srbf.runs.plan``).
    ``repeats`` fits each method K times on the same points (the repeat index is part of the key;
    each repeat's method seed differs); ``checkpoints`` is the grid on which a fit's trajectory is
    read at scoring time (N evenly spaced checkpoints over the fit's time limit), stored, not used
    by the run itself.
    ``seed: sealed`` asks for a run seed nobody knows until the run is published
    (``srbf.runs.sealed``): ``sealed`` is then true and ``seed`` is the text ``sealed`` until the
    run's store gives the seed (``with_seed``); the stored config text keeps saying ``sealed``.
    ``variants()`` expands the methods' sweeps, ``cells()`` adds budgets and conditions,
    ``select(ref, entries)`` picks the problems. ``source`` names the file (or ``<dict>``).
    """

    experiment: Name
    seed: Seed = 0
    catalogs: CatalogRefs
    problems: Any = None  # once validated: {catalog: selected ids}, read-only
    limit: Limit | None = None
    sampling: Annotated[SamplingConfig, BeforeValidator(_none_is({}))] = Field(default_factory=SamplingConfig)
    method: MethodConfig | None = None
    methods: tuple[MethodConfig, ...] | None = None
    budgets: Budgets = DEFAULT_BUDGETS
    sweeps: Annotated[tuple[Sweep, ...], BeforeValidator(_none_is(()))] = ()
    workers: Workers | None = None
    results: Text = DEFAULT_RESULTS
    sandbox: Flag = False  # run every worker under bubblewrap (srbf.methods.isolation)
    exclude: TrainingRefs = ()  # training sources whose problems the run drops (srbf.protocol)
    repeats: Repeats = 1  # fits of each method on the same points, each with its own method seed
    checkpoints: Checkpoints = DEFAULT_CHECKPOINTS  # the trajectory grid: k * time_limit / N, k = 1..N
    _source: str = PrivateAttr("<dict>")
    _sealed: bool = PrivateAttr(False)

    @model_validator(mode="before")
    @classmethod
    def _note_run_budgets(cls, data: Any, info: ValidationInfo) -> Any:
        """A ladder the config gives for the whole run wins over a roster method's own ladder."""
        if isinstance(info.context, dict) and isinstance(data, Mapping):
            info.context["run_budgets"] = "budgets" in data
        return data

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> RunConfig:
        """Check the whole config; the validated config is a copy with the derived fields filled
        in (``methods``, ``method``, ``problems``: see the class docstring). So a RunConfig is made
        by ``model_validate`` (``srbf.runs.config``), which returns that copy; pydantic warns that
        ``RunConfig(...)`` would not."""
        found: list[tuple[tuple[Any, ...], str]] = []
        self._check_methods(found)
        if not found:
            for where, method in self._located_methods():
                self._check_sweeps(where, method, found)
        if not found and not (info.context or {}).get("allow_large"):
            self._check_grid(found)
        problems = _selection(self.problems, self.catalogs, info, found)
        if found:
            raise _fail_all(found)
        methods = tuple(
            method.model_copy(update={"budgets": self.budgets if method.budgets is None else method.budgets,
                                      "sweeps": self.sweeps + method.sweeps})
            for _, method in self._located_methods()
        )
        settled = self.model_copy(update={"problems": MappingProxyType(problems), "methods": methods,
                                          "method": methods[0] if self.method is not None else None})
        settled._source = (info.context or {}).get("source", "<dict>")
        settled._sealed = self.seed == SEALED
        return settled

    @property
    def sealed(self) -> bool:
        """True when the run seed is sealed (``seed: sealed`` or ``srbf run --sealed``)."""
        return self._sealed

    def with_seed(self, seed: int | str, *, sealed: bool | None = None) -> RunConfig:
        """This config with run seed ``seed`` (a sealed run's seed from its store, or ``sealed``
        to seal a public config); still sealed unless ``sealed`` says otherwise."""
        copy = self.model_copy(update={"seed": seed})
        copy._sealed = self._sealed or seed == SEALED if sealed is None else sealed
        return copy

    @property
    def source(self) -> str:
        """The config file it was read from, or ``<dict>``."""
        return self._source

    def variants(self) -> list[Variant]:
        """The concrete method configurations of this run (``srbf.runs.sweeps.expand``)."""
        return expand(self)

    def cells(self) -> Iterator[Cell]:
        """Every variant x budget x condition (``srbf.runs.sweeps.iter_cells``)."""
        return iter_cells(self)

    def select(self, catalog: str, entries: Sequence[Any]) -> tuple[Any, ...]:
        """The entries (anything with an ``id``) of ``catalog`` this run covers, in catalog order."""
        chosen = self.problems.get(catalog)
        wanted = None if chosen is None else frozenset(chosen)
        picked = tuple(e for e in entries if wanted is None or e.id in wanted)
        return picked if self.limit is None else picked[: self.limit]

    def to_dict(self) -> dict[str, Any]:
        """The normalized config as plain JSON-like data (every default filled in), e.g. to store with a run."""
        fields = {**self.model_dump(exclude={"method", "methods"}), "source": self.source,
                  "methods": [method.to_dict() for method in self.methods]}
        if self.sealed:  # the stored text never holds a sealed seed
            fields["seed"] = SEALED
        keys = _RUN_KEYS + (("exclude",) if self.exclude else ())  # absent: the text stored before it existed
        return to_plain({key: fields[key] for key in keys})

    def _located_methods(self) -> list[tuple[tuple[Any, ...], MethodConfig]]:
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

    def _check_sweeps(self, where: tuple[Any, ...], method: MethodConfig, problems: list) -> None:
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
