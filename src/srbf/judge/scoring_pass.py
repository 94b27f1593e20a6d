"""The scoring pass: stored predictions in, the judge's metrics table out.

``score_store(results)`` scores every prediction of a results store that has no metrics of the
current ``JUDGE_VERSION`` yet. For each drawn problem it regenerates the points from the draw
(catalog name and version, problem id, seed, draw index, the condition's support size and noise,
the campaign's ``n_validation`` and ``ood``), checks them against each prediction's stored
``data_hash``, prepares one ``Judge`` (its ``positive`` variables from the entry's declared
ranges) and scores the problem's predictions with it. When only the
targets differ (the stored ``inputs_hash`` matches: the run's machine rounded its math functions
differently), the prediction is scored on the targets regenerated here and its metrics say so
(``TARGETS_DIFFER``). Predictions whose fit did not end ``ok`` get the judge's failure record
(success 0, rates 0, the rest None) with the status and error as ``failure_reason``, so that rates
count them; a placeholder gets one too (reason ``placeholder: ...``) and is left out of the
statistics by ``metrics_long_frame``.

Problems go to worker processes in chunks; metrics are committed chunk by chunk as they come back,
so an interrupted pass keeps what it scored and a rerun scores only what is missing. A prediction
that cannot be scored (its points cannot be regenerated, other inputs than the method saw, a
catalog whose version changed) gets no metrics row: the summary lists it with the reason, and a
rerun tries again.

``metrics_long_frame(results)`` (in ``long_frame``, re-exported here) joins predictions with their
metrics into the long table ``srbf.stats.analyze`` reads. docs/metrics.md ("Scoring a results
store") is the long form.
"""

from __future__ import annotations

import gc
import json
import math
import multiprocessing
import os
import signal
import sys
import time
from collections import defaultdict
from collections.abc import Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from srbf.core import SrbfError
from srbf.judge.long_frame import metrics_long_frame, parse_condition  # re-exported: the pass and its reader
from srbf.judge.scoring import JUDGE_VERSION, Judge
from srbf.judge.stack import differences, judge_stack, other_stack_ids

if TYPE_CHECKING:
    import pandas as pd

    from srbf.store import ResultsStore

__all__ = ["ScoreFailure", "ScoreSummary", "ScoringError", "metrics_long_frame", "score_store"]

HINT_KEYS = ("one_based", "by_index", "notation")  # internals["parse"]: what srbf.expr.parse accepts
SRBENCH_KEY = "srbench_symbolic_solution"
TARGETS_DIFFER = "regenerated_targets_differ"  # the metrics flag of a draw scored on this machine's targets
# srbf.runs.config.SamplingConfig's defaults (not imported: pydantic costs a third of a second), used
# for a campaign whose config does not say; a wrong guess shows as a hash mismatch, never silently.
DEFAULT_N_VALIDATION = 512
DEFAULT_OOD = False


class ScoringError(SrbfError):
    """A scoring pass that cannot start (no store there, a store opened read-only); one line."""


@dataclass(frozen=True)
class ScoreFailure:
    """A prediction the pass could not score (no metrics row was written), and why."""

    prediction_id: int
    reason: str


