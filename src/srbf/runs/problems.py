"""The points of planned fits: drawn in the slot next to the method, shared by the rungs of a ladder.

``ProblemSource`` is the one place srbf draws a problem's points: for the runner's slots, and for
the scoring pass, which regenerates the draws of stored predictions to score them (``draw``).
The driver turns each planned fit into a ``FitOrder`` (``fit_order``: the task key, the catalog
entry, the sampling settings and the method's seed: small, picklable, no points), which travels
to a slot process or a Dask worker; there ``prepare(order)`` draws the points and builds the
``FitTask`` the method's worker receives: the support points and their column names, never the
truth (except for an oracle) and never the validation points. A draw that sampling gives up on
becomes a ``Placeholder``, recorded instead of running the method. ``problem(fit)`` is the whole
sampled problem (support, validation, OOD), for ``srbf check``.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from srbf.core import FitResult, FitTask, TaskKey

if TYPE_CHECKING:  # not imported at run time: slots and the scoring pass need no config (pydantic)
    from srbf.catalogs.model import CatalogEntry
    from srbf.catalogs.sampling import Problem
    from srbf.expr import Expr
    from srbf.runs.config import RunConfig
    from srbf.runs.plan import PlannedFit
    from srbf.runs.worker_spec import WorkerSpec

__all__ = ["FitOrder", "Placeholder", "ProblemSource", "fit_order"]


@dataclass(frozen=True)
class FitOrder:
    """One fit as a slot receives it: what to draw and for which worker, never any points."""

    key: TaskKey
    spec: WorkerSpec
    entry: CatalogEntry
    n_support: int
    noise: float
    n_validation: int
    ood: bool
    time_limit: float | None
    method_seed: int | None = None  # None: the method gets the key's seed (FitTask's default)

    def __reduce__(self):
        """Pickled as plain values (every fit crosses to a slot or a Dask worker, so a generic
        pickle of the key and the entry would cost more than drawing small problems); the entry
        travels with what drawing uses (id, formula, variables, target), not its sources and meta."""
        e = self.entry
        variables = tuple((v.name, v.low, v.high, v.distribution, v.sign) for v in e.variables)
        return _order, (
            tuple(getattr(self.key, name) for name in _KEY_FIELDS), self.spec, e.id, e.formula, variables,
            e.target, self.n_support, self.noise, self.n_validation, self.ood, self.time_limit, self.method_seed,
        )  # fmt: skip


_KEY_FIELDS = tuple(f.name for f in fields(TaskKey))


def _order(key, spec, entry_id, formula, variables, target, *settings) -> FitOrder:
    from srbf.catalogs.model import CatalogEntry, VariableSpec

    entry = CatalogEntry(entry_id, formula, tuple(VariableSpec(*v) for v in variables), target)
    return FitOrder(TaskKey(*key), spec, entry, *settings)


def fit_order(fit: PlannedFit, config: RunConfig, secret: bytes | None = None) -> FitOrder:
    """The order for ``fit`` of a run of ``config``; with the store's ``secret``, the method's
    seed is derived from the fit's key under it (``isolation.method_seed``), so that it cannot be
    fed back into srbf's sampler."""
    from srbf.methods.isolation import method_seed

    s = config.sampling
    return FitOrder(
        key=fit.key,
        spec=fit.spec,
        entry=fit.entry,
        n_support=fit.condition.n_support,
        noise=fit.condition.noise,
        n_validation=s.n_validation,
        ood=s.ood,
        time_limit=fit.variant.method.time_limit,
        method_seed=None if secret is None else method_seed(secret, fit.key),
    )


@dataclass(frozen=True)
class Placeholder:
    """A draw that sampling gave up on: recorded with ``result`` (status ``placeholder``, the
    reason as its error) instead of running the method."""

    result: FitResult
    data_hash: str = ""
    inputs_hash: str = ""


