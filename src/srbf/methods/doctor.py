"""Checking a roster method's environment: ``srbf methods doctor NAME``.

``doctor(spec)`` imports the package in its environment and fits a two-variable toy problem
through the real ``Worker`` with the method's adapter file, so a passing doctor means a run of the
method will start and srbf can read what it returns. It also says (a note, not a failure) when
the environment was not installed from the lock srbf ships now.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from srbf.methods.envs import MANIFEST, env_dir, env_python, read_manifest, run_captured
from srbf.methods.roster import MethodSpec

TOY_FORMULA = "x0**2 + x1"
TOY_VARIABLES = ("x0", "x1")


def toy_problem(n: int = 200, seed: int = 0):
    """The doctor's problem: y = x0**2 + x1 on x0, x1 uniform in [-2, 2]."""
    import numpy as np

    X = np.random.default_rng(seed).uniform(-2.0, 2.0, size=(n, 2))
    return X, X[:, 0] ** 2 + X[:, 1]


def find_external(program: str, name: str | None = None, variable: str | None = None) -> str | None:
    """``program``: the executable the environment variable ``variable`` names when it is set
    (and None when that is no executable file), else on PATH or in the method's environment (e.g.
    a Julia it installed), else None."""
    if variable and os.environ.get(variable):
        named = os.environ[variable]
        return named if os.path.isfile(named) and os.access(named, os.X_OK) else None
    found = shutil.which(program)
    if found or name is None:
        return found
    root = env_dir(name)
    for candidate in [root / "bin" / program, *root.glob(f"julia_env/**/bin/{program}")]:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


@dataclass
class DoctorReport:
    """What ``doctor`` found. ``problems`` are one line each; ``ok`` means the toy fit ran and read."""

    name: str
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # worth knowing, not a failure
    named: list[str] = field(default_factory=list)  # the problems that name the method themselves (precheck's)
    python: str | None = None
    version: str | None = None
    import_seconds: float | None = None
    status: str | None = None
    expression: str | None = None
    fit_seconds: float | None = None
    setup_seconds: float | None = None
    r2: float | None = None
    error: str | None = None
    budget: Any = None

    @property
    def ok(self) -> bool:
        return not self.problems and self.status == "ok"

    def lines(self) -> list[str]:
        """A short human report: what imported, the toy fit's formula and times, then each problem."""
        out = []
        if self.version is not None:
            out.append(f"{self.name}: {self.version} imports in {self.import_seconds:.1f} s ({self.python})")
        if self.expression is not None:
            out.append(f"{self.name}: toy fit of y = {TOY_FORMULA} (budget {self.budget}): {self.expression}")
            r2 = f", R2 {self.r2:.4f} on the toy points" if self.r2 is not None else ""
            out.append(f"{self.name}: fit {self.fit_seconds:.2f} s (setup {self.setup_seconds or 0:.2f} s){r2}")
        out += [line if line in self.named else f"{self.name}: {line}" for line in self.notes + self.problems]
        return out


def smallest_budget(budgets: Any, default: int = 1) -> Any:
    """The first rung of a config's budget ladder (a number, a list, or {powers_of_two: [a, b]})."""
    if isinstance(budgets, (int, float)) and not isinstance(budgets, bool):
        return budgets
    if isinstance(budgets, list) and budgets and all(isinstance(b, (int, float)) for b in budgets):
        return min(budgets)
    if isinstance(budgets, dict) and isinstance(budgets.get("powers_of_two"), list) and budgets["powers_of_two"]:
        e = budgets["powers_of_two"][0]
        return 2**e if isinstance(e, int) and e >= 0 else default
    return default


def precheck(spec: MethodSpec) -> list[str]:
    """What stops ``spec`` from running, found without starting it (an environment that is not
    installed, an external program that is missing, a licence not accepted): one sentence each,
    naming the method. ``check`` and ``run`` ask this before anything else, ``doctor`` too."""
    name = spec.name
    problems = []
    manifest = read_manifest(name)
    if not env_python(name).exists():
        problems.append(f"{name} is not installed: run srbf methods install {name}")
    elif manifest is None:
        problems.append(f"{name}'s install did not finish ({env_dir(name)} has no {MANIFEST}): "
                        f"run srbf methods install {name} --force")  # fmt: skip
    elif spec.licence and manifest.get("licence_accepted") is False:
        problems.append(f"{name}'s licence was not accepted: run srbf methods install {name} --force --accept-licence")
    for program in spec.needs:
        variable = spec.needs_variables.get(program)
        if find_external(program, name, variable) is None:
            problems.append(missing_program(spec, program, variable))
    return problems


def missing_program(spec: MethodSpec, program: str, variable: str | None) -> str:
    """The one line saying that ``program`` is missing, where srbf looked, why the method needs it
    (``needs_hint``) and how to provide it: every word of it from here and the method.yaml."""
    where = f"`{program}` is not on PATH or in {spec.name}'s environment"
    how = f"put `{program}` on PATH"
    if variable and os.environ.get(variable):
        where = f"{variable}={os.environ[variable]} is not an executable file"
        how = f"set {variable} to the {program.capitalize()} executable, or unset it and put `{program}` on PATH"
    elif variable:
        where += f", and {variable} is not set"
        how += f" or set {variable} to the {program.capitalize()} executable"
    why = f" ({spec.needs_hint})" if spec.needs_hint else ""
    return f"{spec.name} needs {program.capitalize()}: {where}{why}; to provide it, {how}"


