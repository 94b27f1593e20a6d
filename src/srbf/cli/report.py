"""The analysis commands of the ``srbf`` CLI (analyze, compare, ranks).

Thin: ``srbf.report`` (and with it pandas and ``srbf.stats``) is imported inside each command, so
building the parser loads none of them; matplotlib is imported by the drawing process only, which
``analyze`` forks as soon as pandas is in (SciPy and the analysis code are imported after the fork).
"""

from __future__ import annotations

import argparse
import functools

from srbf.cli.args import UserError
from srbf.core import collector_tuned
from srbf.cli.store_args import add_store_flags, configs_choice, results_root


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def _method_pair(text: str) -> tuple[str, str]:
    a, colon, b = text.partition(":")
    if not colon or not a.strip() or not b.strip() or ":" in b:
        raise argparse.ArgumentTypeError(f"must be two method labels joined by a colon, A:B, got {text!r}")
    return a.strip(), b.strip()


def _frame(args: argparse.Namespace):
    import sys

    from srbf.report.data import load_long_frame

    notes: list[str] = []
    frame = load_long_frame(results_root(args), condition=args.condition, notes=notes, configs=configs_choice(args))
    for note in notes:
        print(f"srbf: note: {note}", file=sys.stderr)
    return frame


def _confirmatory(args: argparse.Namespace, frame) -> list[tuple[str, str]]:
    """The pairs declared with --confirmatory and --confirmatory-vs, checked against the results."""
    from srbf.report.data import confirmatory_pairs

    return confirmatory_pairs(frame, args.confirmatory or (), args.confirmatory_vs)


def _note_budget_fallback(axes) -> None:
    import sys

    if "budget" in set(axes):
        print("srbf: note: no method could be placed at the time marks (no usable timings, or every method "
              "slower): read at each budget instead", file=sys.stderr)


def _stack(args: argparse.Namespace):
    """The stack behind the analysed predictions (``srbf.store.stacks``), for the report's section;
    None when the predictions came from elsewhere than a store file."""
    from srbf.store import ResultsStore, resolve_path

    root = results_root(args)
    if not resolve_path(root).is_file():
        return None
    from srbf.store.configurations import select_configurations

    with ResultsStore.open_readonly(root) as store:
        read = select_configurations(store.configurations(), configs_choice(args)).kept  # the configurations analysed
        return store.stack_frame(condition=args.condition, config_hash=sorted({h for _, h in read}))


def _timing(args: argparse.Namespace):
    """The time axis of a timing readout: of ``--timing DIR``, or of a subset frozen into
    ``<results>/timing`` once its run has recorded fits (``srbf.stats.timing_readout``); else None."""
    from srbf.stats.timing_readout import readout_time_axis, stored_readout

    return readout_time_axis(args.timing) if args.timing else stored_readout(results_root(args))


def reading_options(p: argparse.ArgumentParser, what: str = "values, verdicts and ranks") -> None:
    """``--at-seconds`` and ``--at-budget``: where the results are read, the same flags on every
    command that gives verdicts (``srbf.stats.reading``; default: chosen from the data)."""
    p.add_argument("--at-seconds", action="append", type=_positive_float, metavar="T",
                   help=f"read {what} at this time mark in seconds (repeatable; default: chosen from the data, "
                        "at 1, 10, 100, 1000 s when every method's measured times reach one of them)")
    p.add_argument("--at-budget", metavar="max",
                   help=f"max: read {what} with every method at its own largest complete budget (default: chosen "
                        "from the data, this when no time mark lies within every method's measured times)")


def reading(args: argparse.Namespace, frame, time_axis=None):
    """The reading of ``frame`` the flags ask for (or the data chooses): ``srbf.stats.reading``."""
    from srbf.report.readings import reading_of

    return reading_of(frame, times=args.at_seconds, at_budget=args.at_budget, time_axis=time_axis)


def say_reading(chosen) -> None:
    """The line that says where the results were read and why (stderr, after the work succeeded)."""
    import sys

    print(f"srbf: {chosen.line}", file=sys.stderr)


def timing_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--timing", metavar="DIR",
                   help="place the methods on the time axis by the timing readout of this frozen subset (default: "
                        "<results>/timing when a timing run recorded there; docs/fairness.md)")