@dataclass
class ScoreSummary:
    """What a scoring pass did. ``scored`` rows were written by this pass (``as_failures`` of them
    with success 0, ``targets_differ`` of them on targets that differ from the run's);
    ``skipped`` predictions already had metrics of ``judge_version``; ``failed`` could not be
    scored, each with its reason."""

    store: Path
    judge_version: str = JUDGE_VERSION
    scored: int = 0
    as_failures: int = 0
    targets_differ: int = 0
    skipped: int = 0
    failed: list[ScoreFailure] = field(default_factory=list)
    workers: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    stack: dict[str, str] = field(default_factory=judge_stack)  # the libraries this pass scores with
    other_stack: int = 0  # predictions kept with metrics of this judge version from another stack
    other_stack_change: str = ""

    @property
    def ok(self) -> bool:
        """Every prediction has metrics of this judge version now."""
        return not self.failed and not self.interrupted

    def reasons(self) -> dict[str, list[int]]:
        """The reasons predictions could not be scored, each with its prediction ids."""
        grouped: dict[str, list[int]] = defaultdict(list)
        for failure in self.failed:
            grouped[failure.reason].append(failure.prediction_id)
        return dict(grouped)

    def text(self) -> str:
        """A few lines for the terminal."""
        rate = f", {self.scored / self.seconds:.0f}/s" if self.scored and self.seconds > 0 else ""
        lines = [
            f"judge {self.judge_version}: {self.scored} prediction(s) scored in {self.seconds:.1f} s{rate} "
            f"({self.as_failures} as failures); {self.skipped} already scored, skipped"
        ]
        if self.targets_differ:
            lines.append(
                f"warning: {self.targets_differ} prediction(s) scored on targets regenerated here, which differ from "
                "the run's although the inputs are the same (the run's machine rounded its math functions "
                f"differently): their metrics carry {TARGETS_DIFFER} = true"
            )
        if self.other_stack:
            lines.append(
                f"warning: {self.other_stack} prediction(s) keep metrics of judge {self.judge_version} computed with "
                f"another stack ({self.other_stack_change}), skipped; `srbf score --force` re-scores them with this one"
            )
        if self.failed:
            lines.append(f"{len(self.failed)} prediction(s) could not be scored (no metrics written):")
            for reason, ids in self.reasons().items():
                shown = ", ".join(map(str, ids[:8])) + (f", ... ({len(ids)} in all)" if len(ids) > 8 else "")
                lines.append(f"  {reason} [prediction {shown}]")
        if self.interrupted:
            lines.append("interrupted: every metric written so far is kept; run `srbf score` again to finish")
        lines.append(f"results: {self.store}")
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# The work: one item per drawn problem, shipped to the worker processes in chunks.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Prediction:
    id: int
    status: str
    expression: str | None
    error: str | None
    data_hash: str
    inputs_hash: str  # "" when the store has none (recorded by an older srbf)
    hints: Any  # internals["parse"], or None


@dataclass(frozen=True)
class _Problem:
    """One drawn problem (a catalog entry, seed, draw and condition) and its predictions to score."""

    ref: str  # how to load the catalog: a shipped name or a file path
    catalog: str
    catalog_version: int
    problem_id: str
    seed: int
    draw: int
    condition: str
    n_support: int
    noise: float
    n_validation: int
    ood: bool
    predictions: tuple[_Prediction, ...]

    @property
    def where(self) -> str:
        return (
            f"{self.catalog}/{self.problem_id} (catalog version {self.catalog_version}, seed {self.seed}, "
            f"draw {self.draw}, {self.condition})"
        )


Outcome = tuple[int, "dict[str, Any] | None", "str | None"]  # prediction id, metrics or None, reason


# -- in the worker processes (and in the parent with one worker) -------------------------------

_catalogs: dict[str, Any] = {}  # ref -> Catalog, per process (the parent's are inherited on fork)
_symbolic_pool = None  # this process's SymPy worker, with --srbench


def _load_catalog(ref: str):
    catalog = _catalogs.get(ref)
    if catalog is None:
        from srbf.catalogs.loader import load_catalog

        catalog = _catalogs[ref] = load_catalog(ref)
    return catalog


def _pool(srbench: bool):
    """One SymPy worker per scoring process, so ``--workers N`` uses N cores for the check too."""
    global _symbolic_pool
    if not srbench:
        return None
    if _symbolic_pool is None:
        from multiprocessing import util

        from srbf.judge.srbench import SymbolicPool

        _symbolic_pool = SymbolicPool(workers=1)
        util.Finalize(None, _symbolic_pool.close, exitpriority=10)  # runs when a pool process exits
    return _symbolic_pool


_templates: dict[bool, dict[str, Any]] = {}


def _failure(reason: str, srbench: bool) -> dict[str, Any]:
    """The judge's record of a failed prediction (its keys and failure values), with ``reason``."""
    template = _templates.get(srbench)
    if template is None:
        data = {"X_support": [[0.0]], "y_support": [0.0], "X_validation": [[1.0]], "y_validation": [1.0]}
        template = _templates[srbench] = Judge("x0", data, srbench=srbench).score(None)
    record = dict(template)
    record["failure_reason"] = reason
    return record


def _stored(metrics: dict[str, Any]) -> dict[str, Any]:
    """A judge record as stored: the judge version is the row's own column, not a metric."""
    metrics = dict(metrics)
    metrics.pop("judge_version", None)
    return metrics


