"""Scoring one drawn problem's stored predictions: the work a scoring process does.

A ``DrawnProblem`` is one catalog entry, seed, draw and condition with its stored predictions
(``StoredPrediction``). ``score_problem`` regenerates its points through the runner's
``ProblemSource`` (the one place points are drawn), checks them against each prediction's stored
hashes, and scores the predictions with one ``Judge``; a fit that did not end ``ok`` (also one
the driver recorded without running it, ``never_ran``), a placeholder, or a text its parse hints
cannot read gets ``Judge.failure_record``. ``run_axes.add_axes`` then adds SymbolicArena's five
per-run axes to every record but a placeholder's. Each outcome is
(prediction id, metrics or None, reason it could not be scored or None). Runs in the worker
processes of the pass (and in the parent with one worker): the loaded catalogs, samplers and the
SymPy worker are kept per process.
"""

from __future__ import annotations

import signal
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from srbf.catalogs.model import CatalogEntry
from srbf.core import collector_tuned
from srbf.judge.score_summary import TARGETS_DIFFER
from srbf.judge.scoring import Judge
from srbf.runs.problems import ProblemSource

__all__ = ["DrawnProblem", "Outcome", "StoredPrediction", "clear_cache", "close_pool", "init_worker",
           "load_catalog", "never_ran", "refusal", "score_chunk", "unscored"]

HINT_KEYS = ("one_based", "by_index", "notation")  # internals["parse"]: what srbf.expr.parse accepts


@dataclass(frozen=True)
class StoredPrediction:
    """What the pass needs of one stored prediction: its fit's outcome, the hashes of the points it
    was fitted on, and the parse hints its method gave."""

    id: int
    status: str
    expression: str | None
    error: str | None
    data_hash: str
    inputs_hash: str  # "" when the store has none (recorded by an older srbf)
    hints: Any  # internals["parse"], or None
    steps: tuple[tuple[float | None, str], ...] = ()  # reported incumbents (seconds, expression): EFF
    checkpoints: tuple[float, ...] = ()  # its fit's checkpoint times in seconds; () when none is known


@dataclass(frozen=True)
class DrawnProblem:
    """One drawn problem (a catalog entry, seed, draw and condition) and its predictions to score."""

    ref: str  # how the catalog was loaded: a shipped name or a file path
    entry: CatalogEntry  # the problem's catalog entry: a scoring process loads no catalog
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
    predictions: tuple[StoredPrediction, ...]

    @property
    def where(self) -> str:
        return (
            f"{self.catalog}/{self.problem_id} (catalog version {self.catalog_version}, seed {self.seed}, "
            f"draw {self.draw}, {self.condition})"
        )


Outcome = tuple[int, "dict[str, Any] | None", "str | None"]  # prediction id, metrics or None, reason


# -- in the worker processes (and in the parent with one worker) -------------------------------

_catalogs: dict[str, Any] = {}  # ref -> Catalog, in the pass's parent (scoring processes get entries)
_source = ProblemSource(cache_size=1)  # each drawn problem is scored once: keep its samplers, not its points
_symbolic_pool = None  # this process's SymPy worker, with --srbench


def load_catalog(ref: str):
    """The catalog ``ref`` names (a shipped name or a file), loaded once per process."""
    catalog = _catalogs.get(ref)
    if catalog is None:
        from srbf.catalogs.loader import load_catalog as load

        catalog = _catalogs[ref] = load(ref)
    return catalog


def clear_cache() -> None:
    """Forget this process's loaded catalogs and samplers (benchmarks time cold passes)."""
    global _source
    _catalogs.clear()
    _source = ProblemSource(cache_size=1)


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


def close_pool() -> None:
    """Stop this process's SymPy worker, if it started one."""
    global _symbolic_pool
    if _symbolic_pool is not None:
        _symbolic_pool.close()
        _symbolic_pool = None


def _stored(metrics: dict[str, Any]) -> dict[str, Any]:
    """A judge record as stored: the judge version is the row's own column, not a metric, and the
    positive variables are the catalog entry's (the store keys every row by it)."""
    metrics = dict(metrics)
    metrics.pop("judge_version", None)
    metrics.pop("positive_variables", None)
    return metrics


def _read_prediction(prediction: StoredPrediction, variables: tuple[str, ...]) -> tuple[Any, str | None]:
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


def never_ran(p: StoredPrediction) -> bool:
    """A fit the driver recorded without running it (its method's workers could not start or were
    stopped): it did not end ``ok`` and stored no hash, since no points were drawn for it. The
    scoring pass and the arena both count it as a failed fit of its problem."""
    return p.status not in ("ok", "placeholder") and not p.data_hash and not p.inputs_hash


