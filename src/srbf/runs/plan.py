"""Plan a run: a config into the fits it asks for, minus the fits the store already holds.

A run is every variant x catalog x selected problem x draw x condition x budget x repeat.
``make_plan`` lists them as ``PlannedFit`` records (a task key plus what is needed to build the
fit later) in one deterministic order:

    variant (config order) > catalog (config order) > problem (catalog order) > draw > condition
        > budget > repeat

Variants are outermost so that a worker process runs one method configuration for a long stretch
(it is started once, not once per problem); budgets and repeats are innermost so that the points
of one draw are sampled once and reused by every rung of the ladder and every repeat (repeats
differ in the method's seed only, never in the points). Keys already stored (``done``, from
``ResultsStore.done_keys``) are skipped, whatever their status: a failed fit is a result too.

Planning samples nothing and starts nothing: it is cheap enough for ``srbf status`` to plan a
config on every call. Points are drawn later, by ``srbf.runs.problems.ProblemSource``; a draw
that sampling gives up on is recorded as a ``placeholder`` without running the method.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Collection, Mapping

from srbf.catalogs.model import Catalog, CatalogEntry
from srbf.runs.config import RunConfig
from srbf.runs.sealed import check_seed
from srbf.core import TaskKey
from srbf.runs.sweeps import Condition, Variant, canonical_json
from srbf.runs.worker_spec import WorkerSpec

__all__ = [
    "CatalogCounts",
    "Plan",
    "PlannedFit",
    "WorkerSpec",
    "load_catalogs",
    "excluded_problems",
    "make_plan",
    "worker_spec",
]


def worker_spec(variant: Variant) -> WorkerSpec:
    """The worker a variant runs in: its method file (a built-in's, the adapter's file, or srbf's
    runner of SRBench folders), interpreter, options and environment."""
    from srbf.methods.builtin import ORACLE_METHODS, path_of

    adapter = variant.method.adapter
    options = dict(variant.options)
    oracle = False
    if adapter.type == "builtin":
        method_file, oracle = str(path_of(adapter.name)), adapter.name in ORACLE_METHODS
    elif adapter.type == "srbench":  # one generic method file runs the folder named by an option
        from srbf.methods.srbench import SRBENCH_MAIN, worker_options

        method_file, options = str(SRBENCH_MAIN), worker_options(adapter.path, options)
    else:
        method_file = str(adapter.path)
    return WorkerSpec(
        label=variant.label,
        method_file=method_file,
        python=variant.method.python,
        options_json=canonical_json(options),
        env=tuple(sorted(variant.method.env.items())),
        sees_truth=oracle,
        limits=variant.method.limits,
        memory_limit=None if variant.method.memory_limit is None else int(variant.method.memory_limit * 2**20),
    )


@dataclass(frozen=True, eq=False)
class PlannedFit:
    """One fit of the plan: its key, the variant and worker it runs with, and what to sample."""

    index: int  # position in the full plan (stored fits included), for a stable order
    key: TaskKey
    variant: Variant
    spec: WorkerSpec
    catalog: Catalog
    entry: CatalogEntry
    condition: Condition
    rungs: tuple[PlannedFit, ...] = ()  # smaller budgets stored from this fit's trajectory (srbf.runs.ladder)


@dataclass
class CatalogCounts:
    """Fits of one catalog in a plan: ``planned`` = ``stored`` (already in the store) + ``pending``."""

    planned: int = 0
    stored: int = 0

    @property
    def pending(self) -> int:
        return self.planned - self.stored


@dataclass
class Plan:
    """The fits a config asks for. ``fits`` are the pending ones, in plan order; ``keys`` all of them."""

    config: RunConfig
    variants: list[Variant]
    catalogs: dict[str, Catalog]  # catalog reference of the config -> loaded catalog
    fits: list[PlannedFit]
    keys: list[TaskKey]
    counts: dict[str, CatalogCounts] = field(default_factory=dict)  # by catalog name
    excluded: dict[str, dict[str, str]] = field(default_factory=dict)  # catalog name -> {id: why}, by exclude

    @property
    def planned(self) -> int:
        return len(self.keys)

    @property
    def pending(self) -> int:
        return len(self.fits)

    @property
    def skipped(self) -> int:
        return self.planned - self.pending

    def pending_variants(self) -> list[Variant]:
        """The variants that still have fits to run, in config order."""
        seen: dict[tuple[str, str], Variant] = {}
        for fit in self.fits:
            seen.setdefault((fit.variant.name, fit.variant.config_hash), fit.variant)
        return list(seen.values())


def load_catalogs(config: RunConfig) -> dict[str, Catalog]:
    """Every catalog of the config, loaded and admitted (CatalogError names a bad one)."""
    from srbf.catalogs.loader import load_catalog

    return {ref: load_catalog(ref) for ref in config.catalogs}


def excluded_problems(config: RunConfig, catalogs: Mapping[str, Catalog]) -> dict[str, dict[str, str]]:
    """{catalog ref: {problem id: why}} for the problems ``config.exclude``'s training sources do
    not verifiably hold out (missed or unverifiable: the check fails closed)."""
    if not config.exclude:
        return {}
    from srbf.protocol.decontamination import check_catalog
    from srbf.protocol.training import read_training

    sources = [read_training(ref) for ref in config.exclude]
    dropped: dict[str, dict[str, str]] = {}
    for ref in config.catalogs:
        for source in sources:
            check = check_catalog(catalogs[ref], source)
            for pid, why in {**check.missed, **check.unverifiable}.items():
                dropped.setdefault(ref, {}).setdefault(pid, f"{source.label}: {why}")
    return dropped


def make_plan(
    config: RunConfig,
    *,
    done: Collection[TaskKey] = frozenset(),
    variants: list[Variant] | None = None,
    catalogs: Mapping[str, Catalog] | None = None,
) -> Plan:
    """Every fit of ``config`` in plan order; those whose key is in ``done`` are counted, not listed.

    ``config`` has a number for its seed (a sealed config's comes from its store: ``srbf.runs.sealed``).
    ``variants`` restricts the run to some of ``config.variants()`` (e.g. a sweep filter);
    ``catalogs`` are the loaded catalogs by reference, loaded here if not given.
    """
    check_seed(config)
    variants = list(config.variants()) if variants is None else list(variants)
    catalogs = dict(catalogs) if catalogs is not None else load_catalogs(config)
    done = done if isinstance(done, (set, frozenset)) else set(done)
    fits: list[PlannedFit] = []
    keys: list[TaskKey] = []
    counts: dict[str, CatalogCounts] = {}
    excluded = excluded_problems(config, catalogs)
    selected = {ref: tuple(e for e in config.select(ref, catalogs[ref].entries) if e.id not in excluded.get(ref, {}))
                for ref in config.catalogs}
    for variant in variants:
        spec = worker_spec(variant)
        for ref in config.catalogs:
            catalog = catalogs[ref]
            tally = counts.setdefault(catalog.name, CatalogCounts())
            for entry in selected[ref]:
                for draw in range(config.sampling.draws):
                    for condition in variant.conditions:
                        for budget in variant.budgets:
                            for repeat in range(config.repeats):
                                key = TaskKey(
                                    method=variant.name,
                                    config_hash=variant.config_hash,
                                    catalog=catalog.name,
                                    catalog_version=catalog.version,
                                    problem_id=entry.id,
                                    draw=draw,
                                    budget=budget,
                                    condition=condition.text,
                                    seed=config.seed,
                                    repeat=repeat,
                                )
                                index = len(keys)
                                keys.append(key)
                                tally.planned += 1
                                if key in done:
                                    tally.stored += 1
                                    continue
                                fits.append(PlannedFit(index, key, variant, spec, catalog, entry, condition))
    return Plan(config=config, variants=variants, catalogs=dict(catalogs), fits=fits, keys=keys, counts=counts,
                excluded={catalogs[ref].name: ids for ref, ids in excluded.items()})
