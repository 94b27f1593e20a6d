"""The run commands of the ``srbf`` CLI: run, status, check, export, new.

Thin: each parses its arguments and calls ``srbf.runs.driver`` (run, status), ``srbf.runs.check``,
the store (export) or ``srbf.methods.scaffold`` (new). Errors in what the user asked for (a bad
config, an unknown set, a method that does not start, a read-only store) become ``UserError``:
one line (one per problem for a config) and exit status 2. docs/running.md is the long form.
"""

from __future__ import annotations

import argparse
import functools
import signal
import threading
from typing import Callable
from srbf.cli_args import positive_int, terminate_as_interrupt
from srbf.runs.config_limits import MAX_VARIANTS

__all__ = ["add_run_commands"]

ALLOW_LARGE = f"accept sweeps of more than {MAX_VARIANTS:,} method configurations (docs/config.md, Limits)"


def _user_errors(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Turn the errors of config, store, driver and scaffold into ``srbf.cli.UserError``."""

    @functools.wraps(command)
    def wrapper(args: argparse.Namespace) -> int:
        from srbf.cli import UserError
        from srbf.methods.scaffold import ScaffoldError
        from srbf.methods.worker import WorkerStartError
        from srbf.runs.config import ConfigError
        from srbf.runs.driver import RunError
        from srbf.store import StoreError

        try:
            return command(args)
        except (ConfigError, StoreError, RunError, WorkerStartError, ScaffoldError) as error:
            raise UserError(str(error)) from None

    return wrapper


def _load(args: argparse.Namespace):
    from srbf.runs.config import load_config
    from srbf.runs.driver import apply_overrides, filter_variants

    config = load_config(args.config, allow_large=getattr(args, "allow_large", False))
    config = apply_overrides(
        config,
        experiment=getattr(args, "experiment", None),
        limit=getattr(args, "limit", None),
        workers=getattr(args, "workers", None),
        results=getattr(args, "results", None),
        sandbox=getattr(args, "sandbox", False),
    )
    variants = filter_variants(config.variants(), getattr(args, "sweep_filter", None) or [])
    return config, variants


def _resume_command(args: argparse.Namespace) -> str:
    parts = ["srbf run -c", args.config]
    if args.experiment:
        parts += ["--experiment", args.experiment]
    for item in args.sweep_filter or []:
        parts += ["--sweep-filter", item]
    if args.limit:
        parts += ["--limit", str(args.limit)]
    if args.results:
        parts += ["--results", args.results]
    if args.sandbox:
        parts.append("--sandbox")
    if args.allow_large:
        parts.append("--allow-large")
    return " ".join(parts)




@_user_errors
def _run(args: argparse.Namespace) -> int:
    from srbf.runs.driver import run_config

    config, variants = _load(args)
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, terminate_as_interrupt) if in_main else None  # kill PID = Ctrl-C
    try:
        summary = run_config(
            config,
            variants=variants,
            resume=not args.no_resume,
            progress=False if args.quiet else None,
            resume_hint=_resume_command(args),
        )
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)
    print(summary.text())
    return 130 if summary.interrupted else 0


@_user_errors
def _status(args: argparse.Namespace) -> int:
    from srbf.runs.status import collect_status

    config, variants = _load(args)
    rows, path, exists = collect_status(config, variants=variants)
    print(f"{config.experiment}: results {path}" + ("" if exists else " (nothing recorded yet)"))
    if exists:
        _print_stack(config, variants)
    header = ("method", "catalog", "budget", "planned", "ok", "failed", "timeout", "crashed", "placeholder", "pending")
    table = [header]
    totals = [0] * 7
    for row in rows:
        values = [row.planned, row.statuses["ok"], row.statuses["failed"], row.statuses["timeout"],
                  row.statuses["crashed"], row.statuses["placeholder"], row.pending]  # fmt: skip
        totals = [t + v for t, v in zip(totals, values)]
        table.append((row.method, row.catalog, f"{row.budget:g}", *map(str, values)))
    table.append(("total", "", "", *map(str, totals)))
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for i, r in enumerate(table):
        if i == len(table) - 1:
            print("  ".join("-" * w for w in widths))
        print("  ".join(c.ljust(w) if j < 2 else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))))
    planned, pending = totals[0], totals[6]
    done = planned - pending
    print(f"{done} of {planned} fits stored ({100.0 * done / planned if planned else 100.0:.1f}%), {pending} pending")
    return 0


def _print_stack(config, variants) -> None:
    """The stack behind the stored fits of these variants, per method (``srbf.store.stacks``)."""
    from srbf.store import ResultsStore
    from srbf.store.stacks import stack_lines

    with ResultsStore.open_readonly(config.results) as store:
        lines = stack_lines(store.stack_frame(config_hash=list(dict.fromkeys(v.config_hash for v in variants))))
    if lines:
        print("stack (per method; ? = not recorded):", *(f"  {line}" for line in lines), "", sep="\n")


@_user_errors
def _check(args: argparse.Namespace) -> int:
    from srbf.runs.check import run_check

    print(f"srbf check {args.config}")
    report = run_check(args.config, out=print, allow_large=args.allow_large)
    return 0 if report.ok else 1


@_user_errors
def _export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from srbf.cli import UserError
    from srbf.store import ResultsStore, resolve_path

    out = Path(args.output)
    if out.suffix.lower() not in (".parquet", ".pq", ".csv"):
        raise UserError(f"-o {args.output}: the file name must end in .parquet or .csv")
    root = args.results if args.results is not None else "./srbf-results"
    if not resolve_path(root).is_file():
        raise UserError(f"no results store at {resolve_path(root)} (run something first, or pass --results DIR)")
    filters = {}
    if args.method:
        filters["method"] = args.method
    if args.catalog:
        filters["catalog"] = args.catalog
    if args.status:
        filters["status"] = args.status
    with ResultsStore.open_readonly(root) as store:
        written = store.export(out, **filters)
        n = len(store.predictions_frame(decode_json=False, **filters))
    print(f"wrote {written}: {n} prediction(s)")
    return 0


@_user_errors
def _new(args: argparse.Namespace) -> int:
    from srbf.methods.scaffold import write_method

    paths = write_method(args.name, args.dir, python=args.python, force=args.force)
    for path in paths:
        print(f"wrote {path}")
    config = paths[1]
    print(f"next: srbf check -c {config}   then   python -m pytest {paths[2]}   then   srbf run -c {config}")
    return 0




def add_run_commands(commands: argparse._SubParsersAction) -> None:
    """Register the run commands on the top-level ``srbf`` parser."""
    p = commands.add_parser("run", help="run a config: every fit it asks for, into the results store (resumable)")
    p.add_argument("-c", "--config", required=True, help="run config (YAML, see docs/config.md)")
    p.add_argument("--experiment", help="experiment name recorded with the run (default: the config's)")
    p.add_argument("--sweep-filter", action="append", metavar="AXIS=VALUE",
                   help="run only the variants whose swept option (or sweep axis, or 'method') "
                        "has this value; repeatable")  # fmt: skip
    p.add_argument("--limit", type=positive_int, metavar="N",
                   help="the first N problems of each catalog (replaces the config's limit)")  # fmt: skip
    p.add_argument("--workers", type=positive_int, metavar="N",
                   help="worker processes (default: the config's, else one per core; 1 for timing)")  # fmt: skip
    p.add_argument("--results", metavar="DIR", help="results store (default: the config's, ./srbf-results)")
    p.add_argument("--no-resume", action="store_true",
                   help="refuse to run if some of the fits are already stored (default: skip them)")  # fmt: skip
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--sandbox", action="store_true",
                   help="run every worker under bubblewrap: read-only files, no network, results, "
                        "config and catalogs out of sight (docs/fairness.md)")  # fmt: skip
    p.add_argument("--allow-large", action="store_true", help=ALLOW_LARGE)
    p.set_defaults(run=_run)

    p = commands.add_parser("status", help="fits done, failed and pending per set and budget (safe during a run)")
    p.add_argument("-c", "--config", required=True, help="run config (YAML)")
    p.add_argument("--sweep-filter", action="append", metavar="AXIS=VALUE", help="as for srbf run")
    p.add_argument("--limit", type=positive_int, metavar="N", help="as for srbf run")
    p.add_argument("--results", metavar="DIR", help="results store (default: the config's)")
    p.add_argument("--allow-large", action="store_true", help=ALLOW_LARGE)
    p.set_defaults(run=_status)

    p = commands.add_parser("check", help="run a config's methods on two problems, every step named")
    p.add_argument("-c", "--config", required=True, help="run config (YAML)")
    p.add_argument("--allow-large", action="store_true", help=ALLOW_LARGE)
    p.set_defaults(run=_check)

    p = commands.add_parser("export", help="write stored predictions to Parquet or CSV")
    p.add_argument("--results", metavar="DIR", help="results store (default: ./srbf-results)")
    p.add_argument("-o", "--output", required=True, help="FILE.parquet or FILE.csv")
    p.add_argument("--method", action="append", help="only this method (repeatable)")
    p.add_argument("--catalog", action="append", help="only this catalog (repeatable)")
    p.add_argument("--status", action="append", help="only this status (repeatable)")
    p.set_defaults(run=_export)

    p = commands.add_parser("new", help="write a working method skeleton, its config and its test")
    p.add_argument("name", help="the method's name (letters, digits, _)")
    p.add_argument("--python", metavar="PATH", help="interpreter the method runs under (needs NumPy, not srbf)")
    p.add_argument("--dir", default=".", help="where to write the files (default: here)")
    p.add_argument("--force", action="store_true", help="overwrite existing files")
    p.set_defaults(run=_new)
