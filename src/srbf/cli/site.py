"""The results explorer's commands of the ``srbf`` CLI (site build, site serve).

Thin: ``srbf.site`` (and with it pandas and the analysis) is imported inside each command, so
building the parser loads none of it. Bad input is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys

from srbf.cli.report import _method_pair, _timing, reading_options, timing_option
from srbf.cli.store_args import add_store_flags, configs_choice, results_root


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a port number 0-65535, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number 0-65535, got {text}")
    return value


def _build(args: argparse.Namespace) -> int:
    from srbf.report.data import confirmatory_pairs
    from srbf.site.build import build_site
    from srbf.site.load import load_results

    source = results_root(args)
    notes: list[str] = []
    frame = load_results(source, args.condition or (), notes, configs=configs_choice(args))
    for note in notes:
        print(f"srbf: note: {note}", file=sys.stderr)
    pairs = confirmatory_pairs(frame, args.confirmatory or (), args.confirmatory_vs)
    timing = _timing(args)
    site = build_site(frame, args.output, metrics=args.metric, times=args.at_seconds, at_budget=args.at_budget,
                      statistic=args.statistic, confirmatory=pairs, source=source, per_set=not args.no_per_set,
                      timing=timing, on_reading=lambda chosen: print(f"srbf: {chosen.line}", file=sys.stderr))
    print(f"wrote {site.index} ({len(site.data_files)} data files, {site.data_bytes / 1e6:.2f} MB of data)")
    print(f"look at it: srbf site serve {args.output}  (or open {site.index} in a browser)")
    return 0


def _serve(args: argparse.Namespace) -> int:
    from srbf.site.serve import serve

    serve(args.folder, args.port, args.host)
    return 0


def add_site_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``srbf site build`` and ``srbf site serve`` on the top-level parser."""
    site = commands.add_parser("site", help="the results explorer: a static site built from the analysis")
    sub = site.add_subparsers(dest="site_command", required=True, metavar="COMMAND")
    p = sub.add_parser("build", help="write the explorer (index.html, data, plotly.js) into a folder")
    add_store_flags(p)
    p.add_argument("--condition", action="append", metavar="TEXT",
                   help="a data condition to include, e.g. 'n_support=512;noise=0' (repeatable; default: all)")
    p.add_argument("-o", "--output", default="site", metavar="DIR", help="site folder (default: site)")
    p.add_argument("--metric", action="append", metavar="M",
                   help="a metric to show (repeatable; default: the headline metrics, as srbf analyze)")
    reading_options(p, "the report's reading (the page offers the other one beside it)")
    p.add_argument("--statistic", choices=("meta", "bootstrap"), default="meta",
                   help="meta: sets combined with random-effects weights (default); bootstrap: expression-level")
    timing_option(p)
    p.add_argument("--confirmatory", action="append", type=_method_pair, metavar="A:B",
                   help="declare the comparison of A and B confirmatory (Holm; repeatable)")
    p.add_argument("--confirmatory-vs", metavar="BASELINE", help="declare every comparison with BASELINE confirmatory")
    p.add_argument("--no-per-set", action="store_true",
                   help="analyse all sets together only (the page's set filter then offers no single set)")
    p.set_defaults(run=_build)

    p = sub.add_parser("serve", help="serve a built explorer on localhost")
    p.add_argument("folder", nargs="?", default="site", metavar="DIR", help="site folder (default: site)")
    p.add_argument("--port", type=_port, default=8000, metavar="N", help="port (default: 8000; 0 picks a free one)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)")
    p.set_defaults(run=_serve)
