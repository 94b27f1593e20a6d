"""Finding a Python interpreter that a method's environment can be made from.

A method.yaml may say which Python its package needs (``python: ">=3.12"``: flash-ansr does), as
comma-separated clauses of ``>=``, ``>``, ``<=``, ``<``, ``==`` or ``!=`` and an ``X.Y`` version.
When the interpreter running srbf is not one of them, ``find_python`` looks, in this order, at
what ``uv python find`` discovers (installed interpreters only: uv never downloads one here), the
versions of pyenv (``$PYENV_ROOT/versions``, else ``~/.pyenv/versions``) and the ``python3.X``
programs on PATH, and takes the lowest version that fits. When none fits it raises
``PythonNotFound``: one line naming the method, what it needs and everything it looked at.
"""

from __future__ import annotations

import operator
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from srbf.core import SrbfError

_CLAUSE = re.compile(r"\s*(>=|<=|==|!=|>|<)\s*(\d+)\.(\d+)\s*")
_COMPARE = {">=": operator.ge, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
            ">": operator.gt, "<": operator.lt}  # fmt: skip
_VERSION_CODE = "import sys; print('%d.%d.%d' % sys.version_info[:3])"
_PATH_MINORS = range(8, 20)  # python3.8 ... python3.19 looked for on PATH


class PythonSpecError(SrbfError, ValueError):
    """A ``python:`` requirement that does not read as version clauses."""


class PythonNotFound(SrbfError, RuntimeError):
    """No interpreter on this machine fits a method's ``python:`` requirement."""


def parse_requirement(text: str) -> tuple[tuple[str, tuple[int, int]], ...]:
    """``">=3.12, <3.14"`` as ((">=", (3, 12)), ("<", (3, 14))); PythonSpecError otherwise."""
    clauses = []
    for part in str(text).split(","):
        match = _CLAUSE.fullmatch(part)
        if not match:
            raise PythonSpecError(f"not a Python requirement such as '>=3.12' or '>=3.11, <3.14': {text!r}")
        clauses.append((match.group(1), (int(match.group(2)), int(match.group(3)))))
    return tuple(clauses)


def admits(requirement: str, version: str | tuple[int, ...]) -> bool:
    """Whether Python ``version`` ("3.12.1", "3.12" or a tuple) meets ``requirement`` (X.Y compared)."""
    if isinstance(version, str):
        version = tuple(int(p) for p in version.split(".")[:2])
    minor = tuple(version[:2])
    return all(_COMPARE[op](minor, bound) for op, bound in parse_requirement(requirement))


def interpreter_version(python: str | Path) -> str | None:
    """``3.12.1`` for an interpreter that runs, None for one that does not."""
    try:
        done = subprocess.run([str(python), "-c", _VERSION_CODE], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=60)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    out = done.stdout.strip()
    return out if done.returncode == 0 and re.fullmatch(r"\d+\.\d+\.\d+", out) else None


def pyenv_root() -> Path:
    return Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv").expanduser()


def candidates(requirement: str, uv: str | None) -> list[tuple[str, Path]]:
    """(where found, interpreter) for every interpreter the three places name, in search order."""
    found: list[tuple[str, Path]] = []
    if uv:
        try:
            done = subprocess.run([uv, "python", "find", requirement], capture_output=True, text=True,
                                  stdin=subprocess.DEVNULL, timeout=60,
                                  env=dict(os.environ, UV_PYTHON_DOWNLOADS="never"))  # fmt: skip
            if done.returncode == 0 and done.stdout.strip():
                found.append(("uv python find", Path(done.stdout.strip().splitlines()[-1])))
        except (OSError, subprocess.TimeoutExpired):
            pass
    versions = pyenv_root() / "versions"
    if versions.is_dir():
        for folder in sorted(versions.iterdir()):
            python = folder / "bin" / "python3"
            if python.is_file():
                found.append(("pyenv", python))
    for minor in _PATH_MINORS:
        python = shutil.which(f"python3.{minor}")
        if python:
            found.append(("PATH", Path(python)))
    return found


def find_python(name: str, requirement: str, *, uv: str | None = None) -> tuple[str, str]:
    """(interpreter, version) to make method ``name``'s environment from: srbf's own interpreter
    when it fits ``requirement``, else the lowest fitting version of ``candidates``."""
    own = "%d.%d.%d" % sys.version_info[:3]
    if admits(requirement, own):
        return sys.executable, own
    fitting, seen = [], []
    for where, python in candidates(requirement, uv):
        version = interpreter_version(python)
        seen.append(f"{python} ({version or 'does not run'}, {where})")
        if version and admits(requirement, version):
            fitting.append((tuple(int(p) for p in version.split(".")), str(python), version))
    if fitting:
        _, python, version = min(fitting)
        return python, version
    looked = "; ".join(seen) if seen else "none"
    raise PythonNotFound(
        f"{name} needs Python {requirement} (its method.yaml, field python) and none was found: srbf runs {own}; "
        f"looked at uv python find, pyenv ({pyenv_root() / 'versions'}) and python3.X on PATH, found: {looked}; "
        f"install one (pyenv install, uv python install) or pass --python PATH")
