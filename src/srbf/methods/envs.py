"""Per-method environments: where they live and how a config's ``python: env:NAME`` names one.

Every roster method (``srbf.methods.roster``) gets a virtual environment of its own under srbf's
data directory (``$SRBF_HOME``, else ``$XDG_DATA_HOME/srbf``, else ``~/.local/share/srbf``), in
``envs/NAME``, holding NumPy and the method's pinned packages and nothing of srbf. The worker
runs the method's adapter file under that environment's interpreter, so no method package is ever
installed into srbf's own environment and two methods never fight over a dependency.

An environment counts as installed once its ``srbf-manifest.json`` exists: ``install`` writes it
last, with the hash of the lock it installed from; ``env_stack(NAME)`` reads from it what a result
records about the environment that produced it. ``resolve_python("env:NAME")`` turns a config's
``python:`` value into an interpreter path. Installing is ``srbf.methods.install``, checking ``srbf.methods.doctor``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any, Sequence

from srbf.core import SrbfError

ENV_PREFIX = "env:"
MANIFEST = "srbf-manifest.json"
_ENV_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")


class EnvError(SrbfError, ValueError):
    """A method environment that cannot be used: unknown, not installed, or half installed."""


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


def env_stack(name: str) -> dict[str, str | None] | None:
    """What a result should record about the environment ``name`` (or ``env:NAME``) it ran in:
    the hash of the lock it was installed from, the method package's version, NumPy's and
    SciPy's, and Python's. None when the environment is not installed; a value is None when the
    manifest does not have it (an install that predates locks, a method without SciPy)."""
    manifest = read_manifest(env_name(name) if is_env_spec(name) else name)
    return None if manifest is None else stack_of(manifest)


def stack_of(manifest: dict[str, Any]) -> dict[str, str | None]:
    """``env_stack`` of a manifest already read."""
    packages = manifest.get("packages") if isinstance(manifest.get("packages"), dict) else {}
    versions = {re.sub(r"[-_.]+", "-", str(k)).lower(): v for k, v in packages.items()}
    return {
        "env": manifest.get("method"),
        "lock_hash": manifest.get("lock_hash"),
        "package": manifest.get("package"),
        "package_version": manifest.get("installed_version"),
        "numpy": versions.get("numpy"),
        "scipy": versions.get("scipy"),
        "python": manifest.get("python"),
    }


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
    if python.exists() and read_manifest(name) is not None:  # a finished install: no roster needed
        return str(python.absolute())
    # only to word the error (the roster imports pydantic: a slot about to start a worker skips it)
    from srbf.methods.roster import ROSTER

    on_roster = name in ROSTER
    if not python.exists():
        if on_roster:
            raise EnvError(f"{name} is not installed: run srbf methods install {name}")
        raise EnvError(f"no environment {name!r} in {envs_dir()} and {name!r} is not on the roster "
                       f"(`srbf methods list`)")  # fmt: skip
    if on_roster and read_manifest(name) is None:
        raise EnvError(f"the install of {name}'s environment did not finish ({env_dir(name)} has no "
                       f"{MANIFEST}); run `srbf methods install {name} --force`")  # fmt: skip
    return str(python.absolute())


def run_captured(args: Sequence[str], timeout: float = 300.0) -> subprocess.CompletedProcess:
    """Run a command (an environment's interpreter) without stdin, its output captured as text."""
    return subprocess.run(list(args), capture_output=True, text=True, errors="replace",
                          stdin=subprocess.DEVNULL, timeout=timeout)  # fmt: skip