def refusal(p: StoredPrediction, problem: Any) -> str | None:
    """Why ``p`` cannot be scored on the regenerated ``problem``, or None when it can. Inputs are
    drawn bitwise identically on every machine, targets go through the platform's math library:
    the same inputs under another data hash are the points the method saw, targets rounded
    differently. A fit that never ran is scored as the failure it is (``never_ran``)."""
    if p.data_hash == problem.data_hash or p.inputs_hash == problem.inputs_hash or never_ran(p):
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


def _score_problem(work: DrawnProblem, srbench: bool) -> list[Outcome]:
    """The outcome of each prediction of ``work``: placeholders and failed fits as failure records,
    the rest scored on the regenerated points when their hashes allow it."""
    from srbf.catalogs.admission import parse_entry  # the tree the sampler parsed: not parsed twice
    from srbf.judge.data import JudgeInputError, positive_variables
    from srbf.judge.run_axes import add_axes  # the five arena axes, added to every record below
    from srbf.judge.truth_facts import entry_key, shipped_truth  # the truth parsed and described once, when shipped

    out: list[Outcome] = []
    real = [p for p in work.predictions if p.status != "placeholder"]
    for p in work.predictions:
        if p.status == "placeholder":
            reason = f"placeholder: {p.error or 'the draw could not be made'}"
            out.append((p.id, _stored(Judge.failure_record(reason, srbench=srbench)), None))
    if not real:
        return out

    def unscorable(reason: str) -> list[Outcome]:
        return out + [(p.id, None, f"{work.where}: {reason}") for p in real]

    entry, names = work.entry, work.entry.variable_names
    positive = positive_variables(entry.variables)
    truth, facts = shipped_truth(work.catalog, entry_key(entry.formula, names, positive)) or (None, None)
    try:
        problem = _source.draw(
            entry, catalog=work.catalog, catalog_version=work.catalog_version, seed=work.seed, draw=work.draw,
            n_support=work.n_support, noise=work.noise, n_validation=work.n_validation, ood=work.ood, tree=truth,
        )  # fmt: skip
    except Exception as error:  # noqa: BLE001 - reported per prediction, the pass goes on
        return unscorable(f"cannot regenerate the points: {error}")
    if problem.is_placeholder:
        return unscorable(f"the draw cannot be regenerated here ({problem.placeholder_reason})")

    def scored(p: StoredPrediction, record: dict[str, Any]) -> Outcome:
        metrics = _stored(record)
        if p.data_hash != problem.data_hash:  # let through by its inputs: the targets differ
            metrics[TARGETS_DIFFER] = True
        return p.id, metrics, None

    to_judge: list[tuple[StoredPrediction, Any]] = []
    for p in real:
        refused = refusal(p, problem)
        if refused is not None:
            out.append((p.id, None, f"{work.where}: {refused}"))
        elif p.status != "ok":
            reason = f"{p.status}: {p.error}" if p.error else p.status
            out.append(scored(p, Judge.failure_record(reason, srbench=srbench)))
        else:
            given, bad = _read_prediction(p, names)
            if bad is not None:
                out.append(scored(p, Judge.failure_record(bad, srbench=srbench)))
            else:
                to_judge.append((p, given))
    if not to_judge:
        return add_axes(work, problem, None, out)
    if truth is None:
        truth = parse_entry(entry)
    try:
        judge = Judge(truth, problem, variables=names, srbench=srbench, pool=_pool(srbench),
                      target=entry.target, positive=positive, truth_facts=facts)  # fmt: skip
    except JudgeInputError as error:
        return add_axes(work, problem, None, out) + [(p.id, None, f"{work.where}: {error}") for p, _ in to_judge]
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
    return add_axes(work, problem, judge, out)


def score_chunk(chunk: list[DrawnProblem], srbench: bool, freeze: bool = False) -> list[Outcome]:
    """The outcomes of every prediction of the problems in ``chunk``, in order. ``freeze``: in a
    process tuned for its life (``srbf.core.collector_tuned``: a local scoring process, the
    command's own Dask worker), keep what the chunk left alive."""
    if not freeze:
        return [outcome for work in chunk for outcome in _score_problem(work, srbench)]
    with collector_tuned() as keep:
        out = [outcome for work in chunk for outcome in _score_problem(work, srbench)]
        keep()
    return out


def unscored(chunk: list[DrawnProblem], what: str) -> list[Outcome]:
    """The outcomes of a chunk whose process died: unscored, with the reason; a rerun tries again."""
    reason = f"{what}; run `srbf score` again"
    return [(p.id, None, f"{w.where}: {reason}") for w in chunk for p in w.predictions]


def init_worker() -> None:
    """A scoring process's set-up: Ctrl-C is the parent's (it stops the pass cleanly), SIGTERM
    ends it (a forked process does not keep the command line's handler, which raises
    KeyboardInterrupt), and its collector is tuned for its life (``srbf.core.collector_tuned``):
    what it inherited or imported by now is frozen, never traversed by its collections."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with collector_tuned(for_life=True):  # it stays tuned after the block
        pass