class ProblemSource:
    """Samples (and caches) problems; thread-safe. The last ``cache_size`` draws are kept, so the
    rungs of a ladder share one draw, and one sampler per catalog entry (its formula compiled once).

    ``config`` is the run whose fits ``problem`` and ``prepare`` draw (its sampling settings); the
    scoring pass, whose campaigns each ran with their own settings, passes none and calls ``draw``.
    """

    def __init__(self, config: RunConfig | None = None, *, cache_size: int = 32):
        self.config = config
        self.cache_size = int(cache_size)
        self._problems: OrderedDict[tuple, Any] = OrderedDict()
        self._samplers: dict[tuple[str, int, str], Any] = {}
        self._lock = threading.Lock()

    def problem(self, fit: PlannedFit) -> Problem:
        """The sampled ``Problem`` of a planned fit (support, validation and, if asked, OOD points)."""
        s = self.config.sampling
        return self.draw(
            fit.entry,
            catalog=fit.catalog.name,
            catalog_version=fit.catalog.version,
            seed=fit.key.seed,
            draw=fit.key.draw,
            n_support=fit.condition.n_support,
            noise=fit.condition.noise,
            n_validation=s.n_validation,
            ood=s.ood,
        )

    def draw(
        self,
        entry: CatalogEntry,
        *,
        catalog: str,
        catalog_version: int,
        seed: int,
        draw: int,
        n_support: int,
        noise: float,
        n_validation: int,
        ood: bool,
        tree: Expr | None = None,
    ) -> Problem:
        """The problem drawn from ``entry`` of catalog ``catalog`` (version ``catalog_version``) with
        these settings: the same points on every call and in every process (a placeholder when
        sampling gives up on the draw). Raises what sampling raises for settings it refuses.
        ``tree``: the entry's formula as ``admission.parse_formula`` reads it, when the caller has it
        (the scoring pass reads the shipped truths'): compiled for a new sampler, not parsed again."""
        ident = (catalog, catalog_version, entry.id, seed, draw, n_support, noise, n_validation, ood)
        with self._lock:
            problem = self._problems.get(ident)
            if problem is not None:
                self._problems.move_to_end(ident)
                return problem
            sampler_key = (catalog, catalog_version, entry.id)
            sampler = self._samplers.get(sampler_key)
            if sampler is None:
                compiled = None
                if tree is not None:
                    from srbf.expr import compile_expr

                    try:
                        compiled = compile_expr(tree, entry.variable_names)
                    except Exception:  # noqa: BLE001 - the sampler compiles the formula and says why it cannot
                        compiled = None
                sampler = _sampler_class()(entry, catalog=catalog, catalog_version=catalog_version, compiled=compiled)
                self._samplers[sampler_key] = sampler
        problem = sampler.sample(
            seed=seed, draw=draw, n_support=n_support, n_validation=n_validation, noise=noise, ood=ood
        )
        with self._lock:
            self._problems[ident] = problem
            while len(self._problems) > self.cache_size:
                self._problems.popitem(last=False)
        return problem

    def prepare(self, order: FitOrder) -> FitTask | Placeholder:
        """The worker's task for ``order``, or the ``Placeholder`` recorded instead of a fit."""
        key = order.key
        try:
            problem = self.draw(
                order.entry, catalog=key.catalog, catalog_version=key.catalog_version, seed=key.seed, draw=key.draw,
                n_support=order.n_support, noise=order.noise, n_validation=order.n_validation, ood=order.ood,
            )  # fmt: skip
        except Exception as exc:  # a draw srbf cannot make is recorded, and the run goes on
            reason = f"sampling failed: {type(exc).__name__}: {exc}"
            return Placeholder(FitResult(status="placeholder", error=reason))
        if problem.placeholder_reason is not None:
            result = FitResult(status="placeholder", error=problem.placeholder_reason)
            return Placeholder(result, problem.data_hash, problem.inputs_hash)
        return fit_task(key, problem, order.spec, order.entry.formula, order.time_limit, order.method_seed)


@functools.cache
def _sampler_class():
    """``ProblemSampler``, imported on the first draw (the parent of a run draws nothing), not on every one."""
    from srbf.catalogs.sampling import ProblemSampler

    return ProblemSampler


def fit_task(key: TaskKey, problem, spec: WorkerSpec, truth: str, time_limit: float, method_seed: int) -> FitTask:
    """The worker's task for a drawn ``problem``: its support points and their hashes, never the
    validation points, and the truth only for a method that is meant to see it (an oracle)."""
    options = dict(spec.options)
    if spec.sees_truth:
        options["truth"] = truth
    return FitTask(
        key=key,
        X=problem.X_support,
        y=problem.y_support,
        variables=tuple(problem.variables),
        options=options,
        time_limit=time_limit,
        data_hash=problem.data_hash,
        inputs_hash=problem.inputs_hash,
        method_seed=method_seed,
    )
