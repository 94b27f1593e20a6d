"""The timing run: every method of a config fitted on a frozen subset, one problem at a time.

A timed fit must not compete with anything srbf runs, so ``run_timing`` uses one worker process
(the ordinary ``methods.worker.Worker``, started as the driver starts them) and runs one fit at a
time in the calling thread; methods follow each other. Before a method's first recorded fit it
runs one warm-up fit (the subset's first problem at the method's smallest budget) whose result is
thrown away, so that one-time costs the worker's start did not cover (lazy imports, JIT
compilation, caches) are not in any recorded time.

The points come from the subset's files only (``timing_subset``); the records go to the subset's
own results store (``DIR/results``), one campaign per method configuration, which carries the
machine's facts, the subset's hash and the load average before the method ran. Each fit's
``internals`` gain ``srbf_timing``: when it started and ended (seconds since the epoch, measured
around the fit by this process) and the load average when it ended. A rerun resumes by key.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from srbf.core import FitResult, FitTask, TaskKey
from srbf.methods import isolation
from srbf.methods.worker import WorkerStartError
from srbf.runs.config import RunConfig
from srbf.runs.driver import RunError, run_lock, variant_stack, method_prechecks, sandbox_for
from srbf.runs.executor import first_line, new_worker
from srbf.runs.plan import WorkerSpec, worker_spec
from srbf.runs.problems import fit_task
from srbf.runs.sweeps import Variant
from srbf.runs.timing_machine import load_average, machine_facts
from srbf.runs.timing_subset import FrozenProblem, Subset, TimingError, load_subset

__all__ = ["TIMING_KEY", "TimingSummary", "run_timing"]

TIMING_KEY = "srbf_timing"  # the key of a timed fit's internals that holds its start, end and load


@dataclass
class TimingSummary:
    """What a timing run did: fits recorded per method label, and those already stored."""

    store: Path
    recorded: dict[str, int] = field(default_factory=dict)
    failed: dict[str, int] = field(default_factory=dict)
    skipped: int = 0
    seconds: float = 0.0


def run_timing(config: RunConfig, subset_dir: str | Path, *, log: Callable[[str], None] | None = None,
               progress: bool | None = None) -> TimingSummary:
    """Time every method configuration of ``config`` on the subset frozen in ``subset_dir`` (see the
    module docstring). TimingError or RunError (one line) when the subset, a method or the store
    refuses; nothing is recorded for a method that does not start."""
    from srbf.runs.summary import progress_bar
    from srbf.store import ResultsStore

    started = time.perf_counter()
    log = log or (lambda text: print(f"srbf: {text}", file=sys.stderr, flush=True))
    subset = load_subset(subset_dir)
    points = {p: subset.points(p) for p in subset.problems}  # every file checked before any fit
    variants = list(config.variants())
    problems = method_prechecks(variants)
    if problems:
        raise RunError("; ".join(problems))
    if config.sandbox and (problem := isolation.sandbox_problem()):
        raise RunError(f"--sandbox: {problem}")
    store = ResultsStore(subset.store)
    summary = TimingSummary(store.path)
    try:
        lock = run_lock(store.path)
    except BaseException:
        store.close()
        raise
    try:
        secret = store.secret()
        sandbox = None
        if config.sandbox:  # the subset's files hold the truth: hidden with the store
            hidden = sandbox_for(config, store.path).hidden + (str(subset.directory.resolve()),)
            sandbox = isolation.Sandbox(hidden=hidden)
        machine = machine_facts()
        probed: dict = {}
        for variant in variants:
            done = store.done_keys(variant.config_hash)
            todo = [(p, b) for p in subset.problems for b in variant.budgets if _key(variant, subset, p, b) not in done]
            summary.skipped += len(subset.problems) * len(variant.budgets) - len(todo)
            if not todo:
                continue
            spec = worker_spec(variant)
            worker = new_worker(spec, start_timeout=600.0, tail_bytes=8192, sandbox=sandbox)
            try:
                try:
                    worker.start()
                except WorkerStartError as exc:
                    raise RunError(f"{variant.label}: {first_line(str(exc))} (nothing of it was timed)") from None
                first = subset.problems[0]
                warm = worker.fit(_task(variant, spec, subset, first, min(variant.budgets), points[first], secret))
                if warm.status != "ok":
                    log(f"{variant.label}: the warm-up fit ended {warm.status}: {first_line(warm.error)}")
                campaign = store.start_campaign(
                    config.experiment,
                    {"run": config.to_dict(), "variant": variant.to_dict(), "source": config.source, "workers": 1,
                     "timing": {"subset": str(subset.directory.resolve()), "subset_hash": subset.hash,
                                "machine": machine, "load_before": load_average()}},
                    variant.config_hash,
                    variant.method.config_provenance,
                    method_stack=variant_stack(variant, probed),
                )
                bar = progress_bar(len(todo), variant.label, sys.stderr.isatty() if progress is None else progress)
                try:
                    for problem, budget in todo:
                        task = _task(variant, spec, subset, problem, budget, points[problem], secret)
                        result = _timed_fit(worker, task)
                        if spec.sees_truth:
                            result.internals.setdefault("sees_truth", True)
                        store.record(task.key, result, campaign_id=campaign, data_hash=task.data_hash,
                                     inputs_hash=task.inputs_hash)
                        summary.recorded[variant.label] = summary.recorded.get(variant.label, 0) + 1
                        if result.status != "ok":
                            summary.failed[variant.label] = summary.failed.get(variant.label, 0) + 1
                        bar.update(1)
                finally:
                    bar.close()
            finally:
                worker.close()
        return summary
    finally:
        store.close()
        lock.release()
        summary.seconds = time.perf_counter() - started


def _timed_fit(worker, task: FitTask) -> FitResult:
    """One fit with its start and end as this process saw them; a worker that cannot restart
    gives a crashed record (a bad fit is a failed record, never a failed run)."""
    began = time.time()
    try:
        result = worker.fit(task)
    except WorkerStartError as exc:
        result = FitResult(status="crashed", error=f"the worker could not be restarted: {first_line(str(exc))}")
    ended = time.time()
    result.internals[TIMING_KEY] = {"started": began, "ended": ended, "load": load_average()}
    return result


def _key(variant: Variant, subset: Subset, problem: FrozenProblem, budget: float) -> TaskKey:
    return TaskKey(
        method=variant.name,
        config_hash=variant.config_hash,
        catalog=problem.catalog,
        catalog_version=problem.catalog_version,
        problem_id=problem.problem_id,
        draw=problem.draw,
        budget=budget,
        condition=subset.condition,
        seed=subset.seed,
    )


def _task(variant: Variant, spec: WorkerSpec, subset: Subset, problem: FrozenProblem, budget: float, drawn,
          secret: bytes) -> FitTask:
    """The worker's task for one frozen problem: its support points, never the truth (except for an oracle)."""
    if drawn.is_placeholder:  # a frozen subset holds none; a hand-made one is refused here
        raise TimingError(f"{subset.directory / problem.file}: a placeholder ({drawn.placeholder_reason}) cannot be timed")
    key = _key(variant, subset, problem, budget)
    return fit_task(key, drawn, spec, drawn.formula, variant.method.time_limit, isolation.method_seed(secret, key))