def _read_prediction(prediction: _Prediction, variables: tuple[str, ...]) -> tuple[Any, str | None]:
    """What to hand the judge: the text, or the tree parsed with the method's parse hints; or the
    reason it does not parse (hints given but wrong, or text unreadable with them)."""
    hints, text = prediction.hints, prediction.expression
    if hints in (None, {}) or text is None:
        return text, None
    from srbf.expr import ParseError, parse

    if not isinstance(hints, Mapping) or set(hints) - set(HINT_KEYS):
        return None, f"does not parse: parse hints must be a mapping with keys among {', '.join(HINT_KEYS)}, got {hints!r}"
    try:
        return parse(text, variables, **{k: hints[k] for k in HINT_KEYS if k in hints}), None
    except (ParseError, ValueError, TypeError, RecursionError) as error:
        return None, f"does not parse: {error}"


def _refusal(p: _Prediction, problem: Any) -> str | None:
    """Why ``p`` cannot be scored on the regenerated ``problem``, or None when it can. Inputs are
    drawn bitwise identically on every machine, targets go through the platform's math library:
    the same inputs under another data hash are the points the method saw, targets rounded
    differently."""
    if p.data_hash == problem.data_hash or p.inputs_hash == problem.inputs_hash:
        return None
    if p.inputs_hash:
        return (
            f"the stored inputs hash {p.inputs_hash[:16]} does not match the regenerated inputs' "
            f"{problem.inputs_hash[:16]} (nor does the data hash): the points the method saw are not the points "
            "drawn here (a changed catalog entry, sampler or sampling settings)"
        )
    return (
        f"the stored data hash {p.data_hash[:16] or '(empty)'} does not match the regenerated points' "
        f"{problem.data_hash[:16]}: the points the method saw cannot be reproduced here (a changed catalog entry "
        "or sampler, or targets rounded differently by another machine's math library; an older srbf stored no "
        "inputs hash to tell which: score it on the kind of machine that ran it)"
    )


def _score_problem(work: _Problem, srbench: bool) -> list[Outcome]:
    from srbf.catalogs.sampling import ProblemSampler
    from srbf.judge.data import JudgeInputError, positive_variables

    out: list[Outcome] = []
    real = [p for p in work.predictions if p.status != "placeholder"]
    for p in work.predictions:
        if p.status == "placeholder":
            out.append((p.id, _stored(_failure(f"placeholder: {p.error or 'the draw could not be made'}", srbench)), None))
    if not real:
        return out

    def unscorable(reason: str) -> list[Outcome]:
        return out + [(p.id, None, f"{work.where}: {reason}") for p in real]

    try:
        catalog = _load_catalog(work.ref)
        entry = catalog.entry(work.problem_id)
        if catalog.version != work.catalog_version:
            return unscorable(f"catalog {catalog.name!r} is version {catalog.version} here")
        problem = ProblemSampler(entry, catalog=catalog.name, catalog_version=catalog.version).sample(
            seed=work.seed, draw=work.draw, n_support=work.n_support, n_validation=work.n_validation,
            noise=work.noise, ood=work.ood,
        )  # fmt: skip
    except Exception as error:  # noqa: BLE001 - reported per prediction, the pass goes on
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        return unscorable(f"cannot regenerate the points: {message}")
    if problem.is_placeholder:
        return unscorable(f"the draw cannot be regenerated here ({problem.placeholder_reason})")

    def scored(p: _Prediction, record: dict[str, Any]) -> Outcome:
        metrics = _stored(record)
        if p.data_hash != problem.data_hash:  # let through by its inputs: the targets differ
            metrics[TARGETS_DIFFER] = True
        return p.id, metrics, None

    to_judge: list[tuple[_Prediction, Any]] = []
    for p in real:
        refused = _refusal(p, problem)
        if refused is not None:
            out.append((p.id, None, f"{work.where}: {refused}"))
        elif p.status != "ok":
            reason = f"{p.status}: {p.error}" if p.error else p.status
            out.append(scored(p, _failure(reason, srbench)))
        else:
            given, bad = _read_prediction(p, entry.variable_names)
            if bad is not None:
                out.append(scored(p, _failure(bad, srbench)))
            else:
                to_judge.append((p, given))
    if not to_judge:
        return out
    try:
        judge = Judge(entry.formula, problem, variables=entry.variable_names, srbench=srbench, pool=_pool(srbench),
                      target=entry.target, positive=positive_variables(entry.variables))  # fmt: skip
    except JudgeInputError as error:
        return out + [(p.id, None, f"{work.where}: {error}") for p, _ in to_judge]
    try:
        records = judge.score_many([given for _, given in to_judge])
    except Exception:  # noqa: BLE001 - a judge bug on one prediction must not lose the others
        records = []
        for p, given in to_judge:
            try:
                records.append(judge.score(given))
            except Exception as error:  # noqa: BLE001
                records.append(error)
    for (p, _), record in zip(to_judge, records):
        if isinstance(record, Exception):
            out.append((p.id, None, f"{work.where}: the judge failed: {type(record).__name__}: {record}"))
        else:
            out.append(scored(p, record))
    return out


