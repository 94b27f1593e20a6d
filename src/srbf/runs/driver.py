"""The driver: run a config from plan to stored results, resumable and interruptible.

``run_config(config)`` opens the results store, plans the config (skipping every fit already
stored), starts the workers of the method that runs first (one that cannot start stops the run
here, before any fit or record; every other method's workers start when its first fit is due, and
one that cannot start then stops the run before its first fit), starts a campaign per variant, and
records the fits as they arrive: fits finished within ``COMMIT_WINDOW_SECONDS`` (50 ms) of each other share one commit, so
a crash, a ``kill -9`` or a power cut loses at most the fits in flight and those of the last
50 ms, and running the same config again resumes where it stopped. A progress bar
(``tqdm``, on stderr when it is a terminal) shows fits done, failures and the time left, from
before the first worker starts, with a line for each method whose workers are starting.

One run at a time writes a store (``runlock``): a second ``srbf run`` on the same results refuses,
naming the first one's pid. Each method receives a seed derived from its fit's key under the
store's secret (``isolation.method_seed``), never the run seed its points were drawn with; with
``sandbox`` each worker runs under bubblewrap, blind to the results, the config and the catalogs.
A config with ``seed: sealed`` draws with a seed kept in the store (``sealed``), published in its
exports only once every fit is stored.

Ctrl-C (``KeyboardInterrupt``) stops cleanly: the fits in flight are killed and dropped, every
finished fit is kept, and the returned ``RunSummary`` says how many were done and how to resume.
``status.collect_status`` reads the same plan against a store opened read-only, also while a run
writes; ``summary`` holds what a run reports (the progress bar, the ``RunSummary``).
"""

from __future__ import annotations

import contextlib
import functools
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Sequence

import yaml

from srbf.methods import isolation
from srbf.runs.config import RunConfig
from srbf.runs.config_fields import SEALED
from srbf.runs.config_limits import LIMIT, WORKERS
from srbf.runs.executor import Completed, Executor, WorkerStartError
from srbf.runs.local_executor import LocalExecutor
from srbf.runs.plan import Plan, load_catalogs, make_plan, worker_spec
from srbf.runs.prechecks import method_prechecks
from srbf.runs.ladder import one_fit_ladders, with_rungs
from srbf.runs.problems import fit_order
from srbf.core import SrbfError, TaskKey, collector_tuned
from srbf.runs.runlock import RunLock, RunLocked
from srbf.runs.changes import changed_lines, pending_fits
from srbf.runs.sealed import sealed_seed
from srbf.runs.shards import Shard, shard_plan, shared_secret
from srbf.runs.summary import RunSummary, fit_place, progress_bar
from srbf.runs.sweeps import Variant, canonical_json
from srbf.store.environment import git_state
from srbf.store.rows import Fit

__all__ = [
    "RunError",
    "apply_overrides",
    "filter_variants",
    "run_config",
]

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
ABNORMAL = ("failed", "timeout", "crashed", "memory_limit")
COMMIT_WINDOW_SECONDS = 0.05  # fits finished within this long of each other share one commit


class RunError(SrbfError):
    """A run that cannot start or go on (a method that does not start, a bad override); one line."""


# --- choosing what to run -----------------------------------------------------------------------


def apply_overrides(
    config: RunConfig,
    *,
    experiment: str | None = None,
    limit: int | None = None,
    workers: int | None = None,
    results: str | Path | None = None,
    sandbox: bool = False,
    sealed: bool = False,
) -> RunConfig:
    """``config`` with command-line overrides: experiment name, problems per catalog, workers,
    results, sandbox and sealed (only ever turned on). Each is held to the config field's range
    (``config_limits``)."""
    changes: dict[str, Any] = {}
    if sandbox:
        changes["sandbox"] = True
    if experiment is not None:
        if not _NAME.fullmatch(experiment):
            raise RunError(f"--experiment: must be a name of letters, digits and . _ + -, got {experiment!r}")
        changes["experiment"] = experiment
    for flag, value, bounds in (("limit", limit, LIMIT), ("workers", workers, WORKERS)):
        if value is not None:
            problem = bounds.problem(value)
            if problem is not None:
                raise RunError(f"--{flag}: {problem}")
            changes[flag] = int(value)
    if results is not None:
        changes["results"] = str(results)
    config = config.model_copy(update=changes) if changes else config  # a copy does not validate: checked above
    return config.with_seed(SEALED) if sealed and not config.sealed else config