def _analyze(args: argparse.Namespace) -> int:
    import sys

    from srbf.report.drawing import Painter
    from srbf.report.figure_files import figure_files  # and pandas

    files = figure_files(args.format, args.dpi)  # checked before the store is read
    if args.at_budget is not None and args.at_seconds:
        raise UserError("--at-budget and --at-seconds exclude each other: values are read at one or the other")
    if args.at_budget not in (None, "max"):
        raise UserError(f"--at-budget: must be one of max (every method at its own largest budget), "
                        f"got {args.at_budget!r}")
    # tuned for the command's life: the imports are left alone by the collections of this process
    # and of the drawing process it forks, and what the analysis leaves by those at exit (0.1-0.3 s);
    # the painter imports matplotlib in its own process while SciPy is imported and the store read here
    with collector_tuned(for_life=True) as keep, Painter() as painter:
        from srbf.report.build import build_report

        keep()
        frame = _frame(args)
        timing = _timing(args)
        chosen = reading(args, frame, None if timing is None else timing.frame)
        report = build_report(frame, args.output, metrics=args.metric, times=args.at_seconds,
                              statistic=args.statistic, show_incomplete=args.show_incomplete,
                              source=results_root(args), confirmatory=_confirmatory(args, frame),
                              stack=functools.partial(_stack, args), files=files, timing=timing, painter=painter,
                              reading=chosen)
    say_reading(chosen)
    for note in report.notes:
        print(f"srbf: note: {note}", file=sys.stderr)
    where = f" (leaderboard at {report.headline.label})" if report.headline is not None else ""
    print(f"wrote {report.index}: {len(report.figures)} figures in {report.directory / 'figures'}, "
          f"{len(report.tables)} tables in {report.directory / 'tables'}{where}")
    keep()
    return 0


def _compare(args: argparse.Namespace) -> int:
    from srbf.report.terminal import compare, compare_text, to_json

    frame = _frame(args)
    timing = _timing(args)
    time_axis = None if timing is None else timing.frame
    chosen = reading(args, frame, time_axis)
    records = compare(frame, args.method_a, args.method_b, metrics=args.metric, statistic=args.statistic,
                      confirmatory=_confirmatory(args, frame), reading=chosen, time_axis=time_axis)
    say_reading(chosen)
    _note_budget_fallback(r["axis"] for r in records if not r.get("same_configuration"))
    print(to_json(records) if args.json else compare_text(records))
    return 0


def _ranks(args: argparse.Namespace) -> int:
    from srbf.report.terminal import ranks, ranks_text, to_json

    frame = _frame(args)
    result = ranks(frame, args.metric, times=args.at_seconds, budget=args.budget, statistic=args.statistic)
    if args.budget is None:
        _note_budget_fallback(m["axis"] for m in result["marks"])
    print(to_json(result) if args.json else ranks_text(result))
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    add_store_flags(p)
    p.add_argument("--condition", metavar="TEXT",
                   help="the data condition to analyse, e.g. 'n_support=512;noise=0' (needed when there are several)")
    p.add_argument("--statistic", choices=("meta", "bootstrap"), default="meta",
                   help="meta: sets combined with random-effects weights (default); bootstrap: expression-level")


def _families(p: argparse.ArgumentParser) -> None:
    """The pre-registered comparisons: Holm-corrected; every other comparison is exploratory (BH)."""
    p.add_argument("--confirmatory", action="append", type=_method_pair, metavar="A:B",
                   help="declare the comparison of methods A and B confirmatory: its p-values are Holm-corrected "
                        "(repeatable; every other comparison is exploratory, Benjamini-Hochberg-corrected)")
    p.add_argument("--confirmatory-vs", metavar="BASELINE",
                   help="declare every method's comparison with BASELINE confirmatory")


def add_report_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``srbf analyze``, ``srbf compare`` and ``srbf ranks`` on the top-level parser."""
    p = commands.add_parser("analyze", help="write the report: index.md with figures, and CSV tables")
    _common(p)
    p.add_argument("-o", "--output", default="report", metavar="DIR", help="report directory (default: report)")
    p.add_argument("--metric", action="append", metavar="M",
                   help="a metric to show (repeatable; default: the headline metrics, nrr_validation first)")
    reading_options(p)
    timing_option(p)
    p.add_argument("--show-incomplete", action="store_true",
                   help="also show values of budgets where some problem has no finished draw (flagged)")
    p.add_argument("--format", metavar="LIST",
                   help="figure formats, comma-separated among png, pdf, svg (default: png)")
    p.add_argument("--dpi", metavar="N",
                   help="figure resolution in dots per inch (default: 200)")
    _families(p)
    p.set_defaults(run=_analyze)

    p = commands.add_parser("compare", help="paired comparison of two methods: Δ, interval, margin, verdict")
    p.add_argument("method_a", metavar="A", help="a method")
    p.add_argument("method_b", metavar="B", help="the method A is compared with (Δ = A − B)")
    _common(p)
    p.add_argument("--metric", action="append", metavar="M",
                   help="a metric (repeatable; default: the headline metrics that have verdicts)")
    reading_options(p, "the verdicts")
    timing_option(p)
    _families(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=_compare)

    p = commands.add_parser("ranks", help="mean ranks, Friedman test, critical difference and groups")
    _common(p)
    p.add_argument("--metric", metavar="M", help="the ranked metric (default: log10_fvu_validation)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--at-seconds", action="append", type=_positive_float, metavar="T",
                       help="a time mark in seconds (repeatable; default: 1, 10, 100, 1000)")
    where.add_argument("--budget", type=float, metavar="B", help="rank at this budget instead (same budget for all)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=_ranks)
