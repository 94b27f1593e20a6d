"""Installing a roster method's environment: ``srbf methods install NAME``.

``install(spec)`` creates the environment with ``python -m venv``, runs the pip steps the roster
record lists, and writes ``srbf-manifest.json`` (versions from ``pip freeze``, install seconds,
disk size) last, so that an interrupted install is never taken for a finished one.
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
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from srbf.methods.envs import MANIFEST, env_dir, env_python, read_manifest, run_captured
from srbf.methods.roster import MethodSpec

INSTALL_LOG = "srbf-install.log"
TAIL_LINES = 25  # pip output lines shown when a step fails
_PROGRESS = re.compile(r"^\s*(Collecting|Building wheel|Installing collected|Successfully)\b")

Echo = Callable[[str], None]


class InstallError(RuntimeError):
    """An install step failed. ``step`` names it, ``tail`` holds the last lines of its output."""

    def __init__(self, message: str, *, step: str = "", tail: str = ""):
        super().__init__(message)
        self.step = step
        self.tail = tail


class LicenceNotAccepted(RuntimeError):
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
    freeze = run_captured([str(python), "-m", "pip", "freeze", "--all"])
    if freeze.returncode != 0:
        raise InstallError(f"{spec.name}: pip freeze failed: {freeze.stderr.strip()[-500:]}", step="pip freeze")
    version = run_captured([str(python), "-c", "import sys; print(sys.version.split()[0])"]).stdout.strip()
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
