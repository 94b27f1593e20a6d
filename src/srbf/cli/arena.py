"""The ``srbf arena`` commands: the six-axis evaluation of a results store (docs/arena.md).

Thin: ``srbf.arena`` (NumPy, pandas, the judge, matplotlib) is imported inside the command, so
building the parser loads none of it. Bad input is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys

from srbf.cli.args import positive_int, seed_value
from srbf.cli.report import reading_options
from srbf.cli.store_args import add_store_flags, configs_choice, results_root


def _score(args: argparse.Namespace) -> int:
    from srbf.arena import score_arena

    result = score_arena(results_root(args), args.output, replicates=args.replicates, seed=args.seed,
                         configs=configs_choice(args), at_budget=args.at_budget, at_seconds=args.at_seconds)
    if result.configs_note:
        print(f"srbf: note: {result.configs_note}", file=sys.stderr)
    print(f"srbf: {result.reading.line}", file=sys.stderr)
    rows = len(result.profile)
    print(f"wrote {result.directory}: the profile of {result.profile['method'].nunique()} method(s) in {rows} "
          f"condition row(s){', the noise robustness table' if len(result.robustness) else ''}, "
          f"{sum(1 for f in result.files if f.suffix == '.png')} figure(s)")  # fmt: skip
    if result.skipped:
        print(f"srbf: note: {result.skipped} prediction(s) could not be evaluated: see {result.directory / 'skipped.csv'}")
    return 0


def add_arena_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``srbf arena score`` on the top-level parser."""
    arena = commands.add_parser("arena", help="multi-axis evaluation: ID, OOD, SYM, MIN, EFF, STAB (docs/arena.md)")
    sub = arena.add_subparsers(dest="arena_command", required=True, metavar="COMMAND")
    p = sub.add_parser("score", help="score a results store on the six axes: profile and robustness tables, figures")
    add_store_flags(p)
    p.add_argument("-o", "--output", default="arena", metavar="DIR", help="output directory (default: arena)")
    p.add_argument("--replicates", type=positive_int, default=1000, metavar="N",
                   help="task bootstrap replicates (default: 1000)")
    p.add_argument("--seed", type=seed_value, default=0, metavar="S", help="seed of the task draws (default: 0)")
    reading_options(p, "profile.md and the figures (profile.csv keeps every budget)")
    p.set_defaults(run=_score)
