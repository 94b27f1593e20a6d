"""``srbf audit size (--max-nodes N | --method NAME) [SET ...] [--json]``: the formulas a size
limit cannot represent, per set (``srbf.protocol.sizes``)."""

from __future__ import annotations

import argparse
import json

from srbf.cli.args import UserError, positive_int

__all__ = ["add_audit_commands"]


def _audit_size(args: argparse.Namespace) -> int:
    from srbf.catalogs.loader import list_catalogs, load_catalog
    from srbf.protocol import AuditError, audit_catalog, nodes_rule, rule_for

    if (args.max_nodes is None) == (args.method is None):
        raise UserError("audit size: give exactly one of --max-nodes N and --method NAME")
    try:
        rule = nodes_rule(args.max_nodes) if args.method is None else rule_for(args.method)
    except AuditError as error:
        raise UserError(f"audit size: --method: {error}") from None
    audits = [audit_catalog(load_catalog(name), rule) for name in (args.sets or list_catalogs())]
    if args.json:
        print(json.dumps([audit.to_dict() for audit in audits], indent=2))
        return 0
    depth = f", depth at most {rule.max_depth}" if rule.max_depth else ""
    limit = f"{rule.option} {rule.max_size}{depth}" if rule.max_size is not None else "no size limit"
    print(f"{rule.method}: {limit}; counted as {rule.counting}")
    print(f"source: {rule.source}")
    for audit in audits:
        total, over = len(audit.sizes), len(audit.over)
        print(f"{audit.name}: {over} of {total} formulas ({100 * over / total:.1f} %) cannot be represented; largest {audit.largest} nodes")
        for pid, size, deep, formula in audit.over:
            shown = formula if len(formula) <= 70 else formula[:67] + "..."
            print(f"  {size:4d} nodes  depth {deep:2d}  {pid:<12} {shown}")
    if len(audits) > 1:
        total, over = sum(len(a.sizes) for a in audits), sum(len(a.over) for a in audits)
        print(f"all {len(audits)} sets: {over} of {total} formulas ({100 * over / total:.1f} %) cannot be represented")
    return 0


def add_audit_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``srbf audit size`` on the top-level parser."""
    audit = commands.add_parser("audit", help="what a method's defaults cost on the benchmark sets")
    sub = audit.add_subparsers(dest="audit_command", metavar="ACTION")
    sub.required = True
    p = sub.add_parser("size", help="the formulas a size limit cannot represent, per set")
    p.add_argument("sets", nargs="*", metavar="SET", help="sets to audit (names or files; default: every shipped set)")
    p.add_argument("--max-nodes", type=positive_int, metavar="N", help="a plain cap of N nodes, counted as written")
    p.add_argument("--method", metavar="NAME", help="a method's default limit, counted its way (pysr, operon, gplearn, eggp, symregg)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=_audit_size)
