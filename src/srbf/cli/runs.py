"""The run commands of the ``srbf`` CLI: run, status, check, export, merge.

Thin: each parses its arguments and calls ``srbf.runs.driver`` (run, status), ``srbf.cli.check``
(check) or the store (export, merge), imported inside the command. Errors in what the user asked for (a
bad config, an unknown set, a method that does not start, a read-only store) are ``SrbfError``s:
``srbf.cli.main`` prints them as one line (one per problem for a config) and exits with status 2.
docs/running.md is the long form.
"""

from __future__ import annotations

import argparse
import json
import signal
import threading

from srbf.cli.args import UserError, add_executor_flags, cluster_choice, positive_int, terminate_as_interrupt
from srbf.core import DEFAULT_RESULTS
from srbf.runs.config_limits import MAX_VARIANTS  # standard library only: cheap to import for --help

__all__ = ["add_run_commands"]

ALLOW_LARGE = f"accept sweeps of more than {MAX_VARIANTS:,} method configurations (docs/config.md, Limits)"


def _load(args: argparse.Namespace):
    """The config with the command line's overrides, its variants, the shard (or None) and the
    shards' secret file (or None). A shard's store and secret file default to ``shard-K-of-N/``
    and ``run.secret`` in the config's own results directory (docs/cluster.md)."""
    from srbf.runs.config import load_config
    from srbf.runs.driver import apply_overrides, filter_variants

    config = load_config(args.config, allow_large=getattr(args, "allow_large", False))
    results, shard, secret_file = getattr(args, "results", None), None, None
    if getattr(args, "shard", None):
        from srbf.runs.shards import Shard, shard_paths

        shard = Shard.parse(args.shard)
        shard_store, default_secret = shard_paths(config.results, shard)
        results = results or shard_store
        secret_file = getattr(args, "secret_file", None) or default_secret
    elif getattr(args, "secret_file", None):
        raise UserError("--secret-file: only a sharded run (--shard K/N) reads a secret file")
    config = apply_overrides(
        config,
        experiment=getattr(args, "experiment", None),
        limit=getattr(args, "limit", None),
        workers=getattr(args, "workers", None),
        results=results,
        sandbox=getattr(args, "sandbox", False),
    )
    variants = filter_variants(config.variants(), getattr(args, "sweep_filter", None) or [])
    return config, variants, shard, secret_file


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
    if args.shard:
        parts += ["--shard", args.shard]
    if args.secret_file:
        parts += ["--secret-file", args.secret_file]
    if args.executor == "dask":
        parts += ["--executor dask", f"--scheduler {args.scheduler}" if args.scheduler else f"--local {args.local}"]
    if args.sandbox:
        parts.append("--sandbox")
    if args.allow_large:
        parts.append("--allow-large")
    return " ".join(parts)



def _executor_factory(args: argparse.Namespace):
    """What makes the run's executor: None for local worker processes, else a Dask executor's maker."""
    cluster = cluster_choice(args)
    if cluster is None:
        return None
    from srbf.runs.dask_executor import DaskExecutor

    def make(workers, sandbox):  # noqa: ARG001 - the cluster's size is its own
        return DaskExecutor(**cluster, sandbox=sandbox)

    return make


def _run(args: argparse.Namespace) -> int:
    from srbf.runs.driver import run_config

    make_executor = _executor_factory(args)
    config, variants, shard, secret_file = _load(args)
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, terminate_as_interrupt) if in_main else None  # kill PID = Ctrl-C
    try:
        summary = run_config(
            config,
            variants=variants,
            resume=not args.no_resume,
            progress=False if args.quiet or args.json else None,
            resume_hint=_resume_command(args),
            shard=shard,
            secret_file=secret_file,
            make_executor=make_executor,
        )
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)
    if args.json:
        from dataclasses import fields

        from srbf.core import to_plain

        plain = {f.name: getattr(summary, f.name) for f in fields(summary)}  # asdict would garble the Counter
        print(json.dumps(to_plain({**plain, "recorded": summary.recorded}), indent=2))
    else:
        print(summary.text())
    return 130 if summary.interrupted else 0


