"""The ``srbf`` command. Thin: it parses arguments and delegates to the packages.

One module per command group (``catalogs``, ``runs``, ``configs``, ``check``, ``methods``, ``judge``,
``report``, ``site``, ``timing``, ``decontamination``, ``audit``), each importing its package inside the command, so that building the parser
(and ``srbf --help``) loads no NumPy, pandas, SymPy or pydantic. Every error srbf raises about its input
(``srbf.core.SrbfError``, ``UserError`` among them) and every ``OSError`` ends in one line on
stderr and exit status 2; a failed validation exits with status 1. Any other exception is a bug in
srbf, never the user's mistake: one line says so and where to report it, exit status 70
(``EX_SOFTWARE``); ``srbf --debug`` shows its traceback. docs/cli.md lists the flags.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from srbf import __version__
from srbf.cli.args import UserError
from srbf.core import SrbfError

__all__ = ["BUG_REPORTS", "UserError", "build_parser", "main"]

BUG_REPORTS = "srbf's issue tracker"  # where the bug line sends the user
BUG_STATUS = 70  # sysexits' EX_SOFTWARE: an internal software error


def build_parser() -> argparse.ArgumentParser:
    from srbf.cli.arena import add_arena_commands
    from srbf.cli.audit import add_audit_commands
    from srbf.cli.catalogs import add_catalog_commands
    from srbf.cli.configs import add_config_commands
    from srbf.cli.decontamination import add_decontamination_command
    from srbf.cli.distill import add_distill_commands
    from srbf.cli.judge import add_judge_commands
    from srbf.cli.methods import add_method_commands, add_new_command
    from srbf.cli.report import add_report_commands
    from srbf.cli.runs import add_run_commands
    from srbf.cli.site import add_site_commands
    from srbf.cli.timing import add_timing_commands

    parser = argparse.ArgumentParser(prog="srbf", description="An open benchmark framework for symbolic regression.")
    parser.add_argument("--version", action="version", version=f"srbf {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of an unexpected error (a bug in srbf) instead of one line")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    add_catalog_commands(commands)
    add_judge_commands(commands)
    add_run_commands(commands)
    add_config_commands(commands)
    add_method_commands(commands)
    add_new_command(commands, note=" (short for srbf methods new)")
    add_report_commands(commands)
    add_site_commands(commands)
    add_timing_commands(commands)
    add_decontamination_command(commands)
    add_audit_commands(commands)
    add_arena_commands(commands)
    add_distill_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print("srbf: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        return 0
    except (SrbfError, OSError) as error:
        print(f"srbf: error: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # noqa: BLE001 - whatever srbf did not raise on purpose is a bug in srbf
        if args.debug:
            raise
        print(bug_line(error), file=sys.stderr)
        return BUG_STATUS


def bug_line(error: BaseException) -> str:
    """The one line an unexpected exception ends in: it is srbf's fault, not the input's."""
    what = f"{type(error).__name__}: {error}".strip().rstrip(":")
    first = what.splitlines()[0] if what else type(error).__name__
    return (f"srbf: error: this is a bug in srbf, not a mistake in your input ({first}); please report it to "
            f"{BUG_REPORTS} with the command you ran and `srbf --version` (srbf {__version__}); run again as "
            "`srbf --debug ...` for the traceback")
