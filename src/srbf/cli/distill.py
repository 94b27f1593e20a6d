"""The ``srbf distill`` commands: a compact core from probe records, its probes, its validation
(docs/distill.md).

Thin: ``srbf.distill`` (NumPy, pandas, SciPy, the arena's evaluation, matplotlib) is imported inside
each command, so building the parser loads none of it. Bad input is one line on stderr and exit
status 2.
"""

from __future__ import annotations

import argparse

from srbf.cli.args import UserError, positive_int, seed_value
from srbf.cli.store_args import add_config_flag, add_configs_flag, configs_choice, results_root


def _probe_list(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if len(names) < 2 or len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"expected at least two distinct method names joined by commas, got {text!r}")
    return names


def _records(args: argparse.Namespace):
    """The probe records (``--records DIR``, else the store of ``-c CONFIG``: ``store_args``), of
    the configurations ``--configs`` chooses; the line naming what was set aside goes to stderr."""
    import sys

    from srbf.distill import load_records

    if args.results is None and args.config is None:
        raise UserError("give the probe records: --records DIR (or -c CONFIG, whose results: they are)")
    records = load_records(results_root(args), condition=args.condition, configs=configs_choice(args))
    if records.configs_note:
        print(f"srbf: note: {records.configs_note}", file=sys.stderr)
    return records


def _distill(args: argparse.Namespace) -> int:
    if (args.results is None and args.config is None) or args.size is None:
        raise UserError("srbf distill needs --records DIR and --size N (or a subcommand: probes, validate)")
    from srbf.distill import distill_core

    result = distill_core(results_root(args), args.size, args.output, probes=args.probes,
                          min_paradigms=args.min_paradigms, condition=args.condition, starts=args.starts,
                          seed=args.seed, records=_records(args))  # fmt: skip
    t = result.terms
    how = "given" if result.panel is None else f"chosen by calibration usability, U = {float(result.panel.best):.6f}"
    print(f"wrote {result.path}: {len(result.tasks)} of {result.eligible} eligible tasks ({result.total} in the records)")
    print(f"  probes ({how}): {', '.join(result.probes)}")
    print(f"  J = {t.j:.4f}: Coverage {t.coverage:.4f} (structural {t.structural_coverage:.4f}, response "
          f"{t.response_coverage:.4f}), MeanInfo {t.mean_info:.4f}, Balance {t.balance:.4f}")  # fmt: skip
    print(f"  run it: catalogs: [./{result.path.name}]; check it: srbf distill validate --core {result.path} "
          f"--records {results_root(args)}")  # fmt: skip
    return 0


def _probes(args: argparse.Namespace) -> int:
    from srbf.distill import choose_probes
    from srbf.distill.probes import paradigms_of, usability
    from srbf.report.text import text_table

    records = _records(args)
    scores = usability(records, paradigms_of(records))
    rows = [(s.method, s.paradigm, f"{float(s.q):.4f}", f"{float(s.b):.4f}", f"{float(s.h):.6f}", str(s.h))
            for s in sorted(scores, key=lambda s: (-s.h, s.method))]  # fmt: skip
    print(f"calibration usability (alpha = 1/2, tau = 100) over {scores[0].runs} scheduled runs per method:")
    print(text_table(("method", "paradigm", "q", "b_100", "H", "H (exact)"), rows, right=(2, 3, 4)))
    panel = choose_probes(records, min_paradigms=args.min_paradigms)
    print(f"{panel.feasible} of {panel.total} four-method panels cover >= {args.min_paradigms} paradigms; "
          f"best U = {panel.best} = {float(panel.best):.6f}, {len(panel.optima)} optimum(s):")  # fmt: skip
    for u, members in panel.ranked:
        print(f"  {'*' if u == panel.best else ' '} {float(u):.6f}  {', '.join(members)}")
    return 0


def _validate(args: argparse.Namespace) -> int:
    from srbf.distill import validate_core
    from srbf.distill.validation_files import fidelity_markdown, write_validation

    from srbf.distill.core_file import read_core

    args.condition = read_core(args.core)[2].get("condition")
    validation, probes = validate_core(args.core, results_root(args), draws=args.draws, seed=args.seed,
                                       records=_records(args))  # fmt: skip
    files = write_validation(validation, args.output)
    print(f"fidelity of {args.core} to the full set of {results_root(args)} (probes: {', '.join(probes)}):")
    print(fidelity_markdown(validation), end="")
    print(f"wrote {args.output}: {', '.join(f.name for f in files)}")
    return 0


def add_distill_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``srbf distill`` (and ``probes``, ``validate``) on the top-level parser."""
    p = commands.add_parser("distill", help="a compact core of tasks from probe records, its probes and its validation "
                                            "(docs/distill.md)")  # fmt: skip
    p.add_argument("--records", dest="results", metavar="DIR",
                   help="results store of the probe runs (several methods x 3 repeats)")
    add_config_flag(p)
    add_configs_flag(p)
    p.add_argument("--size", type=positive_int, metavar="N", help="tasks in the core")
    p.add_argument("--probes", type=_probe_list, metavar="A,B,C,D",
                   help="the probe methods (default: chosen by calibration usability)")
    p.add_argument("--min-paradigms", type=positive_int, default=3, metavar="M",
                   help="paradigms a chosen probe panel must cover (default: 3)")
    p.add_argument("--condition", metavar="TEXT", help="the data condition (default: the records' one clean condition)")
    p.add_argument("--starts", type=positive_int, default=8, metavar="S", help="search starts (default: 8)")
    p.add_argument("--seed", type=seed_value, default=0, help="seed of the random starts (default: 0)")
    p.add_argument("-o", "--output", default="core.yaml", metavar="FILE", help="the core catalog (default: core.yaml)")
    p.set_defaults(run=_distill)
    sub = p.add_subparsers(dest="distill_command", metavar="COMMAND")
    q = sub.add_parser("probes", help="calibration usability of every recorded method and the best probe panels")
    q.add_argument("--records", dest="results", metavar="DIR", help="results store of the runs (scored: srbf score)")
    add_config_flag(q)
    add_configs_flag(q)
    q.add_argument("--min-paradigms", type=positive_int, default=3, metavar="M", help="paradigms a panel must cover")
    q.add_argument("--condition", metavar="TEXT", help="the data condition (default: the one clean condition)")
    q.set_defaults(run=_probes)
    v = sub.add_parser("validate", help="fidelity of a core to the full set, against six alternative selectors")
    v.add_argument("--core", metavar="FILE", required=True, help="a core written by srbf distill")
    v.add_argument("--records", dest="results", metavar="DIR", help="results store with the full set's runs")
    add_config_flag(v)
    add_configs_flag(v)
    v.add_argument("--draws", type=positive_int, default=100, metavar="N", help="draws per random selector (default: 100)")
    v.add_argument("--seed", type=seed_value, default=0, help="seed of the random selectors (default: 0)")
    v.add_argument("-o", "--output", default="distill-validation", metavar="DIR",
                   help="output directory (default: distill-validation)")
    v.set_defaults(run=_validate)
