"""``srbf.evaluate``: benchmark a scikit-learn regressor under the protocol of a configured run.

The estimator becomes an SRBench method folder (``srbf.api.estimator``) and the call becomes a
run config (the same pydantic models ``srbf run -c`` validates), run by the same driver into the
same store and scored by the same judge: its own worker processes, the same draws, time limits,
seeds and records. Built-in and roster methods run beside it (``baselines``). Returns the store
as :class:`srbf.api.results.Results`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from srbf.api.estimator import EstimatorError, write_method_folder
from srbf.api.results import Results
from srbf.core import DEFAULT_RESULTS

__all__ = ["evaluate", "evaluation_config"]


def _name_of(estimator: Any, name: str | None) -> str:
    import re

    name = name or type(estimator).__name__
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._+-]*", name):
        raise EstimatorError(f"srbf.evaluate: name={name!r} must be letters, digits and . _ + - (a method label)")
    return name


def evaluation_config(estimator: Any, *, sets: Sequence[str] = ("feynman",), limit: int | None = None,
                      draws: int = 1, budgets: Sequence[float] | None = None, budget_param: str | None = None,
                      params: Mapping[str, Any] | None = None, seed_param: str | None = "random_state",
                      time_limit: float = 60.0, workers: int | None = None, results: str | Path = DEFAULT_RESULTS,
                      baselines: Sequence[str | Mapping[str, Any]] = (), name: str | None = None,
                      formula: Callable | None = None, n_support: int = 512, noise: float = 0.0, seed: int = 0,
                      experiment: str | None = None) -> dict[str, Any]:
    """The run config ``evaluate`` runs, as the dict a YAML config would give (the estimator's
    folder written under ``results``): what ``srbf run -c`` would read for the same run."""
    label = _name_of(estimator, name)
    folder = write_method_folder(estimator, results, label, formula)
    options: dict[str, Any] = {"seed_param": seed_param}
    if budget_param:
        options["budget_param"] = budget_param
    if params:
        options["params"] = dict(params)
    method = {"name": label, "adapter": {"type": "srbench", "path": str(folder.resolve())}, "options": options,
              "python": sys.executable, "time_limit": time_limit,
              "budget_knob": budget_param or "unused (no budget_param: every budget fits the same estimator)"}
    others = [{"name": b} if isinstance(b, str) else dict(b) for b in baselines]
    return {"experiment": experiment or f"evaluate-{label}", "seed": seed, "catalogs": list(sets), "limit": limit,
            "sampling": {"n_support": n_support, "draws": draws, "noise": noise},
            "budgets": list(budgets) if budgets else [1], "methods": [method, *others], "workers": workers,
            "results": str(results)}


def evaluate(estimator: Any, *, sets: Sequence[str] = ("feynman",), limit: int | None = None, draws: int = 1,
             budgets: Sequence[float] | None = None, budget_param: str | None = None,
             params: Mapping[str, Any] | None = None, seed_param: str | None = "random_state",
             time_limit: float = 60.0, workers: int | None = None, results: str | Path = DEFAULT_RESULTS,
             baselines: Sequence[str | Mapping[str, Any]] = (), name: str | None = None,
             formula: Callable | None = None, n_support: int = 512, noise: float = 0.0, seed: int = 0,
             experiment: str | None = None, progress: bool = True, score: bool = True) -> Results:
    """Benchmark ``estimator`` (scikit-learn style: ``fit(X, y)``, and a formula) and return the store.

    Parameters
    ----------
    estimator : a regressor that gives its formula: ``formula=`` (``formula(est)`` or SRBench's
        ``model(est, X)``), else its ``sympy()`` method, else its ``model()`` method. It is cloned,
        pickled (cloudpickle) and fitted afresh on every problem in a worker process.
    sets, limit : the shipped problem sets (or catalog files) and the first ``limit`` problems of each.
    draws, n_support, noise, seed : the sampling, as a config's ``sampling:`` and ``seed:``.
    budgets, budget_param : the budget ladder, written to the estimator's parameter ``budget_param``
        before each fit (e.g. ``generations``); default one budget, 1.
    params : further estimator parameters set before each fit; ``seed_param`` receives the fit's
        seed when the estimator has it.
    time_limit : seconds per fit (the worker is killed past it; the fit is a ``timeout`` record).
    workers, results : parallel fits (default one per core) and the results store.
    baselines : built-in or roster methods to run beside it (``"linear"``, ``"gplearn"``), or
        method entries as a config's ``methods:`` list takes them.
    name : its label (default: the class name). progress : show the run's progress bar.
    score : score the predictions (``srbf score``) before returning.

    Returns
    -------
    Results : the store, read with the newest configuration of each method.

    Raises
    ------
    EstimatorError : the estimator has no ``fit``, gives no formula, or does not pickle (before any fit).
    ConfigError, RunError : a bad value (named as ``srbf run`` names it), a method that cannot start.
    """
    from srbf.runs.config import config_from_dict
    from srbf.runs.driver import run_config

    data = evaluation_config(estimator, sets=sets, limit=limit, draws=draws, budgets=budgets,
                             budget_param=budget_param, params=params, seed_param=seed_param, time_limit=time_limit,
                             workers=workers, results=results, baselines=baselines, name=name, formula=formula,
                             n_support=n_support, noise=noise, seed=seed, experiment=experiment)
    config = config_from_dict(data, source="srbf.evaluate")
    summary = run_config(config, progress=progress)
    if progress:
        print(summary.text())
    if summary.interrupted:
        raise KeyboardInterrupt("srbf.evaluate: interrupted; the finished fits are stored, the same call resumes")
    if score:
        from srbf.judge.scoring_pass import score_store

        score_store(str(results), progress=progress)
    return Results(str(results))
