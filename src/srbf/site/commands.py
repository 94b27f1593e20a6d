"""``srbf site build`` and ``srbf site serve``: the parser entries of the results explorer.

Thin: the heavy parts (pandas, the analysis) are imported inside the command functions, so
``srbf --help`` stays instant. Bad input is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a port number 0-65535, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number 0-65535, got {text}")
    return value


def _refused(error: Exception) -> int:
    print(f"srbf: error: {error}", file=sys.stderr)
    return 2


def _build(args: argparse.Namespace) -> int:
    from srbf.report.data import DEFAULT_RESULTS, confirmatory_pairs
    from srbf.site.build import build_site
    from srbf.site.load import load_results
    from srbf.stats import DECLARED_TIMES

    source = str(args.results or DEFAULT_RESULTS)
    notes: list[str] = []
    try:
        frame = load_results(source, args.condition or (), notes)
        for note in notes:
            print(f"srbf: note: {note}", file=sys.stderr)
        pairs = confirmatory_pairs(frame, args.confirmatory or (), args.confirmatory_vs)
        site = build_site(frame, args.output, metrics=args.metric, times=args.at_seconds or DECLARED_TIMES,
                          statistic=args.statistic, confirmatory=pairs, source=source, per_set=not args.no_per_set)
    except ValueError as error:  # ReportInputError and srbf.stats' refusals of a frame: one line
        return _refused(error)
    print(f"wrote {site.index} ({len(site.data_files)} data files, {site.data_bytes / 1e6:.2f} MB of data)")
    print(f"look at it: srbf site serve {args.output}  (or open {site.index} in a browser)")
    return 0


def _serve(args: argparse.Namespace) -> int:
    from srbf.site.serve import SiteError, serve

    try:
        serve(args.folder, args.port, args.host)
    except SiteError as error:
        return _refused(error)
    return 0


def add_parser(subcommands: argparse._SubParsersAction) -> None:
    """Register ``srbf site build`` and ``srbf site serve``."""
    from srbf.report.commands import _method_pair, _positive_float

    site = subcommands.add_parser("site", help="the results explorer: a static site built from the analysis")
    sub = site.add_subparsers(dest="site_command", required=True, metavar="COMMAND")
    p = sub.add_parser("build", help="write the explorer (index.html, data, plotly.js) into a folder")
    p.add_argument("--results", metavar="DIR", help="results store (default: ./srbf-results)")
    p.add_argument("--condition", action="append", metavar="TEXT",
                   help="a data condition to include, e.g. 'n_support=512;noise=0' (repeatable; default: all)")
    p.add_argument("-o", "--output", default="site", metavar="DIR", help="site folder (default: site)")
    p.add_argument("--metric", action="append", metavar="M",
                   help="a metric to show (repeatable; default: the headline metrics, as srbf analyze)")
    p.add_argument("--at-seconds", action="append", type=_positive_float, metavar="T",
                   help="a declared time mark in seconds (repeatable; default: 1, 10, 100, 1000)")
    p.add_argument("--statistic", choices=("meta", "bootstrap"), default="meta",
                   help="meta: sets combined with random-effects weights (default); bootstrap: expression-level")
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
