"""Per-method environments: where they live, how a config names one, how one is installed and checked.

Every roster method (``srbf.methods.roster``) gets a virtual environment of its own under srbf's
data directory (``$SRBF_HOME``, else ``$XDG_DATA_HOME/srbf``, else ``~/.local/share/srbf``), in
``envs/NAME``, holding NumPy and the method's pinned packages and nothing of srbf. The worker
runs the method's adapter file under that environment's interpreter, so no method package is ever
installed into srbf's own environment and two methods never fight over a dependency.

- ``install(spec)`` creates the environment with ``python -m venv``, runs the pip steps the roster
  record lists, and writes ``srbf-manifest.json`` (versions from ``pip freeze``, install seconds,
  disk size) last: an environment without a manifest is an unfinished install.
- ``resolve_python("env:NAME")`` is how a config's ``python: env:NAME`` becomes an interpreter path.
- ``doctor(spec)`` imports the package in its environment and fits a two-variable toy problem
  through the real ``Worker`` with the method's adapter file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from srbf.methods.roster import ROSTER, MethodSpec

ENV_PREFIX = "env:"
MANIFEST = "srbf-manifest.json"
INSTALL_LOG = "srbf-install.log"
TAIL_LINES = 25  # pip output lines shown when a step fails
_ENV_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
_PROGRESS = re.compile(r"^\s*(Collecting|Building wheel|Installing collected|Successfully)\b")

Echo = Callable[[str], None]


class EnvError(ValueError):
    """A method environment that cannot be used: unknown, not installed, or half installed."""


class InstallError(RuntimeError):
    """An install step failed. ``step`` names it, ``tail`` holds the last lines of its output."""

    def __init__(self, message: str, *, step: str = "", tail: str = ""):
        super().__init__(message)
        self.step = step
        self.tail = tail


class LicenceNotAccepted(RuntimeError):
    """The method's licence needs ``--accept-licence``; the message is the notice."""


# --- where things live --------------------------------------------------------------------------


def data_home() -> Path:
    """srbf's data directory: ``$SRBF_HOME``, else ``$XDG_DATA_HOME/srbf``, else ``~/.local/share/srbf``."""
    if os.environ.get("SRBF_HOME"):
        return Path(os.environ["SRBF_HOME"]).expanduser()
    if os.environ.get("XDG_DATA_HOME"):
        return Path(os.environ["XDG_DATA_HOME"]).expanduser() / "srbf"
    return Path.home() / ".local" / "share" / "srbf"


def envs_dir() -> Path:
    return data_home() / "envs"


def env_dir(name: str) -> Path:
    if not _ENV_NAME.fullmatch(name):
        raise EnvError(f"{name!r} is not a valid environment name (letters, digits and . _ + -)")
    return envs_dir() / name


def env_python(name: str) -> Path:
    """The interpreter of environment ``name`` (whether or not it exists)."""
    root = env_dir(name)
    return root / "Scripts" / "python.exe" if os.name == "nt" else root / "bin" / "python"


def manifest_path(name: str) -> Path:
    return env_dir(name) / MANIFEST