def _score_chunk(chunk: list[_Problem], srbench: bool) -> list[Outcome]:
    out: list[Outcome] = []
    for work in chunk:
        out.extend(_score_problem(work, srbench))
    return out


def _init_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it stops the pass cleanly


# --------------------------------------------------------------------------------------------
# The parent: select, plan, dispatch, write.
# --------------------------------------------------------------------------------------------


def _open(results: Any) -> tuple[ResultsStore, bool]:
    from srbf.store import ResultsStore, resolve_path

    if isinstance(results, ResultsStore):
        if results.readonly:
            raise ScoringError(f"results store {results.path}: opened read-only; the scoring pass writes metrics")
        return results, False
    path = resolve_path(results)
    if not path.is_file():
        raise ScoringError(f"no results store at {path} (run something first, or pass --results DIR)")
    return ResultsStore(results), True


def _campaign_settings(store: ResultsStore) -> dict[int, tuple[tuple[str, ...], int, bool]]:
    """Per campaign: the catalog references, ``n_validation`` and ``ood`` its config ran with."""
    settings = {}
    for row in store.campaigns_frame().itertuples(index=False):
        run = row.config.get("run") if isinstance(row.config, Mapping) else None
        run = run if isinstance(run, Mapping) else {}
        sampling = run.get("sampling") if isinstance(run.get("sampling"), Mapping) else {}
        refs = tuple(str(r) for r in run.get("catalogs") or ())
        settings[int(row.id)] = (
            refs, int(sampling.get("n_validation", DEFAULT_N_VALIDATION)), bool(sampling.get("ood", DEFAULT_OOD))
        )
    return settings


def _resolve_catalog(name: str, version: int, refs: tuple[str, ...]) -> str:
    """The reference to load catalog ``name`` version ``version`` from: the campaign's own entry
    (a shipped name or a file), else the shipped catalog of that name. A ``ValueError`` naming the
    catalog when there is none, or when its version is not the store's."""
    from srbf.catalogs.loader import list_catalogs

    shipped = set(list_catalogs())
    candidates = [name] if name in refs else []
    candidates += [r for r in refs if r not in shipped]  # catalog files: their name is inside
    if name in shipped and name not in candidates:
        candidates.append(name)
    problems, versions = [], []
    for ref in candidates:
        try:
            catalog = _load_catalog(ref)
        except Exception as error:  # noqa: BLE001 - a missing or broken file: try the next, then say why
            problems.append(f"{ref}: {error}")
            continue
        if catalog.name == name and catalog.version == version:
            return ref
        if catalog.name == name:
            versions.append(f"{'the shipped' if ref == name else 'the file ' + ref} catalog {name!r} is version "
                            f"{catalog.version}")  # fmt: skip
    if versions:
        raise ValueError(
            f"catalog {name!r}: the stored predictions were drawn from version {version}, but "
            f"{'; '.join(versions)}: its problems are not the same problems; score them with the srbf "
            f"release that shipped {name!r} version {version}"
        )
    detail = f" ({'; '.join(problems)})" if problems else ""
    raise ValueError(
        f"catalog {name!r} version {version}: not shipped with this srbf and not among the campaign's catalog files{detail}"
    )


