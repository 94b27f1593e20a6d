"""The catalog commands of the ``srbf`` CLI: ``catalogs list | show | validate | duplicates | import`` and ``sample``.

Thin: the sets are ``srbf.catalogs.loader``, their admission ``srbf.catalogs.admission``, the
reference-format importer ``srbf.catalogs.importer``, sampling ``srbf.catalogs.sampling``; each is
imported inside its command, so building the parser loads none of them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from srbf.cli.args import non_negative_float, positive_int, seed_value

__all__ = ["add_catalog_commands"]


def _catalogs_list(args: argparse.Namespace) -> int:
    from srbf.catalogs.loader import catalog_info, list_catalogs, load_catalog
    from srbf.report.text import text_table

    rows = []
    for name in list_catalogs():
        catalog = load_catalog(name, admit=False)
        info = catalog_info(catalog)
        inputs = [len(e.variables) for e in catalog.entries]
        info["min_inputs"] = min(inputs, default=0)
        rows.append(info)
    if args.json:
        total = sum(r["problems"] for r in rows)
        print(json.dumps({"sets": len(rows), "formulas": total, "catalogs": rows}, indent=2))
        return 0
    table = []
    for r in rows:
        inputs = f"{r['min_inputs']}-{r['max_inputs']}" if r["min_inputs"] != r["max_inputs"] else str(r["max_inputs"])
        source = (r["sources"][0] if r["sources"] else r["description"]).replace("\n", " ")
        table.append((r["name"], r["version"], r["problems"], inputs, source[:70]))
    print(text_table(("catalog", "version", "formulas", "inputs", "source"), table, right=(1, 2, 3), header_rule=False))
    print(f"{len(rows)} sets, {sum(r['problems'] for r in rows)} formulas")
    return 0


def _entry_dict(entry) -> dict:
    from srbf.core import to_plain

    return {
        "id": entry.id,
        "formula": entry.formula,
        "target": entry.target,
        "variables": [
            {"name": v.name, "range": [v.low, v.high], "distribution": v.distribution, "sign": v.sign}
            for v in entry.variables
        ],
        "sources": list(entry.sources),
        "meta": to_plain(entry.meta),
    }


def _catalogs_show(args: argparse.Namespace) -> int:
    from srbf.catalogs.loader import catalog_info, load_catalog

    catalog = load_catalog(args.name)
    if args.problem_id is not None:
        entry = catalog.entry(args.problem_id)
        if args.json:
            print(json.dumps(_entry_dict(entry), indent=2))
            return 0
        print(f"{catalog.name} / {entry.id}")
        print(f"  {entry.target} = {entry.formula}")
        for v in entry.variables:
            print(f"  {v.name:<12} [{v.low:g}, {v.high:g}]  {v.distribution}, sign: {v.sign}")
        for source in entry.sources:
            print(f"  source: {source}")
        return 0
    info = catalog_info(catalog)
    if args.json:
        info["problems"] = [_entry_dict(e) for e in catalog.entries]
        print(json.dumps(info, indent=2))
        return 0
    print(f"{info['name']} v{info['version']}: {info['problems']} formulas (hash {info['content_hash'][:12]})")
    print(f"  {info['description']}")
    for source in info["sources"]:
        print(f"  source: {source}")
    if info["license"]:
        print(f"  license: {info['license']}")
    for entry in catalog.entries:
        print(f"  {entry.id:<22} {entry.target} = {entry.formula}")
    return 0


def _catalogs_check(args: argparse.Namespace) -> int:
    from srbf.catalogs.admission import validate_catalog
    from srbf.catalogs.loader import list_catalogs

    names = args.catalogs or list_catalogs()
    reports = [validate_catalog(name) for name in names]
    total = sum(len(r.results) for r in reports)
    placeholders = sum(len(r.placeholders) for r in reports)
    failed = any(r.rejected for r in reports)
    if args.json:
        print(json.dumps({
            "ok": not failed, "catalogs": len(reports), "formulas": total, "placeholders": placeholders,
            "reports": [{"catalog": r.catalog, "ok": len(r.ok),
                         "entries": [{"id": a.problem_id, "status": a.status, "reasons": list(a.reasons),
                                      "finite_fraction": a.finite_fraction} for a in r.results if a.status != "ok"]}
                        for r in reports],
        }, indent=2))
        return 1 if failed else 0
    for report in reports:
        print(report.summary())
    print(f"{len(names)} catalog(s), {total} formulas: {'FAILED' if failed else 'all admitted'}; {placeholders} placeholder(s)")
    return 1 if failed else 0


def _catalogs_import(args: argparse.Namespace) -> int:
    from srbf import __version__
    from srbf.catalogs.importer import import_reference_catalog, write_catalog
    from srbf.catalogs.loader import catalog_from_dict

    document = import_reference_catalog(args.file)
    catalog_from_dict(document, label=str(args.file))  # refuse to write a catalog srbf cannot load
    out = Path(args.output or f"{document['name']}.yaml")
    write_catalog(document, out, header=f"Imported by srbf {__version__} from {args.file}")
    print(f"wrote {out} ({len(document['problems'])} formulas)")
    return 0


def _catalogs_duplicates(args: argparse.Namespace) -> int:
    from srbf.catalogs.loader import list_catalogs
    from srbf.distill.duplicates import RULE, duplicate_groups

    names = args.catalogs or list_catalogs()
    groups = duplicate_groups(names, limit=args.limit)
    shared = [g for g in groups if len(g.members) > 1]
    formulas = sum(len(g.members) for g in groups)
    if args.json:
        print(json.dumps({"rule": RULE, "catalogs": names, "formulas": formulas, "groups": len(groups),
                          "duplicate_groups": [{"group": g.group, "key": g.key, "members": list(g.members)}
                                               for g in shared]}, indent=2))  # fmt: skip
        return 0
    print(f"rule: {RULE}")
    for g in shared:
        print(f"{g.group}  {g.key}")
        print(f"  {', '.join(g.members)}")
    print(f"{formulas} formulas in {len(names)} set(s): {len(groups)} groups, {len(shared)} with more than one "
          f"member ({sum(len(g.members) for g in shared)} formulas)")  # fmt: skip
    return 0


def _sample(args: argparse.Namespace) -> int:
    from srbf.catalogs.loader import load_catalog
    from srbf.catalogs.sampling import sample_problem, save_problem_npz

    catalog = load_catalog(args.catalog)
    entry = catalog.entry(args.problem_id)
    problem = sample_problem(
        entry,
        catalog=catalog.name,
        catalog_version=catalog.version,
        seed=args.seed,
        draw=args.draw,
        n_support=args.n_support,
        n_validation=args.n_validation,
        noise=args.noise,
        ood=args.ood,
    )
    if getattr(problem, "ood_reason", None):
        print(f"srbf: note: no out-of-range points: {problem.ood_reason}", file=sys.stderr)
    if problem.placeholder_reason is not None:
        print(f"srbf: {catalog.name}/{entry.id} cannot be sampled: {problem.placeholder_reason}", file=sys.stderr)
        return 1
    save_problem_npz(problem, args.output)
    print(f"wrote {args.output}: {catalog.name}/{entry.id}, {len(problem.y_support)} support + "
          f"{len(problem.y_validation)} validation points, hash {problem.data_hash[:12]}")
    return 0


def add_catalog_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``srbf catalogs ...`` and ``srbf sample`` on the top-level parser."""
    catalogs = commands.add_parser("catalogs", help="list, show, check and import problem sets")
    sub = catalogs.add_subparsers(dest="catalogs_command", metavar="ACTION")
    sub.required = True
    p = sub.add_parser("list", help="every shipped set with its formula count, input counts and source")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=_catalogs_list)
    p = sub.add_parser("show", help="one set, or one of its formulas")
    p.add_argument("name", help="a shipped catalog name or a path to a catalog file")
    p.add_argument("problem_id", nargs="?", help="a problem id within the set")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=_catalogs_show)
    p = sub.add_parser("check", aliases=["validate"],  # validate: the old name
                       help="admission report; exit status 1 if any entry is rejected")
    p.add_argument("catalogs", nargs="*", metavar="NAME|PATH", help="catalogs to check (default: all shipped)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=_catalogs_check)
    p = sub.add_parser("duplicates", help="formulas that are one task up to constants and variable names, within "
                                          "and across sets (docs/distill.md)")  # fmt: skip
    p.add_argument("catalogs", nargs="*", metavar="SET", help="shipped names or catalog files (default: all shipped)")
    p.add_argument("--limit", type=positive_int, metavar="N", help="only the first N problems of each set")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=_catalogs_duplicates)
    p = sub.add_parser("import", help="convert a catalog in the reference data layer's YAML format to srbf's")
    p.add_argument("file", help="reference-format YAML file")
    p.add_argument("-o", "--output", metavar="FILE", help="where to write (default: NAME.yaml in the current directory)")
    p.set_defaults(run=_catalogs_import)

    p = commands.add_parser("sample", help="draw one problem's points and write them to an .npz file")
    p.add_argument("catalog", help="a shipped catalog name or a path to a catalog file")
    p.add_argument("problem_id", help="a problem id within the set")
    p.add_argument("--seed", type=seed_value, default=0, help="run seed (default 0)")
    p.add_argument("--draw", type=int, default=0, help="draw index (default 0)")
    p.add_argument("--n-support", type=positive_int, default=512, help="support points (default 512)")
    p.add_argument("--n-validation", type=positive_int, default=512, help="validation points (default 512)")
    p.add_argument("--noise", type=non_negative_float, default=0.0, help="relative Gaussian label noise on support targets")
    p.add_argument("--ood", action="store_true", help="also draw out-of-range points (X_ood, y_ood)")
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="output .npz file")
    p.set_defaults(run=_sample)
