"""Installing a roster method's environment: ``srbf methods install NAME``.

``install(spec)`` creates the environment and fills it from the method's committed lock
(``srbf.methods.lockfile``: every package pinned, with hashes), with ``uv`` when it is on PATH
(seconds) and with pip otherwise (minutes, same lock). ``latest=True`` resolves afresh instead and
prints what changed against the lock. The manifest, ``srbf-manifest.json``, is written last (the
lock's hash, the versions installed, install seconds, disk size), so that an interrupted install
is never taken for a finished one.
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
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from srbf.core import SrbfError
from srbf.methods import interpreters, lockfile
from srbf.methods.envs import MANIFEST, env_dir, env_python, read_manifest, run_captured
from srbf.methods.roster import MethodSpec

INSTALL_LOG = "srbf-install.log"
ENV_LOCK = "srbf-lock.txt"  # the lock an environment was installed from, kept inside it
PRE_LOCK = "srbf-pre-install.txt"  # the locked lines of the packages installed first
# ``pip freeze --all`` without pip (an environment uv made has none): every distribution, name==version
FREEZE_CODE = ("import importlib.metadata as m; "
               "print('\\n'.join(sorted({f\"{d.metadata['Name']}=={d.version}\" for d in m.distributions()})))")
TAIL_LINES = 25  # installer output lines shown when a step fails
_PROGRESS = re.compile(r"^\s*(Collecting|Building wheel|Installing collected|Successfully|Resolved|Prepared|"
                       r"Installed|Built)\b")  # fmt: skip

Echo = Callable[[str], None]


class InstallError(SrbfError, RuntimeError):
    """An install step failed. ``step`` names it, ``tail`` holds the last lines of its output."""

    def __init__(self, message: str, *, step: str = "", tail: str = ""):
        super().__init__(message)
        self.step = step
        self.tail = tail


class LicenceNotAccepted(SrbfError, RuntimeError):
    """The method's licence needs ``--accept-licence``; the message is the notice."""


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
    """``pip freeze`` output (or ``FREEZE_CODE``'s) as {distribution: version} (``name @ url`` lines keep the url)."""
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


@dataclass(frozen=True)
class LockUse:
    """Which lock an install used: ``source`` is committed, latest (resolved with --latest),
    resolved (no committed lock for this Python) or none (pip without a lock)."""

    source: str
    text: str | None = None
    file: str | None = None  # the committed lock's name (NAME/lock-pyX.Y.txt), when there is one
    diff: tuple[str, ...] = ()  # --latest: the changes against the committed lock

    @property
    def hash(self) -> str | None:
        return lockfile.lock_hash(self.text) if self.text is not None else None


