"""``srbf decontamination -t TRAINING [-b SET ...] [-o report.json] [--json] [--level L]``.

Probes every problem of the benchmark sets against a training source (``srbf.protocol``). Fails
closed: exit status 0 only when every problem is verified as held out, 1 when any is missed or
unverifiable, 2 for bad input (an unknown set, a missing or unreadable file), in one line.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

__all__ = ["add_decontamination_command"]


def _decontamination(args: argparse.Namespace) -> int:
    from srbf.catalogs.loader import list_catalogs, load_catalog
    from srbf.protocol.decontamination import check_catalog
    from srbf.protocol.training import read_training

    catalogs = [load_catalog(name) for name in (args.benchmark or list_catalogs())]  # bad names fail first
    training = read_training(args.training, args.level)
    checks = [check_catalog(catalog, training) for catalog in catalogs]
    passed = all(check.passed for check in checks)
    report = {"training": {"source": training.label, "kind": training.kind, "description": training.description,
                           "entries": training.entries, "unreadable": list(training.unreadable)},
              "level": training.level, "passed": passed, "sets": {c.name: c.to_dict() for c in checks}}
    if args.output:
        Path(args.output).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(report, indent=2))
        return 0 if passed else 1
    print(f"training: {training.label} ({training.kind}, {training.entries} entries"
          f"{f', {len(training.unreadable)} unreadable' if training.unreadable else ''}); skeletons at level {training.level}")
    for check in checks:
        print(f"{check.name}: {check.total} problems, {check.held_out} held out, {len(check.missed)} missed, "
              f"{len(check.unverifiable)} unverifiable")
        if check.missed:
            print(f"  missed: {', '.join(check.missed)}")
        for pid, reason in list(check.unverifiable.items())[:5]:
            print(f"  unverifiable: {pid}: {reason}")
        if len(check.unverifiable) > 5:
            print(f"  ... and {len(check.unverifiable) - 5} more unverifiable (see -o)")
    print("PASS: every problem is verified as held out" if passed else "FAIL: not every problem is verified as held out")
    if args.output:
        print(f"wrote {args.output}")
    return 0 if passed else 1


def add_decontamination_command(commands: argparse._SubParsersAction) -> None:
    """Register ``srbf decontamination`` on the top-level parser."""
    p = commands.add_parser("decontamination", help="check that no benchmark formula is in a method's training data "
                                                    "(exit 0 only when every problem is verified held out)")
    p.add_argument("-t", "--training", required=True, metavar="TRAINING",
                   help="a catalog (shipped name or file) of the training formulas, or a generator description with its holdout list")
    p.add_argument("-b", "--benchmark", nargs="+", metavar="SET", help="benchmark sets (names or files; default: every shipped set)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report as JSON")
    p.add_argument("--json", action="store_true", help="print the report as JSON instead of the summary")
    p.add_argument("--level", choices=("structure", "exponents"), default="structure",
                   help="number masking: every number (structure, the default) or all but exponents")
    p.set_defaults(run=_decontamination)