def _filter_value(text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def filter_variants(variants: Sequence[Variant], filters: Sequence[str]) -> list[Variant]:
    """The variants matching every ``AXIS=VALUE`` filter (repeating an axis allows either value).

    AXIS is a swept option, a sweep axis name (matching any option on that axis), or ``method``;
    VALUE is read as YAML (``3``, ``0.5``, ``true``, ``text``) and compared with the swept value.
    """
    wanted: dict[str, list[Any]] = {}
    for text in filters:
        axis, sep, value = text.partition("=")
        if not sep or not axis.strip():
            raise RunError(f"--sweep-filter: expected AXIS=VALUE, got {text!r}")
        wanted.setdefault(axis.strip(), []).append(_filter_value(value.strip()))
    if not wanted:
        return list(variants)

    def options_on(variant: Variant, axis: str) -> list[str]:
        if any(option == axis for option, _ in variant.swept):
            return [axis]
        return [s.option for s in variant.method.sweeps if s.axis == axis]

    known = {"method"} | {o for v in variants for o, _ in v.swept} | {
        s.axis for v in variants for s in v.method.sweeps if s.axis
    }
    for axis in wanted:
        if axis not in known:
            listed = ", ".join(sorted(known))
            raise RunError(f"--sweep-filter: {axis!r} is not swept in this config (axes: {listed})")

    def matches(variant: Variant) -> bool:
        swept = dict(variant.swept)
        for axis, values in wanted.items():
            if axis == "method":
                if variant.name not in [str(v) for v in values]:
                    return False
                continue
            options = options_on(variant, axis)
            if not options:
                return False
            texts = {canonical_json(v) for v in values} | {str(v) for v in values}
            if not any(canonical_json(swept[o]) in texts or str(swept[o]) in texts for o in options):
                return False
        return True

    chosen = [v for v in variants if matches(v)]
    if not chosen:
        available = ", ".join(v.label for v in variants)
        raise RunError(f"--sweep-filter {' '.join(filters)}: no variant matches (variants: {available})")
    return chosen


# --- running ------------------------------------------------------------------------------------


def _stored_keys(store, variants: Sequence[Variant]) -> set[TaskKey]:
    done: set[TaskKey] = set()
    for h in dict.fromkeys(v.config_hash for v in variants):
        done |= store.done_keys(h)
    return done


def _campaign_config(config: RunConfig, variant: Variant, extra: dict[str, Any]) -> dict[str, Any]:
    return {"run": config.to_dict(), "variant": variant.to_dict(), "source": config.source, **extra}


def run_config(
    config: RunConfig,
    *,
    variants: Sequence[Variant] | None = None,
    resume: bool = True,
    executor: Executor | None = None,
    progress: bool | None = None,
    log: Callable[[str], None] | None = None,
    resume_hint: str | None = None,
    shard: Shard | None = None,
    secret_file: str | Path | None = None,
    make_executor: Callable[[int | None, isolation.Sandbox | None], Executor] | None = None,
    separate_ladder: bool = False,
) -> RunSummary:
    """Run ``config`` into its results store (``config.results``) and return the summary.

    Parameters
    ----------
    config : RunConfig
        A loaded config (``srbf.runs.config.load_config`` or ``config_from_dict``).
    variants : sequence of Variant, optional
        Restricts the run (default: all of ``config.variants()``).
    resume : bool, default True
        Skip the fits already stored; False refuses to run when some are (srbf never overwrites
        a result).
    executor : Executor, optional
        Runs the fits; default ``make_executor(config.workers, sandbox)``, closed at the end.
    progress : bool, optional
        Show the progress bar (default: when stderr is a terminal).
    log : callable, optional
        Receives notes (default: stderr).
    resume_hint : str, optional
        The command the summary suggests for resuming.
    shard : Shard, optional
        Run only that shard's share of the fits (``srbf.runs.shards``); its store must be new or
        hold that shard already. Without it, a shard's store is refused.
    secret_file : str or Path, optional
        Where a sharded run's secret is kept (made there by the first shard).
    make_executor : callable, optional
        (workers, sandbox) -> Executor; by default a ``LocalExecutor`` (slot processes).
    separate_ladder : bool, default False
        Fit every budget on its own, also for methods whose ladder is read from one fit's exact
        trajectory (``ladder: one_fit``; ``srbf.runs.ladder``).

    Returns
    -------
    RunSummary
        What was recorded: ``ok``, ``failed``, ``timeouts``, ``crashed``, ``placeholders``,
        ``skipped`` and ``text()``, the lines ``srbf run`` prints. A method that fails a fit is a
        failed record, never a failed run.

    Raises
    ------
    RunError
        A method cannot start, the sandbox cannot run, or another run holds the store; nothing is
        recorded then.
    StoreError
        The store cannot be written.

    Notes
    -----
    Every fit is committed within 50 ms of its return, so a run stopped in any way loses at most
    the fits in flight, and the same call again runs only the rest (docs/running.md, "Resume").
    The executor is made before planning, so that its slot processes (or a Dask LocalCluster)
    start meanwhile; ``sandbox`` is None unless the config asks for it.

    Examples
    --------
    >>> import tempfile
    >>> from srbf.runs.config import config_from_dict
    >>> folder = tempfile.TemporaryDirectory()
    >>> config = config_from_dict({
    ...     "experiment": "tiny", "catalogs": "nguyen", "limit": 2, "workers": 1, "results": folder.name,
    ...     "sampling": {"draws": 1, "n_support": 64, "n_validation": 64},
    ...     "methods": [{"name": "linear", "budgets": [1]}]})
    >>> summary = run_config(config, progress=False, log=lambda note: None)
    >>> summary.ok, summary.failed
    (2, 0)
    >>> run_config(config, progress=False, log=lambda note: None).skipped  # resumed: nothing left to run
    2
    >>> folder.cleanup()
    """
    from srbf.store import ResultsStore

    started = time.perf_counter()
    log = log or (lambda text: print(f"srbf: {text}", file=sys.stderr, flush=True))
    show = sys.stderr.isatty() if progress is None else bool(progress)
    variants = list(config.variants()) if variants is None else list(variants)
    if config.sandbox and executor is None and (problem := isolation.sandbox_problem()):
        raise RunError(f"--sandbox: {problem}")
    problems = method_prechecks(variants)
    if problems:  # the method's own pre-checks (doctor's): before any store exists
        raise RunError("; ".join(problems))
    store = ResultsStore(config.results)  # a read-only or unusable store fails here, before any fit
    try:
        lock = run_lock(store.path)
    except BaseException:
        store.close()
        raise
    summary = RunSummary(config.experiment, store.path.resolve(), resume_hint=resume_hint or RunSummary.resume_hint)
    own_executor = executor is None
    bar = None
    # The plan (a record per fit) and the catalogs live as long as the run: with Python's default
    # thresholds the collector traversed them in full collections of 0.15-0.28 s each, freeing
    # nothing. Fewer collections for the run (``collector_tuned``); in a process tuned for its life
    # (the ``srbf run`` command) what the plan leaves is also frozen.
    tuning = contextlib.ExitStack()
    keep = tuning.enter_context(collector_tuned())

    def new_executor() -> Executor:
        sandbox = sandbox_for(config, store.path, secret_file if shard else None) if config.sandbox else None
        return (make_executor or _local_executor)(config.workers, sandbox)

    try:
        config = _claim_seed(config, store, shard, secret_file)
        whole = not config.sealed or {v.label for v in variants} == {v.label for v in config.variants()}
        if executor is None:  # local slots, or a LocalCluster's workers: they start while the plan is made
            executor = new_executor()
            executor.prestart(first_workers([worker_spec(v) for v in variants], executor.workers))  # the likely first
        plan = make_plan(config, done=_stored_keys(store, variants), variants=variants, catalogs=load_catalogs(config))
        keep()
        for name, dropped in plan.excluded.items():  # config.exclude: listed, never silently dropped
            log(f"exclude: {len(dropped)} problem(s) of {name} not run: {', '.join(dropped)}")
        for line in changed_lines(store.configurations(), variants, pending_fits(plan.fits)):  # a method file edited, ...
            log(line)
        if shard is None:
            store.claim_shard(None)
        else:
            if secret_file is None:
                raise RunError(f"--shard {shard}: the shards of a run need one secret file (--secret-file)")
            plan, info = shard_plan(plan, shard)
            store.claim_shard(info, shared_secret(secret_file))
        summary.planned, summary.skipped, summary.pending = plan.planned, plan.skipped, plan.pending
        if not resume and plan.skipped:
            raise RunError(
                f"--no-resume: {plan.skipped} of the {plan.planned} fits are already stored in {store.path}; "
                "srbf never overwrites results: choose a new --results directory, or resume"
            )
        if not plan.fits:
            _seal_complete(store, config, whole)
            return summary
        summary.workers = executor.workers
        notes: list[str] = []

        def note(text: str) -> None:
            notes.append(text)
            if bar is not None and not bar.disable:
                bar.write(f"srbf: {text}", file=sys.stderr)
            else:
                log(text)

        executor.on_note = note
        summary.notes = notes
        pending = plan.pending_variants()
        bar = progress_bar(plan.pending, config.experiment, show)
        first, later = _workers_to_start(plan, pending, executor.workers)

        def starting(spec, workers: int = 0) -> None:  # progress only: shown with the bar
            if not bar.disable:
                bar.write(f"srbf: {starting_line(spec, workers)}", file=sys.stderr)

        for spec in dict.fromkeys(first):
            starting(spec, first.count(spec))
        executor.on_starting = starting
        probed: dict = {}  # each method interpreter is asked for its stack once, while the workers start
        stacks = {variant.label: variant_stack(variant, probed) for variant in pending}
        source = git_state()  # srbf's own git state, read once and while the workers start
        try:
            executor.start(first, later)
        except WorkerStartError as exc:
            raise _start_error(exc, "nothing was run") from None
        for variant in pending:
            summary.campaigns[variant.label] = store.start_campaign(
                config.experiment,
                _campaign_config(config, variant, {"workers": executor.workers, **({"shard": str(shard)} if shard else {})}),
                variant.config_hash,
                variant.method.config_provenance,
                method_stack=stacks[variant.label],
                git=source,
            )
        campaign_of = {(v.name, v.config_hash): summary.campaigns[v.label] for v in pending}
        order = functools.partial(fit_order, config=config, secret=store.secret())  # the method's seed: under the secret
        fits = plan.fits if separate_ladder else one_fit_ladders(plan.fits)  # a ladder's rungs from one fit
        results = executor.run(fits, order, idle=COMMIT_WINDOW_SECONDS)
        held = _HeldResults(store, campaign_of, summary)
        try:
            for batch in results:
                batch = with_rungs(batch)
                held.add(batch)
                bar.update(len(batch))
                bad = sum(held.arrived[s] for s in ABNORMAL)
                if bad:
                    bar.set_postfix_str(f"failed {bad}", refresh=False)
                if held.due():
                    held.commit()
            held.commit()
            if not summary.unfinished:
                _seal_complete(store, config, whole)
        except KeyboardInterrupt:
            summary.interrupted = True
            executor.cancel()
            held.commit()  # every finished fit is kept
        except WorkerStartError as exc:  # a method whose workers start with its first fit
            held.commit()
            kept = f"{summary.recorded} fit(s) of this run are stored; run again to resume once it starts"
            raise _start_error(exc, f"the run stopped before its first fit; {kept}") from None
        finally:
            results.close()  # stops the executor's threads if we leave early (Ctrl-C, a store error)
        return summary
    finally:
        if bar is not None:
            bar.close()
        if own_executor and executor is not None:
            executor.close()
        store.close()
        lock.release()
        tuning.close()
        summary.seconds = time.perf_counter() - started


def _claim_seed(config: RunConfig, store, shard: Shard | None, secret_file: str | Path | None) -> RunConfig:
    """``config`` with its run seed: a sealed run's from its secret (the shards' secret file, or the
    store's), recorded in the store (``srbf.runs.sealed``); a public seed as it is. A store holds one
    kind: a sealed run in a store of public fits, or the reverse, is refused (StoreError)."""
    if config.sealed:
        secret = shared_secret(secret_file) if shard is not None and secret_file is not None else store.secret()
        config = config.with_seed(sealed_seed(secret))
    store.claim_sealed(config.seed if config.sealed else None)
    return config


def _seal_complete(store, config: RunConfig, whole: bool) -> None:
    """A sealed run whose every fit is stored (all its variants, not a --sweep-filter's share) may be
    published: its exports carry the seed from now on."""
    if config.sealed and whole:
        store.mark_sealed_complete()


def _start_error(exc: WorkerStartError, what_happened: str) -> RunError:
    """The run's error for a method that cannot start: its first line, what came of the run, then
    the method's own output (its traceback) below."""
    first, _, rest = str(exc).partition("\n")
    return RunError(f"{first} ({what_happened})" + (f"\n{rest}" if rest else ""))


def starting_line(spec, workers: int = 0) -> str:
    """'starting gplearn (its environment, env:gplearn) in 2 workers...': the progress line of a
    method's start, saying which Python it starts in (the slow part: its imports and ``setup``)."""
    from srbf.methods.envs import is_env_spec

    if not spec.python or Path(spec.python) == Path(sys.executable):
        python = "srbf's Python"
    else:
        python = f"its environment, {spec.python}" if is_env_spec(spec.python) else spec.python
    where = f" in {workers} workers" if workers > 1 else ""
    return f"starting {spec.label} ({python}){where}..."


def _local_executor(workers: int | None, sandbox: isolation.Sandbox | None) -> Executor:
    return LocalExecutor(workers, sandbox=sandbox)


def variant_stack(variant: Variant, probed: dict) -> dict[str, str | None]:
    """What the variant's method runs with (``srbf.methods.stack``), recorded on its campaign."""
    from srbf.methods.stack import method_stack

    m = variant.method
    return method_stack(m.adapter.type, m.adapter.path or m.adapter.name, m.python, m.env, probed)


def run_lock(store_path: Path) -> RunLock:
    """The run lock of the store at ``store_path``, or RunError naming the run that holds it."""
    lock = RunLock(store_path)
    try:
        return lock.acquire()
    except RunLocked as exc:
        raise RunError(str(exc)) from None
    except OSError as exc:
        raise RunError(f"cannot lock the results store: {lock.path}: {exc.strerror or exc}") from None


def sandbox_for(config: RunConfig, store_path: Path, secret_file: str | Path | None = None) -> isolation.Sandbox:
    """What a sandboxed worker must not see: the results directory, the shards' secret file, the
    config, the catalogs."""
    from srbf.catalogs.loader import DATA_DIR

    hidden = [store_path.resolve().parent, DATA_DIR]
    if secret_file is not None:
        hidden.append(Path(secret_file).resolve())
    hidden += [Path(c) for c in config.catalogs if Path(c).is_absolute()]
    if Path(config.source).is_file():
        hidden.append(Path(config.source).resolve())
    return isolation.Sandbox(hidden=tuple(str(p) for p in hidden))


def first_workers(specs: Sequence, workers: int, fits: Counter | None = None) -> list:
    """The method each of ``workers`` slots begins with: the first methods in plan order, one per
    slot in turn (so the first results come from whichever of them starts fastest, and their
    starts do not queue behind each other), no method in more slots than it has ``fits`` (when
    counted); the k-th spec listed is slot k's."""
    left = Counter(fits) if fits is not None else Counter({spec: workers for spec in specs})
    chosen: list = []
    while len(chosen) < workers and any(left[spec] > 0 for spec in specs):
        for spec in specs:
            if left[spec] > 0 and len(chosen) < workers:
                chosen.append(spec)
                left[spec] -= 1
    return chosen


def _workers_to_start(plan: Plan, pending: Sequence[Variant], workers: int) -> tuple[list, list]:
    """The workers to start before any fit, one per slot (``first_workers``: every slot starts
    fitting at once), and the other methods, whose workers start when their first fit is due
    (starting them all first kept the first result waiting for the slowest)."""
    specs = [worker_spec(v) for v in pending]
    first = first_workers(specs, workers, Counter(fit.spec for fit in plan.fits))
    return first, [spec for spec in specs if spec not in first]


class _HeldResults:
    """Finished fits not yet committed. Fits that arrive within ``COMMIT_WINDOW_SECONDS`` of the
    first one held share one transaction: a commit syncs the store to disk, which costs more than
    a fast fit, so committing each fit alone would make the store, not the workers, set the pace.
    A kill or a power cut loses at most the fits of the last window (a rerun does them again);
    Ctrl-C loses none (the driver commits what it holds before stopping)."""

    def __init__(self, store, campaign_of: dict[tuple[str, str], int], summary: RunSummary):
        self.store = store
        self.campaign_of = campaign_of
        self.summary = summary
        self.arrived: Counter = Counter()  # by status, committed or not (for the progress bar)
        self._held: list[Completed] = []
        self._since = 0.0

    def add(self, batch: Sequence[Completed]) -> None:
        if batch and not self._held:
            self._since = time.monotonic()
        self._held.extend(batch)
        self.arrived.update(done.result.status for done in batch)

    def due(self) -> bool:
        return bool(self._held) and time.monotonic() - self._since >= COMMIT_WINDOW_SECONDS

    def commit(self) -> None:
        """Store every held fit in one transaction (all or none), then count them as recorded."""
        if not self._held:
            return
        fits = []
        for done in self._held:
            fit, result = done.fit, done.result
            if fit.spec.sees_truth:
                result.internals.setdefault("sees_truth", True)  # the record says the method saw the truth
            campaign = self.campaign_of[(fit.variant.name, fit.variant.config_hash)]
            fits.append(Fit(fit.key, result, campaign, done.data_hash, inputs_hash=done.inputs_hash))
        self.store.record_many(fits)
        self.summary.statuses.update(done.result.status for done in self._held)
        self.summary.not_ok.extend((d.fit.variant.label, d.result.status, d.result.error, fit_place(d.fit.key))
                                   for d in self._held if d.result.status in ABNORMAL)  # fmt: skip
        self._held = []
