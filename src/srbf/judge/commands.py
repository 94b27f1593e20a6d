"""The scoring commands of the ``srbf`` CLI (score).

``srbf score`` runs the scoring pass (``srbf.judge.scoring_pass.score_store``) over a results
store and prints its summary. Exit status 0 when every prediction has metrics of the current
judge version, 1 when some could not be scored (the summary says why), 2 for a missing or
unwritable store, 130 when interrupted (what was scored is kept; run it again to finish).
"""

from __future__ import annotations

import argparse
import signal
from srbf.cli_args import positive_int, terminate_as_interrupt

__all__ = ["add_score_commands"]






def _score(args: argparse.Namespace) -> int:
    from srbf.cli import UserError
    from srbf.judge.scoring_pass import ScoringError, score_store
    from srbf.store import StoreError

    previous = signal.signal(signal.SIGTERM, terminate_as_interrupt)  # `kill PID` stops like Ctrl-C
    try:
        summary = score_store(args.results, workers=args.workers, srbench=args.srbench, progress=not args.quiet,
                              force=args.force)
    except (ScoringError, StoreError) as error:
        raise UserError(str(error)) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    print(summary.text())
    if summary.interrupted:
        return 130
    return 0 if summary.ok else 1


def add_score_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``srbf score`` on the top-level ``srbf`` parser."""
    p = commands.add_parser(
        "score", help="derive the judge's metrics for every stored prediction that has none yet (resumable)"
    )
    p.add_argument("--results", metavar="DIR", help="results store (default: ./srbf-results)")
    p.add_argument("--workers", type=positive_int, metavar="N",
                   help="scoring processes (default: one per core; 1 scores in this process)")  # fmt: skip
    p.add_argument("--srbench", action="store_true",
                   help="also run SRBench's SymPy symbolic-solution check (slow); adds it to rows scored without it")  # fmt: skip
    p.add_argument("--force", action="store_true",
                   help="re-score predictions whose metrics of this judge version were computed with another "
                        "judge stack (Python, NumPy, SciPy, SymPy, mpmath); by default they are kept, with a warning")  # fmt: skip
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_score)
