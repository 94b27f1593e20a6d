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

from srbf.cli.args import (UserError, add_executor_flags, cluster_choice, non_negative_int, positive_int,
                            terminate_as_interrupt, worker_count)
from srbf.cli.store_args import add_store_flags, configs_choice, results_root
from srbf.core import DEFAULT_RESULTS, STATUSES, collector_tuned
from srbf.runs.config_limits import MAX_VARIANTS  # standard library only: cheap to import for --help

__all__ = ["add_run_commands"]

SEALED = ("draw with a sealed run seed, kept in the results store and published with the run's exports "
          "once it is complete (as seed: sealed; docs/fairness.md)")
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
        sealed=getattr(args, "sealed", False),
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
    if args.sealed:
        parts.append("--sealed")
    if args.allow_large:
        parts.append("--allow-large")
    if args.separate_ladder:
        parts.append("--separate-ladder")
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
        with collector_tuned(for_life=True):  # the command ends with its run: the driver freezes its plan
            summary = run_config(
                config,
                variants=variants,
                resume=not args.no_resume,
                progress=False if args.quiet or args.json else None,
                resume_hint=_resume_command(args),
                shard=shard,
                secret_file=secret_file,
                make_executor=make_executor,
                separate_ladder=args.separate_ladder,
            )
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)
    if args.json:
        from dataclasses import asdict, fields

        from srbf.core import to_plain

        plain = {f.name: getattr(summary, f.name) for f in fields(summary)}  # asdict would garble the Counter
        plain.pop("not_ok")  # grouped below
        plain["failures"] = [asdict(group) for group in summary.failures]
        print(json.dumps(to_plain({**plain, "recorded": summary.recorded}), indent=2))
    else:
        print(summary.text())
    return 130 if summary.interrupted else 0


STATUS_COUNTS = STATUSES  # every status a fit can have, memory_limit included


def _failures(root, label_of: dict) -> list:
    """The stored fits of these configurations that were not ok, grouped (``runs.status``)."""
    from srbf.runs.status import stored_failures
    from srbf.store import ResultsStore

    with ResultsStore.open_readonly(root) as store:
        return stored_failures(store, label_of)


def _store_status(args: argparse.Namespace) -> int:
    """``srbf status`` without a config: what the store holds, per method, set and budget."""
    from srbf.report.text import text_table
    from srbf.runs.status import from_trajectory_line, store_counts, stored_failures
    from srbf.runs.summary import failure_lines
    from srbf.store import ResultsStore, resolve_path
    from srbf.store.configurations import select_configurations

    root = results_root(args)
    path = resolve_path(root)
    if not path.is_file():
        raise UserError(f"no results store at {path} (pass --results DIR, or -c CONFIG to see what a run plans)")
    with ResultsStore.open_readonly(root) as store:
        label_of = dict(select_configurations(store.configurations(), "all").kept)  # older ones: METHOD@HASH
        rows, failures = store_counts(store, label_of), stored_failures(store, label_of)
        held = store.sealed() if args.reveal_seed else None
    seed = None
    if args.reveal_seed:  # a public seed is the config's: the store alone does not hold it
        seed = _held_seed(held) if held is not None else (None, "public: the config's seed; -c CONFIG shows it")
    if args.json:
        from dataclasses import asdict

        print(json.dumps({"results": str(path), **({"seed": seed[0], "seed_note": seed[1]} if seed else {}), "rows": [
            {"method": r.method, "provenance": r.provenance, "catalog": r.catalog, "budget": r.budget,
             "stored": r.stored, **{s: r.statuses[s] for s in STATUS_COUNTS}, "from_trajectory": r.from_trajectory}
            for r in rows],
            "failures": [asdict(g) for g in failures]}, indent=2))  # fmt: skip
        return 0
    print(f"results {path} (no config given: what the store holds; -c CONFIG also counts what is pending)")
    if seed:
        print(f"run seed: {seed[0] if seed[0] is not None else '(not in the store)'} ({seed[1]})")
    header = ("method", "catalog", "budget", *STATUS_COUNTS, "stored")
    table = [(f"{r.method} ({r.provenance})", r.catalog, f"{r.budget:g}", *(r.statuses[s] for s in STATUS_COUNTS),
              r.stored) for r in rows]  # fmt: skip
    totals = [sum(r.statuses[s] for r in rows) for s in STATUS_COUNTS]
    print(text_table(header, table, right=range(2, len(header)), header_rule=False,
                     footer=[("total", "", "", *totals, sum(totals))]))  # fmt: skip
    for line in filter(None, [from_trajectory_line(rows), *failure_lines(failures)]):
        print(line)
    return 0


