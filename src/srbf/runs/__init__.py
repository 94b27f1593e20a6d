"""Runs: configs, planning a config into fit tasks, executors, the driver, the timing protocol.

- ``load_config(name_or_path)`` / ``config_from_dict(data)`` -> ``RunConfig``, or ``ConfigError``
  listing every problem with its key path (docs/config.md);
- ``run_config(config, ...)`` -> ``RunSummary``: plan, run and store every fit, resumable
  (docs/running.md); ``make_plan`` the fits a config asks for;
- ``run_check(path)`` -- ``srbf check``; ``run_timing`` -- the timing protocol (docs/timing.md);
- ``ReplayError`` -- what ``srbf replay`` says when stored fits cannot be rebuilt.

Every name is imported on first use: ``srbf --help`` loads none of pydantic, NumPy or the driver.
"""

from __future__ import annotations

from srbf.core import lazy_attributes

_EXPORTS = {
    "ConfigError": "srbf.runs.config",
    "ConfigProblem": "srbf.runs.config",
    "MethodConfig": "srbf.runs.config",
    "RunConfig": "srbf.runs.config",
    "SamplingConfig": "srbf.runs.config",
    "config_from_dict": "srbf.runs.config",
    "load_config": "srbf.runs.config",
    "RunError": "srbf.runs.driver",
    "run_config": "srbf.runs.driver",
    "RunSummary": "srbf.runs.summary",
    "Plan": "srbf.runs.plan",
    "PlannedFit": "srbf.runs.plan",
    "make_plan": "srbf.runs.plan",
    "CheckFailed": "srbf.runs.check",
    "CheckReport": "srbf.runs.check",
    "run_check": "srbf.runs.check",
    "run_timing": "srbf.runs.timing_run",
    "TimingError": "srbf.runs.timing_subset",
    "ReplayError": "srbf.runs.replay",
    "SealedError": "srbf.runs.sealed",
    "ShardError": "srbf.runs.shards",
    "ClusterError": "srbf.runs.dask_cluster",
    "Executor": "srbf.runs.executor",
    "LocalExecutor": "srbf.runs.local_executor",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_attributes(__name__, _EXPORTS)
