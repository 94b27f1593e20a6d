"""The points of planned fits: drawn in the parent process, shared by the rungs of a ladder.

``ProblemSource.prepare(fit)`` builds the ``FitTask`` a worker receives: the support points and
their column names, never the truth (except for an oracle) and never the validation points. A draw
that sampling gives up on becomes a ``Placeholder``, recorded instead of running the method.
``problem(fit)`` is the whole sampled problem (support, validation, OOD), for ``srbf check``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from srbf.runs.config import RunConfig
from srbf.runs.plan import PlannedFit
from srbf.core import FitResult, FitTask

__all__ = ["Placeholder", "ProblemSource"]


@dataclass(frozen=True)
class Placeholder:
    """A draw that sampling gave up on: recorded with ``result`` (status ``placeholder``, the
    reason as its error) instead of running the method."""

    result: FitResult
    data_hash: str = ""
    inputs_hash: str = ""


def _ident(fit: PlannedFit) -> tuple:
    key = fit.key
    return (key.catalog, key.catalog_version, key.problem_id, key.draw, key.condition, key.seed)


class ProblemSource:
    """Samples (and caches) the points of planned fits; thread-safe. The last ``cache_size``
    draws are kept, so the rungs of a ladder share one draw."""

    def __init__(self, config: RunConfig, *, cache_size: int = 32):
        self.config = config
        self.cache_size = int(cache_size)
        self._problems: OrderedDict[tuple, Any] = OrderedDict()
        self._samplers: dict[tuple[str, int, str], Any] = {}
        self._lock = threading.Lock()

    def problem(self, fit: PlannedFit):
        """The sampled ``Problem`` of a planned fit (support, validation and, if asked, OOD points)."""
        from srbf.catalogs.sampling import ProblemSampler

        key = fit.key
        ident = _ident(fit)
        with self._lock:
            problem = self._problems.get(ident)
            if problem is not None:
                self._problems.move_to_end(ident)
                return problem
            sampler_key = (key.catalog, key.catalog_version, key.problem_id)
            sampler = self._samplers.get(sampler_key)
            if sampler is None:
                sampler = ProblemSampler(fit.entry, catalog=fit.catalog.name, catalog_version=fit.catalog.version)
                self._samplers[sampler_key] = sampler
        s = self.config.sampling
        problem = sampler.sample(
            seed=key.seed,
            draw=key.draw,
            n_support=fit.condition.n_support,
            n_validation=s.n_validation,
            noise=fit.condition.noise,
            ood=s.ood,
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
