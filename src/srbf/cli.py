"""The ``srbf`` command. Thin: it parses arguments and delegates to the packages.

Every user error (unknown catalog, malformed file, formula that does not parse) ends in one line
on stderr and exit status 2; a failed validation exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from srbf.core import SrbfError
from srbf import __version__
from srbf.cli_args import non_negative_float, positive_int


class UserError(SrbfError):
    """An error in what the user asked for; printed as one line, exit status 2."""


def _catalogs_list(args: argparse.Namespace) -> int:
    from srbf.catalogs.loader import catalog_info, list_catalogs, load_catalog

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
    print(f"{'catalog':<18} {'version':>7} {'formulas':>8} {'inputs':>7}  source")
    for r in rows:
        inputs = f"{r['min_inputs']}-{r['max_inputs']}" if r["min_inputs"] != r["max_inputs"] else str(r["max_inputs"])
        source = (r["sources"][0] if r["sources"] else r["description"]).replace("\n", " ")
        print(f"{r['name']:<18} {r['version']:>7} {r['problems']:>8} {inputs:>7}  {source[:70]}")
    print(f"{len(rows)} sets, {sum(r['problems'] for r in rows)} formulas")
    return 0


def _entry_dict(entry) -> dict:
    return {
        "id": entry.id,
        "formula": entry.formula,
        "target": entry.target,
        "variables": [
            {"name": v.name, "range": [v.low, v.high], "distribution": v.distribution, "sign": v.sign}
            for v in entry.variables
        ],
        "sources": list(entry.sources),
        "meta": json.loads(json.dumps(_plain(entry.meta))),
    }


def _plain(value):
    if hasattr(value, "items"):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _catalogs_show(args: argparse.Namespace) -> int:
    from srbf.catalogs.loader import catalog_info, load_catalog

    catalog = load_catalog(args.name)
    if args.problem_id is not None:
        try:
            entry = catalog.entry(args.problem_id)
        except KeyError as error:
            raise UserError(error.args[0]) from None
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


def _catalogs_validate(args: argparse.Namespace) -> int:
    from srbf.catalogs.admission import validate_catalog
    from srbf.catalogs.loader import list_catalogs

    names = args.catalogs or list_catalogs()
    failed = False
    total = placeholders = 0
    for name in names:
        report = validate_catalog(name)
        print(report.summary())
        total += len(report.ok) + len(report.placeholders) + len(report.rejected)
        placeholders += len(report.placeholders)
        failed |= bool(report.rejected)
    print(f"{len(names)} catalog(s), {total} formulas: {'FAILED' if failed else 'all admitted'}; {placeholders} placeholder(s)")
    return 1 if failed else 0


def _catalogs_import(args: argparse.Namespace) -> int:
    from srbf.catalogs.importer import import_reference_catalog, write_catalog
    from srbf.catalogs.loader import catalog_from_dict

    document = import_reference_catalog(args.file)
    catalog_from_dict(document, label=str(args.file))  # refuse to write a catalog srbf cannot load
    out = Path(args.output or f"{document['name']}.yaml")
    write_catalog(document, out, header=f"Imported by srbf {__version__} from {args.file}")
    print(f"wrote {out} ({len(document['problems'])} formulas)")
    return 0


def _sample(args: argparse.Namespace) -> int:
    from srbf.catalogs.loader import load_catalog
    from srbf.catalogs.sampling import sample_problem, save_problem_npz

    catalog = load_catalog(args.catalog)
    try:
        entry = catalog.entry(args.problem_id)
    except KeyError as error:
        raise UserError(error.args[0]) from None
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


def _judge(args: argparse.Namespace) -> int:
    from srbf.judge import JudgeInputError, format_metrics, judge_from_files, jsonable

    try:
        metrics = judge_from_files(args.truth, args.prediction, args.data, variables=args.variables, srbench=args.srbench,
                                   positive=args.positive, target=args.target)  # fmt: skip
    except JudgeInputError as error:
        raise UserError(str(error)) from None
    print(json.dumps(jsonable(metrics), indent=2) if args.json else format_metrics(metrics))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="srbf", description="An open benchmark framework for symbolic regression.")
    parser.add_argument("--version", action="version", version=f"srbf {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    catalogs = commands.add_parser("catalogs", help="list, show, validate and import problem sets")
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
    p = sub.add_parser("validate", help="admission report; exit status 1 if any entry is rejected")
    p.add_argument("catalogs", nargs="*", metavar="NAME|PATH", help="catalogs to check (default: all shipped)")
    p.set_defaults(run=_catalogs_validate)
    p = sub.add_parser("import", help="convert a catalog in the reference data layer's YAML format to srbf's")
    p.add_argument("file", help="reference-format YAML file")
    p.add_argument("-o", "--output", help="where to write (default: NAME.yaml in the current directory)")
    p.set_defaults(run=_catalogs_import)

    p = commands.add_parser("sample", help="draw one problem's points and write them to an .npz file")
    p.add_argument("catalog", help="a shipped catalog name or a path to a catalog file")
    p.add_argument("problem_id", help="a problem id within the set")
    p.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
    p.add_argument("--draw", type=int, default=0, help="draw index (default 0)")
    p.add_argument("--n-support", type=positive_int, default=512, help="support points (default 512)")
    p.add_argument("--n-validation", type=positive_int, default=512, help="validation points (default 512)")
    p.add_argument("--noise", type=non_negative_float, default=0.0, help="relative Gaussian label noise on support targets")
    p.add_argument("--ood", action="store_true", help="also draw out-of-range points (X_ood, y_ood)")
    p.add_argument("-o", "--output", required=True, help="output .npz file")
    p.set_defaults(run=_sample)

    p = commands.add_parser("judge", help="score one predicted formula against the truth on a problem's points")
    p.add_argument("--truth", required=True, help="the ground-truth formula")
    p.add_argument("--prediction", required=True, help="the predicted formula (any spelling the parser reads)")
    p.add_argument("--data", required=True, help=".npz written by `srbf sample` (X_support, y_support, X_validation, y_validation)")
    p.add_argument("--variables", help="comma-separated column names (default: from the file, else x0, x1, ...)")
    p.add_argument("--positive", metavar="NAMES",
                   help="comma-separated variables never negative on the domain ('' for none; default: from the "
                        "file's catalog entry when it names a shipped one, else none)")  # fmt: skip
    p.add_argument("--target", metavar="NAME",
                   help="the output's name: a prediction 'NAME = formula' is scored as the formula ('y = ...' always "
                        "is; default: the file's catalog entry's target when it names a shipped one)")  # fmt: skip
    p.add_argument("--srbench", action="store_true", help="also run SRBench's SymPy symbolic-solution check (slow)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=_judge)

    from srbf.judge.commands import add_score_commands
    from srbf.methods.commands import add_method_commands
    from srbf.report.commands import add_report_commands
    from srbf.runs.commands import add_run_commands
    from srbf.site.commands import add_parser as add_site_commands

    add_run_commands(commands)
    add_method_commands(commands)
    add_score_commands(commands)
    add_report_commands(commands)
    add_site_commands(commands)
    return parser


# Errors of the packages that mean "what you asked for is wrong": one line, exit status 2. Looked up
# only in modules already imported (a command that raised one has imported its module), so the
# CLI does not import pydantic or pandas just to name their classes.
_USER_ERRORS = (
    ("srbf.catalogs.model", "CatalogError"),
    ("srbf.expr.parser", "ParseError"),
    ("srbf.runs.config", "ConfigError"),
    ("srbf.store.errors", "StoreError"),
    ("srbf.methods.envs", "EnvError"),
    ("srbf.judge.data", "JudgeInputError"),
)


def _is_user_error(error: BaseException) -> bool:
    known: list[type] = [UserError, OSError]
    for module, name in _USER_ERRORS:
        loaded = sys.modules.get(module)
        if loaded is not None and hasattr(loaded, name):
            known.append(getattr(loaded, name))
    return isinstance(error, tuple(known))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print("srbf: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        return 0
    except Exception as error:
        if not _is_user_error(error):
            raise
        print(f"srbf: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # python -m srbf.cli: run the imported module, whose error classes the commands raise
    from srbf.cli import main as imported_main

    sys.exit(imported_main())
