"""The method commands of the ``srbf`` CLI: ``srbf methods list | install | lock | check | new``.

Thin: the roster is ``srbf.methods.roster``, where environments live ``srbf.methods.envs``,
installing one ``srbf.methods.install``, its lock ``srbf.methods.lockfile``, checking one
``srbf.methods.doctor`` (``methods doctor`` is the old name of ``methods check``), a new
method's files ``srbf.methods.scaffold`` (``srbf new`` is the short name of ``methods new``).
Exit status 0 when everything asked for worked (an install whose method still misses a program it
runs on, PySR's Julia, says what and how to provide it, and exits 0: the environment is there),
1 when an install or a check failed, 2 for a
user error (unknown method, licence not accepted).
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from srbf.cli.args import UserError


def _select(names: list[str]):
    """The roster methods ``names`` name (``all``: every one), each once, in the order given."""
    from srbf.methods import roster

    try:
        chosen = [spec for name in names for spec in roster.select(name)]
    except roster.UnknownMethod as exc:
        raise UserError(str(exc)) from None
    return list({spec.name: spec for spec in chosen}.values())


def method_rows() -> list[dict]:
    """One row per roster method: what ``srbf methods list`` shows."""
    from srbf.methods import envs, roster

    rows = []
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    for spec in roster.ROSTER.values():
        manifest = envs.read_manifest(spec.name)
        installed = manifest is not None and envs.env_python(spec.name).exists()
        lock = spec.lock_path(python)
        rows.append({
            "name": spec.name,
            "package": spec.package,
            "version": spec.version,
            "installed": installed,
            "installed_version": manifest.get("installed_version") if installed else None,
            "python": str(envs.env_python(spec.name)) if installed else None,
            "install_seconds": manifest.get("install_seconds") if installed else None,
            "lock": str(lock) if lock.is_file() else None,  # the committed lock for srbf's Python
            "lock_hash": manifest.get("lock_hash") if installed else None,  # the one the env was installed from
            "disk_bytes": manifest.get("disk_bytes") if installed else None,
            "config_provenance": spec.config_provenance,
            "configs": [{"name": name, "config_provenance": spec.provenance_of(name)} for name in spec.config_names()],
            "paradigm": spec.paradigm,
            "budget_knob": spec.budget_knob,
            "trajectory": spec.trajectory,
            "adapter": spec.adapter_path.is_file(),
            "licence": spec.licence is not None,
            "needs": list(spec.needs),
            "notes": spec.notes,
        })
    return rows


def _list(args: argparse.Namespace) -> int:
    from srbf.methods import envs

    from srbf.methods.builtin import BUILTIN_PARADIGMS

    rows = method_rows()
    builtins = [{"name": name, "paradigm": paradigm} for name, paradigm in BUILTIN_PARADIGMS.items()]
    if args.json:
        print(json.dumps({"envs_dir": str(envs.envs_dir()), "methods": rows, "builtins": builtins}, indent=2))
        return 0
    from srbf.report.text import text_table

    header = ("method", "paradigm", "package", "pinned", "installed", "configurations", "budget knob", "trajectory")
    table = []
    for r in rows:
        installed = r["installed_version"] or "yes" if r["installed"] else "no"
        table.append((r["name"], r["paradigm"], r["package"], r["version"], installed,
                      ", ".join(c["name"] for c in r["configs"]), r["budget_knob"], r["trajectory"]))  # fmt: skip
    print(text_table(header, table, header_rule=False))
    print("built-in (srbf's own, no environment): " + ", ".join(f"{b['name']} ({b['paradigm']})" for b in builtins))
    print(f"environments: {envs.envs_dir()}  (srbf methods install NAME; a config uses python: env:NAME)")
    print("configurations: the first is what `method: NAME` runs; `{name: LABEL, adapter: NAME, config: CONFIG}` "
          "runs another (docs/methods.md)")
    missing = [r["name"] for r in rows if not r["adapter"]]
    if missing:
        print(f"no adapter file yet: {', '.join(missing)}")
    return 0


def _install(args: argparse.Namespace) -> int:
    from srbf.methods.envs import EnvError
    from srbf.methods.install import InstallError, LicenceNotAccepted, install

    specs = _select(args.names)
    failed, refused, waiting = [], [], []
    for spec in specs:
        try:
            install(spec, force=args.force, accept_licence=args.accept_licence, base_python=args.python,
                    latest=args.latest)
            if not _ready_to_run(spec):
                waiting.append(spec.name)
        except LicenceNotAccepted as exc:
            print(f"srbf: {exc}", file=sys.stderr)
            refused.append(spec.name)
        except InstallError as exc:
            print(f"srbf: install failed: {exc}", file=sys.stderr)
            failed.append(spec.name)
        except EnvError as exc:
            raise UserError(str(exc)) from None
    if len(specs) > 1:
        ok = len(specs) - len(failed) - len(refused)
        print(f"{ok} of {len(specs)} installed" + (f"; failed: {', '.join(failed)}" if failed else "")
              + (f"; licence not accepted: {', '.join(refused)}" if refused else "")
              + (f"; installed but missing what they run on: {', '.join(waiting)}" if waiting else ""))  # fmt: skip
    if refused and not failed and len(specs) == 1:
        return 2
    return 1 if failed or refused else 0


def _ready_to_run(spec) -> bool:
    """After an install: the doctor's pre-check (``doctor.precheck``), each thing still missing on
    a line with how to provide it; whether nothing is."""
    from srbf.methods.doctor import precheck

    missing = precheck(spec)
    if not missing:
        print(f"[{spec.name}] ready: `srbf methods check {spec.name}` fits a toy problem with it")
        return True
    print(f"[{spec.name}] installed, but it cannot run yet:")
    for line in missing:
        print(f"    {line}")
    print(f"[{spec.name}] once provided, `srbf methods check {spec.name}` fits a toy problem with it")
    return False


def _lock(args: argparse.Namespace) -> int:
    """Resolve each method's lock afresh with uv and write it where the package reads it."""
    from srbf.methods import lockfile

    uv = lockfile.find_uv()
    if uv is None:
        raise UserError("srbf methods lock needs uv on PATH (pip cannot write a lock with hashes); "
                          "install it with `pip install uv`")  # fmt: skip
    from srbf.methods.interpreters import admits

    for python in args.python_version or []:
        if not re.fullmatch(r"3\.\d+", python):
            raise UserError(f"--python-version {python!r}: write a Python version as X.Y, e.g. 3.12")
    failed = []
    for spec in _select(args.names):
        for python in args.python_version or [_lock_python(spec)]:
            if spec.python and not admits(spec.python, python):
                print(f"{spec.name}: no lock for Python {python}: it needs Python {spec.python} (its method.yaml)")
                continue
            path = spec.lock_path(python)
            try:
                text = lockfile.compile_lock(spec, python, uv)
            except lockfile.LockError as exc:
                print(f"srbf: {exc}", file=sys.stderr)
                failed.append(f"{spec.name} (Python {python})")
                continue
            new = lockfile.parse_lock(text)
            try:
                old = lockfile.parse_lock(path.read_text(encoding="utf-8"), str(path)) if path.is_file() else {}
            except lockfile.LockError as exc:
                print(f"{spec.name}: replacing a lock that does not read ({exc})")
                old = {}
            diff = lockfile.diff_packages(lockfile.versions(old), lockfile.versions(new))
            if path.is_file() and path.read_text(encoding="utf-8") == text:
                print(f"{spec.name}: {path.name} unchanged ({len(new)} packages)")
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            changes = f"{len(diff.lines())} changed" if old else "new"
            print(f"{spec.name}: wrote {path} ({len(new)} packages; {changes})")
            for line in diff.lines() if old else []:
                print(f"    {line}")
    if failed:
        print(f"could not lock: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


def _lock_python(spec) -> str:
    """The Python a lock is made for by default: srbf's own, or the lowest the method admits above it."""
    from srbf.methods.interpreters import admits

    own = sys.version_info[1]
    if not spec.python:
        return f"3.{own}"
    return next((f"3.{minor}" for minor in range(own, own + 10) if admits(spec.python, f"3.{minor}")), f"3.{own}")


def _doctor(args: argparse.Namespace) -> int:
    from srbf.methods.doctor import doctor

    specs = _select(args.names)
    reports = []
    for spec in specs:
        report = doctor(spec, time_limit=args.time_limit, budget=args.budget)
        reports.append(report)
        if not args.json:
            for line in report.lines():
                print(line)
            print(f"{spec.name}: {'OK' if report.ok else 'NOT OK'}")
    if args.json:
        from dataclasses import asdict

        print(json.dumps([{**asdict(r), "ok": r.ok} for r in reports], indent=2, default=str))
    elif len(reports) > 1:
        good = [r.name for r in reports if r.ok]
        print(f"{len(good)} of {len(reports)} methods OK" + (f": {', '.join(good)}" if good else ""))
    return 0 if all(r.ok for r in reports) else 1


def _new(args: argparse.Namespace) -> int:
    from srbf.methods.scaffold import write_method

    paths = write_method(args.name, args.output, python=args.python, force=args.force)
    for path in paths:
        print(f"wrote {path}")
    config = paths[1]
    print(f"next: srbf check -c {config}   then   python -m pytest {paths[2]}   then   srbf run -c {config}")
    return 0


def add_new_command(commands: argparse._SubParsersAction, note: str = "") -> None:
    """``new``: under ``srbf methods``, and as the short ``srbf new`` on the top-level parser."""
    p = commands.add_parser("new", help="write a working method skeleton, its config and its test" + note)
    p.add_argument("name", help="the method's name (letters, digits, _)")
    p.add_argument("--python", metavar="PATH", help="interpreter the method runs under (needs NumPy, not srbf)")
    p.add_argument("-o", "--output", "--dir", dest="output", metavar="DIR", default=".",
                   help="the folder to write the three files into (default: here; --dir is an old name)")
    p.add_argument("--force", action="store_true", help="overwrite existing files")
    p.set_defaults(run=_new)


def _number(text: str):
    value = float(text)
    return int(value) if value.is_integer() else value


def add_method_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``srbf methods ...`` on the top-level ``srbf`` parser."""
    methods = commands.add_parser("methods", help="the SR method roster: list, install into own environments "
                                  "from their locks, lock, check; new writes a method of your own")  # fmt: skip
    sub = methods.add_subparsers(dest="methods_command", metavar="ACTION")
    sub.required = True

    p = sub.add_parser("list", help="every roster method: package, pinned version, installed?, provenance, budget knob")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=_list)

    p = sub.add_parser("install", help="create a method's own environment and install its committed lock there")
    p.add_argument("names", nargs="+", metavar="NAME|all", help="roster methods, or all")
    p.add_argument("--accept-licence", "--accept-license", dest="accept_licence", action="store_true",
                   help="accept the licence notice a method shows (qlattice)")  # fmt: skip
    p.add_argument("--force", action="store_true", help="rebuild the environment even if it is installed")
    p.add_argument("--python", help="the interpreter that creates the venv (default: the one running srbf)")
    p.add_argument("--latest", action="store_true",
                   help="resolve afresh, ignoring the committed lock, and show what changed against it (rebuilds)")  # fmt: skip
    p.set_defaults(run=_install)

    p = sub.add_parser("lock", help="resolve a method's environment afresh with uv and rewrite its committed lock")
    p.add_argument("names", nargs="+", metavar="NAME|all", help="roster methods, or all")
    p.add_argument("--python-version", nargs="+", metavar="X.Y",
                   help="the Python versions to lock for (default: the one running srbf)")  # fmt: skip
    p.set_defaults(run=_lock)

    p = sub.add_parser("check", aliases=["doctor"],  # doctor: the old name
                       help="import a method in its environment and fit a toy problem through the worker")
    p.add_argument("names", nargs="+", metavar="NAME|all", help="roster methods, or all")
    p.add_argument("--time-limit", type=float, default=300.0, help="seconds for the import and for the toy fit (default 300)")
    p.add_argument("--budget", type=_number, help="budget of the toy fit (default: the first rung of its config's ladder, else 1)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=_doctor)

    add_new_command(sub)
