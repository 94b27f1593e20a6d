"""The timing commands of the ``srbf`` CLI: timing freeze, timing run, timing readout.

Thin: ``srbf.runs.timing_subset``, ``srbf.runs.timing_run`` and ``srbf.stats.timing_readout`` are
imported inside each command. Bad input (a missing directory, a subset changed after freezing, an
unknown config, two machines in one readout) is one line on stderr and exit status 2.
docs/fairness.md ("Timing protocol") is the long form.
"""

from __future__ import annotations

import argparse
import signal
import sys

from srbf.cli.args import positive_int, terminate_as_interrupt

__all__ = ["add_timing_commands"]


def _freeze(args: argparse.Namespace) -> int:
    from srbf.runs.config import load_config
    from srbf.runs.timing_subset import DEFAULT_TOTAL, freeze_subset

    config = load_config(args.config)
    total = None if args.per_set else (args.total or DEFAULT_TOTAL)
    subset = freeze_subset(config, args.output, total=total, per_set=args.per_set,
                           log=lambda text: print(f"srbf: {text}", file=sys.stderr))
    print(f"froze {len(subset.problems)} problems of {len(subset.set_sizes())} sets into {subset.directory} "
          f"({subset.condition}, seed {subset.seed}; hash {subset.hash[:12]})")
    print(f"next: srbf timing run -c {args.config} --subset {subset.directory}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from srbf.runs.config import load_config
    from srbf.runs.timing_run import run_timing

    signal.signal(signal.SIGTERM, terminate_as_interrupt)
    config = load_config(args.config)
    summary = run_timing(config, args.subset)
    for label, n in summary.recorded.items():
        print(f"{label}: {n} fits timed, {summary.failed.get(label, 0)} of them failed")
    if summary.skipped:
        print(f"{summary.skipped} fits were already recorded (resumed)")
    print(f"recorded in {summary.store} in {summary.seconds:.0f} s; read it: srbf timing readout --subset {args.subset}")
    return 0


def _readout(args: argparse.Namespace) -> int:
    import json

    from srbf.core import to_plain
    from srbf.report.text import text_table
    from srbf.stats.timing_readout import read_timing

    readout = read_timing(args.subset)
    if args.json:
        print(json.dumps(to_plain({"subset": str(readout.subset.directory), "subset_hash": readout.subset.hash,
                                   "machine": readout.machine, "rows": readout.rows.to_dict("records"),
                                   "methods": readout.methods.to_dict("records")}, non_finite="null"), indent=1))
        return 0
    print(text_table(*readout_table(readout), right=range(1, 9)))
    for line in readout_lines(readout):
        print(line)
    return 0


def readout_table(readout) -> tuple[list[str], list[list[str]]]:
    """The readout's rows as text cells (seconds to three significant digits)."""
    header = ["method", "budget", "fits", "success", "median s", "mean s", "95 % interval", "sets", "on time axis"]
    rows = []
    for r in readout.rows.itertuples():
        rows.append([r.method, f"{r.budget:g}", f"{r.recorded}/{r.problems}", f"{r.success_rate:.1%}",
                     _seconds(r.median_seconds), _seconds(r.mean_seconds),
                     f"[{_seconds(r.ci_low)}, {_seconds(r.ci_high)}]", str(r.n_sets),
                     "yes" if r.complete else "no (incomplete)"])
    return header, rows


def readout_lines(readout) -> list[str]:
    """The lines under the table: the subset, the machine, each method's load and when it ran."""
    from datetime import UTC, datetime

    m = readout.machine
    memory = m.get("memory_bytes")
    lines = [f"subset: {readout.subset.directory}, {len(readout.subset.problems)} problems in "
             f"{len(readout.subset.set_sizes())} sets, {readout.subset.condition} (hash {readout.subset.hash[:12]})",
             f"machine: {m.get('hostname')}: {m.get('cpu_model')}, {m.get('usable_cores')} of {m.get('cpu_count')} cores, "
             + (f"{memory / 2**30:.1f} GiB memory" if memory else "memory unknown") + f", {m.get('platform')}"]
    for r in readout.methods.itertuples():
        when = ""
        if r.fits:
            start, end = (datetime.fromtimestamp(t, UTC) for t in (r.first_start, r.last_end))
            when = f", {start:%Y-%m-%d %H:%M}-{end:%H:%M} UTC ({(end - start).total_seconds():.1f} s)"
        lines.append(f"{r.method}: {r.fits} fits{when}; load average before {_load(r.load_before)}, "
                     f"after {_load(r.load_after)}")
    return lines


def _seconds(value: float) -> str:
    return "-" if value != value else f"{value:.3g}"


def _load(value) -> str:
    return "/".join(f"{x:.2f}" for x in value) if value else "unknown"


def add_timing_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``srbf timing freeze``, ``srbf timing run`` and ``srbf timing readout``."""
    timing = commands.add_parser(
        "timing", help="publishable fit times: a frozen subset, a serial run on it, the readout",
        description="The timing protocol (docs/fairness.md): freeze a subset once, time every method on it one "
                    "fit at a time on one machine, read the times out per method and budget.")
    sub = timing.add_subparsers(dest="timing_command", required=True, metavar="COMMAND")

    p = sub.add_parser("freeze", help="draw a fixed subset, stratified by set, and write it with its hashes",
                       description="Pick problems of the config's sets (an equal share per set; smaller sets give "
                                   "all they have), draw their points once and write them, with hashes, into DIR.")
    p.add_argument("-c", "--config", required=True, metavar="CONFIG",
                   help="the run config: its sets, problem selection, sampling (one condition) and seed")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="a new (or empty) directory for the subset")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--total", type=positive_int, metavar="N", help="problems in all (default: 262)")
    size.add_argument("--per-set", type=positive_int, metavar="N", help="problems per set instead (fewer if a set is smaller)")
    p.set_defaults(run=_freeze)

    p = sub.add_parser("run", help="time every method of a config on the subset, one fit at a time",
                       description="One worker, one fit at a time, methods one after the other, a warm-up fit per "
                                   "method that is not recorded. Records the fits and the machine (CPU, cores, "
                                   "memory, load average) in DIR/results; a rerun resumes.")
    p.add_argument("-c", "--config", required=True, metavar="CONFIG", help="the run config: its methods and budgets")
    p.add_argument("--subset", required=True, metavar="DIR", help="the frozen subset (srbf timing freeze)")
    p.set_defaults(run=_run)

    p = sub.add_parser("readout", help="median and mean fit time per method and budget, sets combined",
                       description="Per method and budget: fits recorded, success rate, median and mean fit time "
                                   "(each set's mean combined across sets with random-effects weights) and whether "
                                   "the rung is complete (only complete rungs go on the time axis). Refuses fits "
                                   "measured on two machines.")
    p.add_argument("--subset", required=True, metavar="DIR", help="the frozen subset its timing run recorded into")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=_readout)
