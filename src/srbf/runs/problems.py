"""The points of planned fits: drawn in the parent process, shared by the rungs of a ladder.

``ProblemSource`` is the one place srbf draws a problem's points: for the runner, and for the
scoring pass, which regenerates the draws of stored predictions to score them (``draw``).
``prepare(fit)`` builds the ``FitTask`` a worker receives: the support points and their column
names, never the truth (except for an oracle) and never the validation points. A draw that
sampling gives up on becomes a ``Placeholder``, recorded instead of running the method.
``problem(fit)`` is the whole sampled problem (support, validation, OOD), for ``srbf check``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from srbf.core import FitResult, FitTask

if TYPE_CHECKING:  # not imported at run time: the scoring pass needs no config (pydantic) to draw
    from srbf.catalogs.model import CatalogEntry
    from srbf.catalogs.sampling import Problem
    from srbf.runs.config import RunConfig
    from srbf.runs.plan import PlannedFit

__all__ = ["Placeholder", "ProblemSource"]


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
    ) -> Problem:
        """The problem drawn from ``entry`` of catalog ``catalog`` (version ``catalog_version``) with
        these settings: the same points on every call and in every process (a placeholder when
        sampling gives up on the draw). Raises what sampling raises for settings it refuses."""
        from srbf.catalogs.sampling import ProblemSampler

        ident = (catalog, catalog_version, entry.id, seed, draw, n_support, noise, n_validation, ood)
        with self._lock:
            problem = self._problems.get(ident)
            if problem is not None:
                self._problems.move_to_end(ident)
                return problem
            sampler_key = (catalog, catalog_version, entry.id)
            sampler = self._samplers.get(sampler_key)
            if sampler is None:
                sampler = ProblemSampler(entry, catalog=catalog, catalog_version=catalog_version)
                self._samplers[sampler_key] = sampler
        problem = sampler.sample(
            seed=seed, draw=draw, n_support=n_support, n_validation=n_validation, noise=noise, ood=ood
        )
        with self._lock:
            self._problems[ident] = problem
            while len(self._problems) > self.cache_size:
                self._problems.popitem(last=False)
        return problem

    def prepare(self, fit: PlannedFit) -> FitTask | Placeholder:
        """The worker's task for ``fit``, or the ``Placeholder`` recorded instead of a fit."""
        try:
            problem = self.problem(fit)
        except Exception as exc:  # a draw srbf cannot make is recorded, and the run goes on
            reason = f"sampling failed: {type(exc).__name__}: {exc}"
            return Placeholder(FitResult(status="placeholder", error=reason))
        if problem.placeholder_reason is not None:
            result = FitResult(status="placeholder", error=problem.placeholder_reason)
            return Placeholder(result, problem.data_hash, problem.inputs_hash)
        options = fit.spec.options
        if fit.spec.sees_truth:
            options["truth"] = fit.entry.formula  # only oracle methods are ever given the truth
        return FitTask(
            key=fit.key,
            X=problem.X_support,
            y=problem.y_support,
            variables=tuple(problem.variables),
            options=options,
            time_limit=fit.variant.method.time_limit,
            data_hash=problem.data_hash,
            inputs_hash=problem.inputs_hash,
        )