def _plan(store: ResultsStore, todo: pd.DataFrame) -> tuple[list[_Problem], list[ScoreFailure]]:
    """The unscored predictions grouped by drawn problem, in problem order; and those that cannot
    be scored at all (catalog or condition problems), each with its reason."""
    settings = _campaign_settings(store)
    groups: dict[tuple, list[_Prediction]] = defaultdict(list)
    failures: list[ScoreFailure] = []
    refs_ok: dict[tuple, str | ValueError] = {}
    for row in todo.itertuples(index=False):
        refs, n_validation, ood = settings.get(int(row.campaign_id), ((), DEFAULT_N_VALIDATION, DEFAULT_OOD))
        catalog, version = str(row.catalog), int(row.catalog_version)
        ref_key = (catalog, version, refs)
        if ref_key not in refs_ok:
            try:
                refs_ok[ref_key] = _resolve_catalog(catalog, version, refs)
            except ValueError as error:
                refs_ok[ref_key] = error
        ref = refs_ok[ref_key]
        if isinstance(ref, ValueError):
            failures.append(ScoreFailure(int(row.id), str(ref)))
            continue
        try:
            n_support, noise = parse_condition(row.condition)
        except ValueError as error:
            failures.append(ScoreFailure(int(row.id), f"{catalog}/{row.problem_id}: {error}"))
            continue
        try:
            internals = json.loads(row.internals) if isinstance(row.internals, str) else {}
        except ValueError as error:  # a damaged store: this prediction's parse hints are unknown
            failures.append(ScoreFailure(int(row.id), f"{catalog}/{row.problem_id}: its stored internals are not "
                                         f"valid JSON ({error}), so its parse hints cannot be read"))  # fmt: skip
            continue
        internals = internals if isinstance(internals, Mapping) else {}
        inputs_hash = row.inputs_hash if isinstance(row.inputs_hash, str) else ""  # NULL reads as None or NaN
        prediction = _Prediction(
            int(row.id), str(row.status), row.expression, row.error, str(row.data_hash or ""), inputs_hash,
            internals.get("parse"),
        )
        key = (ref, catalog, version, str(row.problem_id), int(row.seed), int(row.draw), str(row.condition),
               n_support, noise, n_validation, ood)  # fmt: skip
        groups[key].append(prediction)
    works = [_Problem(*key, predictions=tuple(preds)) for key, preds in groups.items()]
    works.sort(key=lambda w: (w.ref, w.problem_id, w.seed, w.draw, w.condition))  # draws of a problem together
    return works, failures


def _chunks(works: list[_Problem], workers: int) -> list[list[_Problem]]:
    """Whole problems in chunks of about total / (8 x workers) predictions (8 to 128)."""
    total = sum(len(w.predictions) for w in works)
    size = max(8, min(128, math.ceil(total / (8 * max(1, workers)))))
    chunks, current, count = [], [], 0
    for work in works:
        current.append(work)
        count += len(work.predictions)
        if count >= size:
            chunks.append(current)
            current, count = [], 0
    if current:
        chunks.append(current)
    return chunks


def _context():
    """Fork on Linux (workers start in milliseconds and inherit the loaded catalogs); spawn elsewhere."""
    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


class _Dispatch:
    """Chunks scored in worker processes (or here, with one worker); outcomes as chunks complete.

    The processes are forked when it is made, before the caller starts any thread (a progress bar)."""

    def __init__(self, chunks: list[list[_Problem]], workers: int, srbench: bool):
        self.chunks, self.srbench = chunks, srbench
        self.executor = None
        self.workers = 1
        self.pending: dict = {}
        if workers > 1 and len(chunks) > 1:
            import srbf.catalogs.sampling  # noqa: F401 - imported once here, inherited by forked workers

            _failure("", srbench)  # the failure template too
            self.workers = min(workers, len(chunks))
            self.executor = ProcessPoolExecutor(self.workers, mp_context=_context(), initializer=_init_worker)
            gc.freeze()  # the workers' garbage collector leaves the inherited objects (and their pages) alone
            try:
                self.pending = {self.executor.submit(_score_chunk, chunk, srbench): chunk for chunk in chunks}
            finally:
                gc.unfreeze()

    def __iter__(self) -> Iterator[list[Outcome]]:
        if self.executor is None:
            for chunk in self.chunks:
                yield _score_chunk(chunk, self.srbench)
            return
        while self.pending:
            done, _ = wait(self.pending, return_when=FIRST_COMPLETED)
            for future in done:
                chunk = self.pending.pop(future)
                try:
                    outcomes = future.result()
                except BrokenProcessPool as error:  # a worker died: say so for what it held
                    reason = f"a scoring process died ({error}); run `srbf score` again"
                    outcomes = [(p.id, None, f"{w.where}: {reason}") for w in chunk for p in w.predictions]
                yield outcomes

    def close(self) -> None:
        """Stop the workers (chunks not started are dropped) and this process's SymPy worker."""
        global _symbolic_pool
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)
            self.executor = None
        if _symbolic_pool is not None:
            _symbolic_pool.close()
            _symbolic_pool = None