def read_manifest(name: str) -> dict[str, Any] | None:
    """The manifest of a finished install, or None (not installed, unfinished, or unreadable)."""
    try:
        return json.loads(manifest_path(name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def is_installed(name: str) -> bool:
    return env_python(name).exists() and read_manifest(name) is not None


def is_env_spec(spec: Any) -> bool:
    return isinstance(spec, str) and spec.strip().startswith(ENV_PREFIX)


def env_name(spec: str) -> str:
    """The method name in an ``env:NAME`` spec; EnvError when it names none."""
    name = spec.strip()[len(ENV_PREFIX) :].strip()
    if not name:
        raise EnvError(f"{spec!r} names no environment; write env:NAME, e.g. env:gplearn")
    return name


def resolve_python(spec: str) -> str:
    """The interpreter a ``python:`` value of the form ``env:NAME`` names, as an absolute path.

    Raises EnvError (a ValueError) with a one-line message saying what to run when the
    environment is not installed or its install did not finish. Any other value is returned
    unchanged, so a caller may pass every ``python:`` value through it.
    """
    if not is_env_spec(spec):
        return spec
    name = env_name(spec)
    python = env_python(name)
    on_roster = name in ROSTER
    if not python.exists():
        if on_roster:
            raise EnvError(f"the environment of {name} is not installed (no {python}); "
                           f"run `srbf methods install {name}`")  # fmt: skip
        raise EnvError(f"no environment {name!r} in {envs_dir()} and {name!r} is not on the roster "
                       f"(`srbf methods list`)")  # fmt: skip
    if on_roster and read_manifest(name) is None:
        raise EnvError(f"the install of {name}'s environment did not finish ({env_dir(name)} has no "
                       f"{MANIFEST}); run `srbf methods install {name} --force`")  # fmt: skip
    return str(python.absolute())


# --- manifest -----------------------------------------------------------------------------------


def disk_usage(path: Path) -> int:
    """Bytes of the files under ``path`` (symlinks not followed, hard links counted once)."""
    total, seen = 0, set()
    for root, dirs, files in os.walk(path):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            try:
                st = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            total += st.st_size
    return total


def parse_freeze(text: str) -> dict[str, str]:
    """``pip freeze`` output as {distribution: version} (``name @ url`` lines keep the url)."""
    packages = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if "==" in line:
            name, version = line.split("==", 1)
        elif " @ " in line:
            name, version = line.split(" @ ", 1)
        else:
            name, version = line, ""
        packages[name.strip()] = version.strip()
    return packages


def make_manifest(spec: MethodSpec, *, python_version: str, freeze: str, steps: Sequence[dict],
                  seconds: float, disk_bytes: int, licence_accepted: bool) -> dict[str, Any]:  # fmt: skip
    """What an install records: the roster pins, what pip actually installed, time and size."""
    from srbf import __version__

    packages = parse_freeze(freeze)
    installed = {k.lower().replace("_", "-"): v for k, v in packages.items()}
    return {
        "method": spec.name,
        "package": spec.package,
        "pinned": spec.version,
        "installed_version": installed.get(spec.package.lower().replace("_", "-")),
        "requirements": list(spec.requirements),
        "python": python_version,
        "packages": packages,
        "steps": list(steps),
        "install_seconds": round(seconds, 2),
        "disk_bytes": int(disk_bytes),
        "licence_accepted": licence_accepted if spec.licence else None,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "srbf_version": __version__,
    }


def write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    """Write atomically (a reader never sees half a manifest)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


# --- install ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One install command: ``label`` for progress and errors, ``package`` it is about."""

    label: str
    args: tuple[str, ...]
    package: str


def install_steps(spec: MethodSpec, python: str | Path) -> list[Step]:
    """The pip commands that fill ``spec``'s environment, after the venv exists."""
    pip = (str(python), "-m", "pip", "install", "--no-input")
    steps = [Step(f"pip install {' '.join(reqs)} (before {spec.package})", pip + tuple(reqs), " ".join(reqs))
             for reqs in spec.pre_install]  # fmt: skip
    main = ("numpy",) + tuple(spec.requirements) + tuple(spec.pip_flags)
    steps.append(Step(f"pip install {' '.join(main)}", pip + main, spec.pinned))
    return steps


def _run_step(step: Step, log: Path, echo: Echo, name: str, *, env: dict | None = None) -> float:
    """Run one step, its output appended to ``log``; progress lines echoed; InstallError on failure."""
    tail: deque[str] = deque(maxlen=TAIL_LINES)
    t0 = time.monotonic()
    with open(log, "a", encoding="utf-8") as out:
        out.write(f"\n$ {' '.join(step.args)}\n")
        out.flush()
        try:
            proc = subprocess.Popen(step.args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, text=True, errors="replace", env=env)  # fmt: skip
        except OSError as exc:
            raise InstallError(f"{name}: cannot run {step.args[0]} for step {step.label!r}: {exc}",
                               step=step.label) from exc  # fmt: skip
        assert proc.stdout is not None
        for line in proc.stdout:
            out.write(line)
            tail.append(line.rstrip("\n"))
            if _PROGRESS.match(line):
                echo(f"    {line.strip()[:150]}")
        code = proc.wait()
    if code != 0:
        text = "\n".join(tail)
        raise InstallError(
            f"{name}: step {step.label!r} failed for {step.package} (exit code {code}); "
            f"full log: {log}\n--- output (last {len(tail)} lines) ---\n{text}",
            step=step.label,
            tail=text,
        )
    return time.monotonic() - t0


def _capture(args: Sequence[str], timeout: float = 300.0) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), capture_output=True, text=True, errors="replace",
                          stdin=subprocess.DEVNULL, timeout=timeout)  # fmt: skip