def precheck_python(python: str | None) -> list[str]:
    """``precheck`` of the roster environment a config's ``python: env:NAME`` names; [] otherwise."""
    from srbf.methods.envs import env_name, is_env_spec
    from srbf.methods.roster import ROSTER

    if not python or not is_env_spec(python):
        return []
    spec = ROSTER.get(env_name(python))
    return precheck(spec) if spec is not None else []


def doctor(spec: MethodSpec, *, time_limit: float = 300.0, budget: Any = None) -> DoctorReport:
    """Check ``spec``'s environment, external programs and adapter file; import the package there;
    fit the toy problem through the real Worker. Never raises for what it finds: it reports."""
    report = DoctorReport(spec.name)
    python = env_python(spec.name)
    report.named = precheck(spec)
    report.problems += report.named
    ready = not report.problems
    if read_manifest(spec.name) is not None:
        report.notes += lock_notes(spec, read_manifest(spec.name) or {})
    if not spec.adapter_path.is_file():
        report.problems.append(f"adapter file missing: {spec.adapter_path}")
    if ready:  # without its external programs an import may hang (PySR's Julia)
        _probe_import(spec, report, python, time_limit)
    if not report.problems:
        _toy_fit(spec, report, python, time_limit, budget)
    return report


def lock_notes(spec: MethodSpec, manifest: dict[str, Any]) -> list[str]:
    """A line when the environment was not installed from the lock srbf now ships for its Python."""
    from srbf.methods import lockfile

    python = ".".join(str(manifest.get("python", "")).split(".")[:2])
    committed = spec.lock_path(python)
    if not committed.is_file() or manifest.get("lock_hash") == lockfile.lock_hash(committed.read_text("utf-8")):
        return []
    hows = {"latest": "with --latest", "resolved": "from a fresh resolution"}
    how = hows.get(manifest.get("lock_source"), "without a lock")
    return [f"note: installed {how}, not from the shipped lock {spec.name}/{committed.name}; "
            f"`srbf methods install {spec.name} --force` reinstalls from it"]


def _probe_import(spec: MethodSpec, report: DoctorReport, python: Path, time_limit: float) -> None:
    """Import the package in its environment; record its version, or a problem."""
    report.python = str(python)
    t0 = time.monotonic()
    code = f"import importlib.metadata as m, {spec.import_name}; print(m.version({spec.package!r}))"
    try:
        probe = run_captured([str(python), "-c", code], timeout=time_limit)
    except subprocess.TimeoutExpired:
        report.problems.append(f"importing {spec.import_name} took more than {time_limit:g} s")
        return
    report.import_seconds = time.monotonic() - t0
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["(no output)"])[-1]
        report.problems.append(f"cannot import {spec.import_name} in {python}: {last}")
        return
    report.version = probe.stdout.strip().splitlines()[-1] if probe.stdout.strip() else None


def _toy_fit(spec: MethodSpec, report: DoctorReport, python: Path, time_limit: float, budget: Any) -> None:
    import numpy as np

    from srbf.expr import ParseError, compile_expr, parse
    from srbf.methods.worker import Worker, WorkerStartError
    from srbf.core import FitTask, TaskKey

    defaults = spec.config_defaults()  # what a config naming the method runs: its method.yaml
    options = defaults.get("options", {})
    env = {str(k): (None if v is None else str(v)) for k, v in defaults.get("env", {}).items()}
    report.budget = budget if budget is not None else smallest_budget(defaults.get("budgets"))
    X, y = toy_problem()
    key = TaskKey(spec.name, "doctor", "doctor", 1, "toy", 0, report.budget, "n_support=200;noise=0", 0)
    task = FitTask(key, X, y, TOY_VARIABLES, options=dict(options), time_limit=time_limit)
    try:
        with Worker(spec.adapter_path, python=python, options=options, env=env, start_timeout=time_limit) as worker:
            result = worker.fit(task)
            report.setup_seconds = worker.info.get("setup_seconds")
    except WorkerStartError as exc:
        report.problems.append(f"the adapter did not start: {str(exc).splitlines()[0]}")
        report.error = str(exc)
        return
    report.status = result.status
    report.fit_seconds = result.wall_seconds
    report.expression = result.expression
    if result.status != "ok":
        report.error = result.error
        report.problems.append(f"toy fit {result.status}: {(result.error or '').splitlines()[0] if result.error else ''}")
        return
    try:
        predicted = compile_expr(parse(result.expression, TOY_VARIABLES), TOY_VARIABLES)(X)
    except (ParseError, ValueError) as exc:
        report.problems.append(f"srbf cannot read the formula {result.expression!r}: {exc}")
        return
    with np.errstate(all="ignore"):
        residual = float(np.sum((y - predicted) ** 2))
        report.r2 = 1.0 - residual / float(np.sum((y - y.mean()) ** 2))
    if not np.isfinite(report.r2):
        report.r2 = None