def _status(args: argparse.Namespace) -> int:
    from srbf.core import STATUSES as counts
    from srbf.runs.status import collect_status

    config, variants, shard, _ = _load(args)
    rows, path, exists = collect_status(config, variants=variants, shard=shard)
    if args.json:
        print(json.dumps({
            "experiment": config.experiment, "results": str(path), "exists": exists,
            "shard": str(shard) if shard else None, "repeats": config.repeats,
            "rows": [{"method": r.method, "provenance": r.provenance, "catalog": r.catalog, "budget": r.budget,
                      "planned": r.planned,
                      **{s: r.statuses[s] for s in counts}, "pending": r.pending,
                      "model_string_mismatch": r.mismatches} for r in rows],
        }, indent=2))
        return 0
    from srbf.report.text import text_table

    of = f" (shard {shard} of the run)" if shard else ""
    if exists and shard is None:
        from srbf.store import ResultsStore

        with ResultsStore.open_readonly(config.results) as store:
            held = store.shard()
        if held is not None:
            of = f" (a store of shard {held.label}: pass --shard {held.label} to count its share only)"
    print(f"{config.experiment}{of}: results {path}" + ("" if exists else " (nothing recorded yet)"))
    if config.repeats > 1:
        print(f"repeats: {config.repeats} fits of each method on the same points (counted each)")
    if exists:
        _print_stack(config, variants)
    header = ("method", "catalog", "budget", "planned", *counts, "pending")
    table = []
    totals = [0] * (len(counts) + 2)
    for row in rows:
        values = [row.planned, *(row.statuses[s] for s in counts), row.pending]
        totals = [t + v for t, v in zip(totals, values)]
        table.append((f"{row.method} ({row.provenance})", row.catalog, f"{row.budget:g}", *values))
    print(text_table(header, table, right=range(2, len(header)), header_rule=False, footer=[("total", "", "", *totals)]))
    planned, pending = totals[0], totals[-1]
    done = planned - pending
    print(f"{done} of {planned} fits stored ({100.0 * done / planned if planned else 100.0:.1f}%), {pending} pending")
    for note in filter(None, (row.mismatch_note() for row in rows)):
        print(note)
    return 0


def _print_stack(config, variants) -> None:
    """The stack behind the stored fits of these variants, per method (``srbf.store.stacks``)."""
    from srbf.store import ResultsStore
    from srbf.store.stacks import stack_lines

    with ResultsStore.open_readonly(config.results) as store:
        lines = stack_lines(store.stack_frame(config_hash=list(dict.fromkeys(v.config_hash for v in variants))))
    if lines:
        print("stack (per method; ? = not recorded):", *(f"  {line}" for line in lines), "", sep="\n")


def _check(args: argparse.Namespace) -> int:
    from srbf.cli.check import run_check

    if args.json:
        report = run_check(args.config, allow_large=args.allow_large)
        print(json.dumps({"config": args.config, "ok": report.ok, "failed_step": report.failed_step,
                          "error": report.error, "lines": report.lines}, indent=2))
    else:
        print(f"srbf check {args.config}")
        report = run_check(args.config, out=print, allow_large=args.allow_large)
    return 0 if report.ok else 1


def _export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from srbf.store import ResultsStore, resolve_path

    out = Path(args.output)
    if out.suffix.lower() not in (".parquet", ".pq", ".csv"):
        raise UserError(f"-o {args.output}: the file name must end in .parquet or .csv")
    root = args.results if args.results is not None else DEFAULT_RESULTS
    if not resolve_path(root).is_file():
        raise UserError(f"no results store at {resolve_path(root)} (run something first, or pass --results DIR)")
    filters = {}
    if args.method:
        filters["method"] = args.method
    if args.catalog:
        filters["catalog"] = args.catalog
    if args.status:
        filters["status"] = args.status
    version = None
    if args.metrics:
        from srbf.judge import JUDGE_VERSION as version
    with ResultsStore.open_readonly(root) as store:
        if version is not None and store.metrics_frame(version, expand=False, **filters).empty:
            raise UserError(f"no metrics of judge {version} in {store.path}: run srbf score first")
        written = store.export(out, metrics=version, **filters)
        n = len(store.predictions_frame(decode_json=False, **filters))
    print(f"wrote {written}: {n} prediction(s)" + (f" with the metrics of judge {version}" if version else ""))
    return 0