def install(
    spec: MethodSpec,
    *,
    force: bool = False,
    accept_licence: bool = False,
    base_python: str | None = None,
    echo: Echo = print,
) -> dict[str, Any]:
    """Create and fill ``spec``'s environment; return its manifest.

    An installed environment is kept unless ``force``; an unfinished one (no manifest) is
    rebuilt. Raises LicenceNotAccepted (before touching anything) when the method's licence
    needs ``accept_licence``, InstallError naming the failed step and package otherwise.
    ``base_python`` creates the venv (default: the interpreter running srbf).
    """
    if spec.licence and not accept_licence:
        raise LicenceNotAccepted(f"{spec.name}: {spec.licence}")
    root = env_dir(spec.name)
    existing = read_manifest(spec.name)
    if existing is not None and env_python(spec.name).exists() and not force:
        echo(f"[{spec.name}] already installed in {root} ({spec.package} "
             f"{existing.get('installed_version')}); --force reinstalls")  # fmt: skip
        return existing
    if root.exists():
        echo(f"[{spec.name}] removing {'the old' if existing else 'an unfinished'} environment {root}")
        shutil.rmtree(root)
    root.parent.mkdir(parents=True, exist_ok=True)
    if spec.size_hint:
        echo(f"[{spec.name}] note: a large install, {spec.size_hint}")
    t0 = time.monotonic()
    base = base_python or sys.executable
    python = env_python(spec.name)
    steps = [Step(f"create the environment ({base} -m venv)", (base, "-m", "venv", str(root)), "venv")]
    steps += install_steps(spec, python)
    log = root.parent / f"{spec.name}.{INSTALL_LOG}"  # beside the env until it exists
    log.write_text(f"srbf install of {spec.name} ({spec.pinned}), {datetime.now().isoformat()}\n")
    done = []
    env = dict(os.environ, PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    for i, step in enumerate(steps, 1):
        echo(f"[{spec.name}] step {i}/{len(steps) + 1}: {step.label}")
        seconds = _run_step(step, log, echo, spec.name, env=env)
        done.append({"step": step.label, "seconds": round(seconds, 2)})
        if i == 1:  # the env now exists: keep the log inside it
            shutil.move(str(log), str(root / INSTALL_LOG))
            log = root / INSTALL_LOG
    echo(f"[{spec.name}] step {len(steps) + 1}/{len(steps) + 1}: record versions (pip freeze)")
    freeze = _capture([str(python), "-m", "pip", "freeze", "--all"])
    if freeze.returncode != 0:
        raise InstallError(f"{spec.name}: pip freeze failed: {freeze.stderr.strip()[-500:]}", step="pip freeze")
    version = _capture([str(python), "-c", "import sys; print(sys.version.split()[0])"]).stdout.strip()
    manifest = make_manifest(spec, python_version=version, freeze=freeze.stdout, steps=done,
                             seconds=time.monotonic() - t0, disk_bytes=disk_usage(root),
                             licence_accepted=accept_licence)  # fmt: skip
    write_manifest(root / MANIFEST, manifest)
    echo(f"[{spec.name}] installed {spec.package} {manifest['installed_version']} in "
         f"{manifest['install_seconds']:.0f} s, {format_bytes(manifest['disk_bytes'])}, at {root}")  # fmt: skip
    return manifest


def format_bytes(n: int | None) -> str:
    if n is None:
        return "-"
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


# --- doctor -------------------------------------------------------------------------------------

TOY_FORMULA = "x0**2 + x1"
TOY_VARIABLES = ("x0", "x1")


def toy_problem(n: int = 200, seed: int = 0):
    """The doctor's problem: y = x0**2 + x1 on x0, x1 uniform in [-2, 2]."""
    import numpy as np

    X = np.random.default_rng(seed).uniform(-2.0, 2.0, size=(n, 2))
    return X, X[:, 0] ** 2 + X[:, 1]


def find_external(program: str, name: str | None = None) -> str | None:
    """``program`` on PATH or in the method's environment (e.g. a Julia it installed), else None."""
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
        out += [f"{self.name}: {problem}" for problem in self.problems]
        return out


def _config_method(spec: MethodSpec) -> dict[str, Any]:
    """The ``method`` section and budgets of the method's shipped config, read raw ({} if none)."""
    path = spec.config_path
    if not path.is_file():
        return {}
    try:
        import yaml

        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except Exception:  # a broken config is the config check's business, not the doctor's
        return {}
    method = data.get("method") if isinstance(data.get("method"), dict) else {}
    return {**method, "_budgets": method.get("budgets", data.get("budgets"))}


def config_provenance(spec: MethodSpec) -> str | None:
    """The ``config_provenance`` label of the method's shipped config (None: no config or no label)."""
    value = _config_method(spec).get("config_provenance")
    return value if isinstance(value, str) else None


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


def doctor(spec: MethodSpec, *, time_limit: float = 300.0, budget: Any = None) -> DoctorReport:
    """Check ``spec``'s environment, external programs and adapter file; import the package there;
    fit the toy problem through the real Worker. Never raises for what it finds: it reports."""
    report = DoctorReport(spec.name)
    python = env_python(spec.name)
    if not python.exists():
        report.problems.append(f"not installed (no environment at {env_dir(spec.name)}); "
                               f"run `srbf methods install {spec.name}`")  # fmt: skip
    elif read_manifest(spec.name) is None:
        report.problems.append(f"the install did not finish (no {MANIFEST} in {env_dir(spec.name)}); "
                               f"run `srbf methods install {spec.name} --force`")  # fmt: skip
    env_ok = not report.problems
    missing = [program for program in spec.needs if find_external(program, spec.name) is None]
    why = f": {spec.needs_hint}" if spec.needs_hint else ""
    for program in missing:
        report.problems.append(f"missing {program.capitalize()}: `{program}` is not on PATH{why}")
    if not spec.adapter_path.is_file():
        report.problems.append(f"adapter file missing: {spec.adapter_path}")
    if env_ok and not missing:  # without its external programs an import may hang (PySR's Julia)
        _probe_import(spec, report, python, time_limit)
    if not report.problems:
        _toy_fit(spec, report, python, time_limit, budget)
    return report


def _probe_import(spec: MethodSpec, report: DoctorReport, python: Path, time_limit: float) -> None:
    """Import the package in its environment; record its version, or a problem."""
    report.python = str(python)
    t0 = time.monotonic()
    code = f"import importlib.metadata as m, {spec.import_name}; print(m.version({spec.package!r}))"
    try:
        probe = _capture([str(python), "-c", code], timeout=time_limit)
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
    from srbf.runs.records import FitTask, TaskKey

    config = _config_method(spec)
    options = config.get("options") if isinstance(config.get("options"), dict) else {}
    env = config.get("env") if isinstance(config.get("env"), dict) else {}
    env = {str(k): (None if v is None else str(v)) for k, v in env.items()}
    report.budget = budget if budget is not None else smallest_budget(config.get("_budgets"))
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
