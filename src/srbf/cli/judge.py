"""The judge commands of the ``srbf`` CLI: ``judge`` (one formula) and ``score`` (a whole store).

``srbf score`` runs the scoring pass (``srbf.judge.scoring_pass.score_store``) over a results
store and prints its summary. Exit status 0 when every prediction has metrics of the current
judge version, 1 when some could not be scored (the summary says why), 2 for a missing or
unwritable store, 130 when interrupted (what was scored is kept; run it again to finish).
``srbf.judge`` is imported inside the commands: building the parser must not load SymPy.
"""

from __future__ import annotations

import argparse
import json
import signal

from srbf.cli.args import (
    UserError,
    add_executor_flags,
    cluster_choice,
    prestart_workers,
    terminate_as_interrupt,
    worker_count,
)
from srbf.cli.store_args import add_store_flags, results_root
from srbf.core import collector_tuned

__all__ = ["add_judge_commands"]


def _judge(args: argparse.Namespace) -> int:
    from srbf.judge import JudgeInputError, format_metrics, judge_from_files, jsonable

    try:
        metrics = judge_from_files(args.truth, args.prediction, args.data, variables=args.variables, srbench=args.srbench,
                                   positive=args.positive, target=args.target)  # fmt: skip
    except JudgeInputError as error:
        raise UserError(str(error)) from None
    print(json.dumps(jsonable(metrics), indent=2) if args.json else format_metrics(metrics))
    return 0


def _score(args: argparse.Namespace) -> int:
    from srbf.judge.worker_modules import DASK_MODULES

    cluster = cluster_choice(args)
    prestart_workers(cluster, DASK_MODULES)  # before the scoring code is imported here
    from srbf.judge.scoring_pass import score_store

    previous = signal.signal(signal.SIGTERM, terminate_as_interrupt)  # `kill PID` stops like Ctrl-C
    # tuned for the command's life: the scoring processes it forks start with its imports frozen,
    # and what the pass leaves is kept, so the collections at exit skip it (1.5 s, --workers 1)
    with collector_tuned(for_life=True) as keep:
        try:
            summary = score_store(results_root(args), workers=args.workers, srbench=args.srbench,
                                  progress=not (args.quiet or args.json), force=args.force, cluster=cluster)  # fmt: skip
        finally:
            signal.signal(signal.SIGTERM, previous)
        keep()
    print(_summary_json(summary) if args.json else summary.text())
    if summary.interrupted:
        return 130
    return 0 if summary.ok else 1


def _summary_json(summary) -> str:
    """The scoring summary's fields, its verdict and its failures grouped by reason, as JSON."""
    from dataclasses import asdict

    from srbf.core import to_plain

    fields = {**asdict(summary), "ok": summary.ok, "reasons": summary.reasons()}
    return json.dumps(to_plain(fields, non_finite="null"), indent=2)


def add_judge_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``srbf judge`` and ``srbf score`` on the top-level parser."""
    p = commands.add_parser("judge", help="score one predicted formula against the truth on a problem's points")
    p.add_argument("--truth", required=True, help="the ground-truth formula")
    p.add_argument("--prediction", required=True, help="the predicted formula (any spelling the parser reads)")
    p.add_argument("--data", required=True, help=".npz written by `srbf sample` (X_support, y_support, X_validation, y_validation)")
    p.add_argument("--variables", help="comma-separated column names (default: from the file, else x0, x1, ...)")
    p.add_argument("--positive", metavar="NAMES",
                   help="comma-separated variables never negative on the domain ('' for none; default: from the "
                        "file's catalog entry when it names a shipped one, else none)")  # fmt: skip
    p.add_argument("--target", metavar="NAME",
                   help="the output's name: a prediction 'NAME = formula' is scored as the formula ('y = ...' always "
                        "is; default: the file's catalog entry's target when it names a shipped one)")  # fmt: skip
    p.add_argument("--srbench", action="store_true", help="also run SRBench's SymPy symbolic-solution check (slow)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=_judge)

    p = commands.add_parser(
        "score", help="derive the judge's metrics for every stored prediction that has none yet (resumable)"
    )
    add_store_flags(p, configs=False)  # every configuration is scored
    p.add_argument("--workers", type=worker_count, metavar="N",
                   help="scoring processes (default: one per core; 1 scores in this process)")  # fmt: skip
    p.add_argument("--srbench", action="store_true",
                   help="also run SRBench's SymPy symbolic-solution check (slow); adds it to rows scored without it")  # fmt: skip
    p.add_argument("--force", action="store_true",
                   help="re-score predictions whose metrics of this judge version were computed with another "
                        "judge stack (Python, NumPy, SciPy, SymPy, mpmath); by default they are kept, with a warning")  # fmt: skip
    add_executor_flags(p, "predictions are scored")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="the summary as JSON (no progress bar)")
    p.set_defaults(run=_score)
