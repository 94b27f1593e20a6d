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

The work is split by job: ``config_yaml`` reads the YAML, ``config_fields`` checks single values,
``config_schema`` holds the pydantic models and words their errors, ``config_errors`` has
``ConfigProblem`` and ``ConfigError``. This module keeps the records and the entry points and
re-exports every name of ``__all__``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterator, Mapping, Sequence

from pydantic import ValidationError

from srbf.methods.boundary import Limits
from srbf.runs.config_errors import ConfigError, ConfigProblem, _show, render_path
from srbf.runs.config_fields import (
    ADAPTER_TYPES,
    BUILTIN_METHODS,
    DEFAULT_BUDGETS,
    DEFAULT_RESULTS,
    PROVENANCE_LABELS,
    builtin_method_names,
    is_catalog_path,
)
from srbf.runs.config_limits import data_problems
from srbf.runs.config_schema import _problems_from, _RunModel, _SweepModel
from srbf.runs.config_yaml import read_config_file
from srbf.runs.sweeps import Cell, Condition, Variant, expand, iter_cells

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
    limits: Limits = Limits()  # what one fit may send back (not part of the hash unless changed)


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
    sandbox: bool = False  # run every worker under bubblewrap (srbf.methods.isolation)

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
                limits=Limits(**m.limits.model_dump()),
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
        sandbox=model.sandbox,
    )


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
    context = {"base_dir": Path(base_dir) if base_dir is not None else Path.cwd(), "allow_large": allow_large}
    try:
        model = _RunModel.model_validate(dict(data), context=context)
    except ValidationError as error:
        raise ConfigError(_problems_from(error, source)) from None
    return _build(model, source)


def load_config(path: str | Path, *, allow_large: bool = False) -> RunConfig:
    """Read and validate a config file; raises ConfigError naming the file, key path and value.
    ``allow_large``: accept more than ``MAX_VARIANTS`` method configurations (``--allow-large``)."""
    from srbf.runs.shipped import config_path

    path = config_path(path)  # a shipped config may be named: quickstart
    data = read_config_file(path)
    return config_from_dict(data, source=str(path), base_dir=Path(path).expanduser().resolve().parent,
                            allow_large=allow_large)