def _status(args: argparse.Namespace) -> int:
    from srbf.runs.status import collect_status, from_trajectory_line
    from srbf.runs.summary import failure_lines

    if args.config is None:
        return _store_status(args)
    config, variants, shard, _ = _load(args)
    rows, path, exists = collect_status(config, variants=variants, shard=shard)
    failures = _failures(config.results, {(v.name, v.config_hash): v.label for v in variants}) if exists else []
    seed = _seed_line(config, exists) if args.reveal_seed else None
    counts = STATUS_COUNTS
    if args.json:
        from dataclasses import asdict

        print(json.dumps({
            "experiment": config.experiment, "results": str(path), "exists": exists,
            **({"seed": seed[0], "seed_note": seed[1]} if seed else {}),
            "shard": str(shard) if shard else None, "repeats": config.repeats,
            "rows": [{"method": r.method, "provenance": r.provenance, "catalog": r.catalog, "budget": r.budget,
                      "planned": r.planned,
                      **{s: r.statuses[s] for s in counts}, "pending": r.pending,
                      "model_string_mismatch": r.mismatches, "from_trajectory": r.from_trajectory} for r in rows],
            "failures": [asdict(g) for g in failures],
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
    if seed is not None:
        print(f"run seed: {seed[0] if seed[0] is not None else '(none yet)'} ({seed[1]})")
    if config.repeats > 1:
        print(f"repeats: {config.repeats} fits of each method on the same points (counted each)")
    if exists:
        _print_stack(config, variants)
        _print_changes(config, variants, rows)
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
    for note in filter(None, [from_trajectory_line(rows), *(row.mismatch_note() for row in rows)]):
        print(note)
    for line in failure_lines(failures):
        print(line)
    return 0


def _print_changes(config, variants, rows) -> None:
    """A method whose configuration changed since its stored runs, as ``srbf run`` says it."""
    from srbf.runs.changes import changed_lines
    from srbf.store import ResultsStore

    pending: dict[str, int] = {}
    for row in rows:
        pending[row.method] = pending.get(row.method, 0) + row.pending
    with ResultsStore.open_readonly(config.results) as store:
        lines = changed_lines(store.configurations(), variants, pending, doing="to run again")
    for line in lines:
        print(line)


def _seed_line(config, exists: bool) -> tuple[int | None, str]:
    """The run seed and what it is: public (the config's), or sealed (the store's; None before the
    run starts) and whether the run is complete (its exports then carry it)."""
    if not config.sealed:
        return config.seed, "public: the config's"
    held = None
    if exists:
        from srbf.store import ResultsStore

        with ResultsStore.open_readonly(config.results) as store:
            held = store.sealed()
    if held is None:
        return None, "sealed: drawn from the store's secret when the run starts"
    return _held_seed(held)


def _held_seed(held) -> tuple[int, str]:
    """A sealed run's seed as the store keeps it, and whether its exports carry it yet."""
    state = "complete: exports carry it" if held.complete else "not complete: exports withhold it"
    return held.seed, f"sealed, kept in the store; run {state}"


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
    import sys
    from pathlib import Path

    from srbf.store import ResultsStore, resolve_path
    from srbf.store.configurations import select_configurations

    out = Path(args.output)
    for flag, name in (("-o", args.output), ("--stack", args.stack)):
        if name is not None and Path(name).suffix.lower() not in (".parquet", ".pq", ".csv"):
            raise UserError(f"{flag} {name}: the file name must end in .parquet or .csv")
    root = results_root(args)
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
        selection = select_configurations(store.configurations(), configs_choice(args))
        if version is not None and store.metrics_frame(version, expand=False, **filters).empty:
            raise UserError(f"no metrics of judge {version} in {store.path}: run srbf score first")
        written = store.export(out, metrics=version, configs=selection, **filters)
        n = len(selection.apply(store.predictions_frame(decode_json=False, **filters)))
        if args.stack:
            stack = _write_stack(store, selection, filters, Path(args.stack))
    if selection.note():
        print(f"srbf: note: {selection.note()}", file=sys.stderr)
    print(f"wrote {written}: {n} prediction(s)" + (f" with the metrics of judge {version}" if version else ""))
    if args.stack:
        print(f"wrote {args.stack}: the stack behind them, {stack} row(s) (one per method, run stack and judge stack)")
    return 0


def _write_stack(store, selection, filters: dict, path) -> int:
    """The stack table (``store.stack_frame``) of the exported configurations, beside the export:
    what a reader needs to know which libraries produced and scored the rows."""
    from srbf.store.csv_cells import write_csv

    hashes = sorted({config_hash for _, config_hash in selection.kept})
    frame = store.stack_frame(**filters, config_hash=hashes) if hashes else store.stack_frame(**filters).iloc[:0]
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".csv":
        write_csv(frame, path, index=False)
    else:
        frame.to_parquet(path, index=False)
    return len(frame)


def _merge(args: argparse.Namespace) -> int:
    from srbf.runs.merge_check import merge_checks
    from srbf.store.merge import merge_stores

    counts: dict = {}
    report = merge_stores(args.stores, args.output, allow_partial=args.allow_partial,
                          check=merge_checks(args.verify, counts=counts))  # fmt: skip
    scored = None
    if not args.no_score:  # metrics are never merged: the merged store is scored here
        from srbf.judge.scoring_pass import score_store

        scored = score_store(report.output, workers=args.workers, progress=False)
    if args.json:
        from dataclasses import asdict

        from srbf.core import to_plain

        extra = {**counts, "scored": None if scored is None else scored.scored}
        print(json.dumps(to_plain({**asdict(report), **extra}), indent=2))
        return 0
    print(f"merged shards {', '.join(report.merged)} into {report.output}: {report.predictions} prediction(s)")
    print(f"checked {counts.get('checked', 0)} row(s): seeds re-derived, points re-drawn"
          + (f"; re-ran {counts['verified']} fit(s) of deterministic methods, all the same" if args.verify else ""))
    if report.missing:
        print(f"missing shards: {', '.join(report.missing)} (their fits are pending in the merged store)")
    for label, stored, planned in report.incomplete:
        print(f"incomplete shard {label}: {stored} of {planned} fits stored")
    if scored is not None:
        print(f"scored the merged store: {scored.text().splitlines()[0]}")
    else:
        print("not scored (--no-score): run srbf score --results on it; shards' metrics are never merged")
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
    p.add_argument("--sealed", action="store_true", help=SEALED)
    p.add_argument("--allow-large", action="store_true", help=ALLOW_LARGE)
    p.add_argument("--separate-ladder", action="store_true",
                   help="fit every budget on its own, also for a method that stores its ladder from one fit's "
                        "exact trajectory (ladder: one_fit; docs/running.md)")  # fmt: skip
    p.add_argument("--shard", metavar="K/N",
                   help="run only shard K of N (every N-th fit), into its own store (default: "
                        "shard-K-of-N/ in the config's results); srbf merge joins them (docs/cluster.md)")  # fmt: skip
    add_executor_flags(p, "fits run")
    p.add_argument("--secret-file", metavar="FILE",
                   help="the run secret the shards share, made by the first shard "
                        "(default: run.secret in the config's results)")  # fmt: skip
    p.set_defaults(run=_run)

    p = commands.add_parser("status", help="fits done, failed and pending per set and budget, and why fits failed "
                                           "(safe during a run)")  # fmt: skip
    p.add_argument("-c", "--config", help="run config (YAML): what it plans against what is stored (without it: what "
                                          "the store of --results holds)")  # fmt: skip
    p.add_argument("--sweep-filter", action="append", metavar="AXIS=VALUE", help="as for srbf run")
    p.add_argument("--limit", type=positive_int, metavar="N", help="as for srbf run")
    p.add_argument("--results", metavar="DIR", help=f"results store (default: the config's results:, else {DEFAULT_RESULTS})")
    p.add_argument("--shard", metavar="K/N", help="the share and store of shard K of N (as for srbf run)")
    p.add_argument("--sealed", action="store_true", help="the config's run is sealed (as for srbf run)")
    p.add_argument("--reveal-seed", action="store_true",
                   help="show the run seed (a sealed run's, from its store; docs/fairness.md)")  # fmt: skip
    p.add_argument("--allow-large", action="store_true", help=ALLOW_LARGE)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=_status)

    p = commands.add_parser("merge", help="merge the shard stores of one run into one store, after checking them")
    p.add_argument("stores", nargs="+", metavar="STORE", help="shard stores (directories or .sqlite files)")
    p.add_argument("-o", "--output", metavar="STORE", required=True, help="the merged store (must not exist)")
    p.add_argument("--allow-partial", action="store_true",
                   help="merge the shards there are, even if some are missing or incomplete, and list them")  # fmt: skip
    p.add_argument("--verify", type=non_negative_int, default=0, metavar="K",
                   help="also re-run K fits sampled from the deterministic methods' rows and compare their "
                        "formulas (docs/cluster.md, Trust)")  # fmt: skip
    p.add_argument("--no-score", action="store_true",
                   help="leave the merged store unscored (metrics are never merged; default: score it)")  # fmt: skip
    p.add_argument("--workers", type=worker_count, metavar="N", help="scoring processes (default: one per core)")
    p.add_argument("--json", action="store_true", help="what was merged, as JSON")
    p.set_defaults(run=_merge)

    p = commands.add_parser("check", help="run a config's methods on two problems, every step named")
    p.add_argument("-c", "--config", required=True, help="run config (YAML)")
    p.add_argument("--allow-large", action="store_true", help=ALLOW_LARGE)
    p.add_argument("--json", action="store_true", help="the steps and the verdict as JSON, printed at the end")
    p.set_defaults(run=_check)

    p = commands.add_parser("export", help="write stored predictions (and their metrics) to Parquet or CSV")
    add_store_flags(p)
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="FILE.parquet or FILE.csv")
    p.add_argument("--method", action="append", help="only this method (repeatable)")
    p.add_argument("--catalog", action="append", help="only this catalog (repeatable)")
    p.add_argument("--status", action="append", help="only this status (repeatable)")
    p.add_argument("--metrics", action="store_true", help="each row with its metrics (the current judge's), one column each")
    p.add_argument("--stack", metavar="FILE", help="also write the stack table of the exported rows (srbf, Python, "
                   "the method's packages, the judge's libraries; one row per method) to FILE.parquet or FILE.csv")
    p.set_defaults(run=_export)