def _merge(args: argparse.Namespace) -> int:
    from srbf.store.merge import merge_stores

    report = merge_stores(args.stores, args.output, allow_partial=args.allow_partial)
    if args.json:
        from dataclasses import asdict

        from srbf.core import to_plain

        print(json.dumps(to_plain(asdict(report)), indent=2))
        return 0
    print(f"merged shards {', '.join(report.merged)} into {report.output}: {report.predictions} prediction(s)")
    if report.missing:
        print(f"missing shards: {', '.join(report.missing)} (their fits are pending in the merged store)")
    for label, stored, planned in report.incomplete:
        print(f"incomplete shard {label}: {stored} of {planned} fits stored")
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
    p.add_argument("--results", metavar="DIR", help=f"results store (default: the config's, {DEFAULT_RESULTS})")
    p.add_argument("--no-resume", action="store_true",
                   help="refuse to run if some of the fits are already stored (default: skip them)")  # fmt: skip
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="the run's summary as JSON (no progress bar)")
    p.add_argument("--sandbox", action="store_true",
                   help="run every worker under bubblewrap: read-only files, no network, results, "
                        "config and catalogs out of sight (docs/fairness.md)")  # fmt: skip
    p.add_argument("--allow-large", action="store_true", help=ALLOW_LARGE)
    p.add_argument("--shard", metavar="K/N",
                   help="run only shard K of N (every N-th fit), into its own store (default: "
                        "shard-K-of-N/ in the config's results); srbf merge joins them (docs/cluster.md)")  # fmt: skip
    add_executor_flags(p, "fits run")
    p.add_argument("--secret-file", metavar="FILE",
                   help="the run secret the shards share, made by the first shard "
                        "(default: run.secret in the config's results)")  # fmt: skip
    p.set_defaults(run=_run)

    p = commands.add_parser("status", help="fits done, failed and pending per set and budget (safe during a run)")
    p.add_argument("-c", "--config", required=True, help="run config (YAML)")
    p.add_argument("--sweep-filter", action="append", metavar="AXIS=VALUE", help="as for srbf run")
    p.add_argument("--limit", type=positive_int, metavar="N", help="as for srbf run")
    p.add_argument("--results", metavar="DIR", help="results store (default: the config's)")
    p.add_argument("--shard", metavar="K/N", help="the share and store of shard K of N (as for srbf run)")
    p.add_argument("--allow-large", action="store_true", help=ALLOW_LARGE)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=_status)

    p = commands.add_parser("merge", help="merge the shard stores of one run into one store, after checking them")
    p.add_argument("stores", nargs="+", metavar="STORE", help="shard stores (directories or .sqlite files)")
    p.add_argument("-o", "--output", metavar="STORE", required=True, help="the merged store (must not exist)")
    p.add_argument("--allow-partial", action="store_true",
                   help="merge the shards there are, even if some are missing or incomplete, and list them")  # fmt: skip
    p.add_argument("--json", action="store_true", help="what was merged, as JSON")
    p.set_defaults(run=_merge)

    p = commands.add_parser("check", help="run a config's methods on two problems, every step named")
    p.add_argument("-c", "--config", required=True, help="run config (YAML)")
    p.add_argument("--allow-large", action="store_true", help=ALLOW_LARGE)
    p.add_argument("--json", action="store_true", help="the steps and the verdict as JSON, printed at the end")
    p.set_defaults(run=_check)

    p = commands.add_parser("export", help="write stored predictions (and their metrics) to Parquet or CSV")
    p.add_argument("--results", metavar="DIR", help=f"results store (default: {DEFAULT_RESULTS})")
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="FILE.parquet or FILE.csv")
    p.add_argument("--method", action="append", help="only this method (repeatable)")
    p.add_argument("--catalog", action="append", help="only this catalog (repeatable)")
    p.add_argument("--status", action="append", help="only this status (repeatable)")
    p.add_argument("--metrics", action="store_true", help="each row with its metrics (the current judge's), one column each")
    p.set_defaults(run=_export)