def _default_workers() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _progress(total: int, show: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc="scoring", unit="prediction", file=sys.stderr, disable=not show,
                dynamic_ncols=True, smoothing=0.1)  # fmt: skip


def _other_stacks(store: ResultsStore, summary: ScoreSummary, replace: set[int], force: bool) -> set[int]:
    """``replace`` plus the rows of this judge version scored with another stack when ``force``;
    otherwise ``replace`` without them, and the summary says how many were kept and what differs."""
    stored = store.metric_stacks_frame(JUDGE_VERSION)
    other = other_stack_ids(stored, summary.stack)
    if force:
        return replace | other
    summary.other_stack, summary.other_stack_change = len(other), differences(stored, other, summary.stack)
    return replace - other


def score_store(
    results: Any = None,
    *,
    workers: int | None = None,
    srbench: bool = False,
    progress: bool = True,
    force: bool = False,
) -> ScoreSummary:
    """Score every stored prediction that has no metrics of ``JUDGE_VERSION``; return the summary.

    ``results``: a results directory or store file (``None``: ``./srbf-results``), or a writable
    ``ResultsStore``. ``workers``: processes (default: one per core; 1 scores in this process).
    ``srbench=True`` adds SRBench's SymPy symbolic solution, also to predictions scored earlier
    without it (their rows are replaced). ``progress`` shows a bar on stderr when it is a terminal.
    Rows of this judge version computed with another judge stack (``srbf.judge.stack``) are kept
    and counted in the summary; ``force=True`` re-scores them with this one.
    Raises ScoringError when there is no store to score, StoreError when it cannot be written.
    """
    started = time.perf_counter()
    n_workers = _default_workers() if workers is None else int(workers)
    if n_workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    store, own = _open(results)
    summary = ScoreSummary(store.path.resolve())
    bar = dispatch = None
    try:
        scored = store.metrics_frame(JUDGE_VERSION, expand=False)
        replace: set[int] = set()
        if srbench and len(scored):  # rows scored without the SymPy check: score them again, in place
            replace = {int(i) for i, m in zip(scored["prediction_id"], scored["metrics"]) if SRBENCH_KEY not in m}
        replace = _other_stacks(store, summary, replace, force)
        done = {int(i) for i in scored["prediction_id"]} - replace
        predictions = store.predictions_frame(decode_json=False)  # internals decoded row by row, in _plan
        todo = predictions[~predictions["id"].isin(list(done))]
        summary.skipped = len(scored) - len(replace)
        if todo.empty:
            return summary
        works, failures = _plan(store, todo)
        summary.failed.extend(failures)
        chunks = _chunks(works, n_workers)
        dispatch = _Dispatch(chunks, n_workers, srbench)
        summary.workers = dispatch.workers
        bar = _progress(sum(len(w.predictions) for w in works), progress and sys.stderr.isatty())
        for batch in dispatch:
            rows = [(pid, metrics) for pid, metrics, _ in batch if metrics is not None]
            summary.scored += store.record_metrics_many(rows, JUDGE_VERSION, replace=replace, judge_stack=summary.stack)
            summary.as_failures += sum(1 for _, metrics in rows if not metrics.get("success"))
            summary.targets_differ += sum(1 for _, metrics in rows if metrics.get(TARGETS_DIFFER))
            summary.failed.extend(ScoreFailure(pid, reason) for pid, metrics, reason in batch if metrics is None)
            bar.update(len(batch))
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        if bar is not None:
            bar.close()
        if dispatch is not None:
            dispatch.close()
        if own:
            store.close()
        summary.seconds = time.perf_counter() - started
    return summary