def make_manifest(spec: MethodSpec, *, python_version: str, freeze: str, steps: Sequence[dict],
                  seconds: float, disk_bytes: int, licence_accepted: bool,
                  installer: str = "pip", lock: LockUse = LockUse("none")) -> dict[str, Any]:  # fmt: skip
    """What an install records: the roster pins, the lock and its hash, what was actually
    installed, time and size."""
    from srbf import __version__

    packages = parse_freeze(freeze)
    installed = {lockfile.canonical_name(k): v for k, v in packages.items()}
    return {
        "method": spec.name,
        "package": spec.package,
        "pinned": spec.version,
        "installed_version": installed.get(lockfile.canonical_name(spec.package)),
        "requirements": list(spec.requirements),
        "python": python_version,
        "installer": installer,
        "lock_hash": lock.hash,
        "lock_source": lock.source,
        "lock_file": lock.file,
        "lock_diff": list(lock.diff),
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


@dataclass(frozen=True)
class Step:
    """One install command: ``label`` for progress and errors, ``package`` it is about."""

    label: str
    args: tuple[str, ...]
    package: str


def venv_step(base: str, root: Path, uv: str | None) -> Step:
    if uv:
        return Step(f"create the environment (uv venv --python {base})",
                    (uv, "venv", "--quiet", "--python", base, str(root)), "venv")  # fmt: skip
    return Step(f"create the environment ({base} -m venv)", (base, "-m", "venv", str(root)), "venv")


def install_steps(spec: MethodSpec, python: str | Path, *, uv: str | None = None,
                  lock: Path | None = None) -> list[Step]:  # fmt: skip
    """The commands that fill ``spec``'s environment once the venv exists.

    With ``lock`` (a hashed lock file inside the environment): the pre-install packages first
    (their locked lines, ``PRE_LOCK`` beside the lock), then the whole lock; ``uv pip sync`` makes
    the environment exactly the lock, pip installs it with ``--no-deps``. Without a lock: the
    roster's requirements, resolved by the installer.
    """
    name = "uv pip" if uv else "pip"
    install = (uv, "pip", "install", "--python", str(python)) if uv else \
              (str(python), "-m", "pip", "install", "--no-input")  # fmt: skip
    flags = tuple(spec.pip_flags)
    if lock is None:
        steps = [Step(f"{name} install {' '.join(reqs)} (before {spec.package})", install + tuple(reqs), " ".join(reqs))
                 for reqs in spec.pre_install]  # fmt: skip
        main = ("numpy",) + tuple(spec.requirements) + flags
        return steps + [Step(f"{name} install {' '.join(main)}", install + main, spec.pinned)]
    steps = []
    if spec.pre_install:
        pre = " ".join(req for reqs in spec.pre_install for req in reqs)
        args = install + ("--require-hashes", "--no-deps", "-r", str(lock.with_name(PRE_LOCK)))
        steps.append(Step(f"{name} install {pre} from the lock (before {spec.package})", args, pre))
    if uv:
        main = (uv, "pip", "sync", "--python", str(python), "--require-hashes", str(lock)) + flags
        return steps + [Step(f"uv pip sync the lock ({spec.pinned} and its dependencies)", main, spec.pinned)]
    main = install + ("--require-hashes", "--no-deps", "-r", str(lock)) + flags
    return steps + [Step(f"pip install the lock ({spec.pinned} and its dependencies)", main, spec.pinned)]


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


def choose_lock(spec: MethodSpec, python: Path, uv: str | None, latest: bool, echo: Echo) -> LockUse:
    """The lock to install ``spec`` from into the environment whose interpreter is ``python``."""
    minor = lockfile.python_minor(str(python))
    committed = spec.lock_path(minor)
    file = f"{spec.name}/{committed.name}" if committed.is_file() else None  # gplearn/lock-py3.11.txt
    try:
        if not latest and file:
            text = committed.read_text(encoding="utf-8")
            lockfile.parse_lock(text, str(committed))
            return LockUse("committed", text, file)
        if not latest:
            echo(f"[{spec.name}] note: no lock for Python {minor} ({committed}); resolving afresh "
                 f"(`srbf methods lock {spec.name} --python-version {minor}` makes one)")  # fmt: skip
        if uv is None:
            return LockUse("none", None, file)  # pip resolves; the diff comes after the freeze
        echo(f"[{spec.name}] resolving afresh with uv pip compile ...")
        text = lockfile.compile_lock(spec, str(python), uv)
    except lockfile.LockError as exc:
        raise InstallError(str(exc), step="lock") from exc
    diff = lock_diff(spec, committed, lockfile.versions(lockfile.parse_lock(text))) if latest else ()
    return LockUse("latest" if latest else "resolved", text, file, diff)


def lock_diff(spec: MethodSpec, committed: Path, resolved: dict[str, str]) -> tuple[str, ...]:
    """The changes of a fresh resolution against the committed lock, as LockDiff lines."""
    if not committed.is_file():
        return ()
    try:
        locked = lockfile.versions(lockfile.parse_lock(committed.read_text(encoding="utf-8"), str(committed)))
    except lockfile.LockError as exc:
        raise InstallError(str(exc), step="lock") from exc
    ignored = {"pip", "setuptools", "wheel"} - set(locked)  # what pip's venv brings, not the method
    resolved = {k: v for k, v in resolved.items() if lockfile.canonical_name(k) not in ignored}
    return tuple(lockfile.diff_packages(locked, resolved).lines())


def _echo_diff(spec: MethodSpec, lock: LockUse, echo: Echo) -> None:
    if lock.file is None:
        echo(f"[{spec.name}] --latest: no committed lock to compare with")
    elif not lock.diff:
        echo(f"[{spec.name}] --latest: the same versions as the lock {lock.file}")
    else:
        n = len(lock.diff)
        echo(f"[{spec.name}] --latest: {n} package{'s differ' if n > 1 else ' differs'} from the lock {lock.file}:")
        for line in lock.diff:
            echo(f"    {line}")


def install(
    spec: MethodSpec,
    *,
    force: bool = False,
    accept_licence: bool = False,
    base_python: str | None = None,
    latest: bool = False,
    echo: Echo = print,
) -> dict[str, Any]:
    """Create and fill ``spec``'s environment from its lock; return its manifest.

    An installed environment is kept unless ``force`` or ``latest`` (which resolves afresh,
    ignoring the lock, and reports the changes); an unfinished one (no manifest) is rebuilt.
    Raises LicenceNotAccepted (before touching anything) when the method's licence needs
    ``accept_licence``, InstallError naming the failed step and package otherwise.
    ``base_python`` creates the venv (default: the interpreter running srbf, or, when the method
    needs another Python, the interpreter ``base_interpreter`` finds).
    """
    if spec.licence and not accept_licence:
        raise LicenceNotAccepted(f"{spec.name}: {spec.licence}")
    base = base_python or sys.executable
    root = env_dir(spec.name)
    existing = read_manifest(spec.name)
    if existing is not None and env_python(spec.name).exists() and not (force or latest):
        echo(f"[{spec.name}] already installed in {root} ({spec.package} "
             f"{existing.get('installed_version')}); --force reinstalls")  # fmt: skip
        return existing
    uv = lockfile.find_uv()
    if spec.python:
        base = base_interpreter(spec, base_python, uv, echo)
    if root.exists():
        echo(f"[{spec.name}] removing {'the old' if existing else 'an unfinished'} environment {root}")
        shutil.rmtree(root)
    root.parent.mkdir(parents=True, exist_ok=True)
    if uv is None:
        echo(f"[{spec.name}] note: uv not found (or SRBF_INSTALLER=pip): installing with pip, which is slower")
    if spec.size_hint:
        echo(f"[{spec.name}] note: a large install, {spec.size_hint}")
    t0 = time.monotonic()
    python = env_python(spec.name)
    log = root.parent / f"{spec.name}.{INSTALL_LOG}"  # beside the env until it exists
    log.write_text(f"srbf install of {spec.name} ({spec.pinned}), {datetime.now().isoformat()}\n")
    env = dict(os.environ, PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1", UV_PYTHON_DOWNLOADS="never")
    create = venv_step(base, root, uv)
    echo(f"[{spec.name}] {create.label}")
    done = [{"step": create.label, "seconds": round(_run_step(create, log, echo, spec.name, env=env), 2)}]
    shutil.move(str(log), str(root / INSTALL_LOG))  # the env exists: keep the log inside it
    log = root / INSTALL_LOG
    lock = choose_lock(spec, python, uv, latest, echo)
    if latest and lock.text is not None:
        _echo_diff(spec, lock, echo)
    if lock.text is not None:
        (root / ENV_LOCK).write_text(lock.text, encoding="utf-8")
        if spec.pre_install:
            names = [req for reqs in spec.pre_install for req in reqs]
            (root / PRE_LOCK).write_text(lockfile.subset(lock.text, names, str(root / ENV_LOCK)), encoding="utf-8")
    steps = install_steps(spec, python, uv=uv, lock=root / ENV_LOCK if lock.text is not None else None)
    for i, step in enumerate(steps, 1):
        echo(f"[{spec.name}] step {i}/{len(steps) + 1}: {step.label}")
        done.append({"step": step.label, "seconds": round(_run_step(step, log, echo, spec.name, env=env), 2)})
    echo(f"[{spec.name}] step {len(steps) + 1}/{len(steps) + 1}: record the versions installed")
    freeze = run_captured([str(python), "-c", FREEZE_CODE])
    if freeze.returncode != 0:
        raise InstallError(f"{spec.name}: listing the installed versions failed: {freeze.stderr.strip()[-500:]}",
                           step="freeze")  # fmt: skip
    installed = parse_freeze(freeze.stdout)
    if lock.text is not None:
        check_installed(spec.name, lock.text, installed)
    elif latest and lock.file:
        lock = replace(lock, diff=lock_diff(spec, spec.lock_path(lockfile.python_minor(str(python))), installed))
    if latest and lock.text is None:
        _echo_diff(spec, lock, echo)
    version = run_captured([str(python), "-c", "import sys; print(sys.version.split()[0])"]).stdout.strip()
    manifest = make_manifest(spec, python_version=version, freeze=freeze.stdout, steps=done,
                             seconds=time.monotonic() - t0, disk_bytes=disk_usage(root),
                             licence_accepted=accept_licence, installer="uv" if uv else "pip", lock=lock)  # fmt: skip
    write_manifest(root / MANIFEST, manifest)
    how = {"committed": f"from {lock.file}", "latest": "from a fresh resolution (--latest)",
           "resolved": "from a fresh resolution (no lock for this Python)", "none": "without a lock"}[lock.source]
    echo(f"[{spec.name}] installed {spec.package} {manifest['installed_version']} {how} in "
         f"{manifest['install_seconds']:.0f} s, {format_bytes(manifest['disk_bytes'])}, at {root}")  # fmt: skip
    return manifest


def base_interpreter(spec: MethodSpec, base_python: str | None, uv: str | None, echo: Echo) -> str:
    """The interpreter to make ``spec``'s environment from when its method.yaml names the Python it
    needs: ``base_python`` if it fits (InstallError if not), else one ``interpreters.find_python``
    finds (InstallError naming what it needs and where it looked when there is none)."""
    if base_python:
        version = interpreters.interpreter_version(base_python)
        if version is None or not interpreters.admits(spec.python, version):
            raise InstallError(f"{spec.name} needs Python {spec.python} (its method.yaml, field python); "
                               f"--python {base_python} is {version or 'not an interpreter that runs'}", step="python")
        return base_python
    try:
        python, version = interpreters.find_python(spec.name, spec.python, uv=uv)
    except interpreters.PythonNotFound as exc:
        raise InstallError(str(exc), step="python") from None
    if python != sys.executable:
        echo(f"[{spec.name}] needs Python {spec.python}: using {python} ({version})")
    return python


def check_installed(name: str, lock_text: str, installed: dict[str, str]) -> None:
    """InstallError unless every locked package is installed at its locked version."""
    have = {lockfile.canonical_name(k): v for k, v in installed.items()}
    locked = lockfile.versions(lockfile.parse_lock(lock_text))
    wrong = [f"{key} {have.get(key, 'missing')} (locked {version})"
             for key, version in locked.items() if have.get(key) != version]  # fmt: skip
    if wrong:
        raise InstallError(f"{name}: the environment does not match its lock: {', '.join(wrong[:5])}", step="check")


def format_bytes(n: int | None) -> str:
    if n is None:
        return "-"
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"
