"""The stack a method runs with, as its own interpreter sees it, recorded with every campaign.

A method runs under its own interpreter (``python:`` in its config, ``env:NAME`` for a roster
method's environment), so its Python, NumPy and SciPy may differ from srbf's. ``method_stack``
asks that interpreter once (``stack_probe.py``, which reads the installers' records without
importing anything: one short child process per interpreter and run), in the clean environment a
worker gets, and reads the environment's lock hash from its manifest (``envs.env_stack``). The
versions are the live ones, not the manifest's: an environment changed since its install shows as
it is. A built-in method under srbf's own interpreter is answered in
this process, with the lock srbf's own environment was installed from (``make`` leaves a copy in
it). What cannot be known is None: the package of a user's method file, the lock of an
interpreter that is no srbf environment, anything a probe that fails cannot tell (the run goes on).
A package the probe looked for and did not find is recorded as ``NOT_INSTALLED`` ("not
installed"), so that the stack tables tell it from a value not recorded (NULL, shown as ``?``).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Mapping

import srbf
from srbf.methods.envs import env_name, env_stack, is_env_spec, resolve_python
from srbf.methods.isolation import clean_environment
from srbf.methods.lockfile import lock_hash as file_lock_hash
from srbf.methods.roster import ROSTER
from srbf.methods.stack_probe import versions

PROBE = Path(__file__).resolve().with_name("stack_probe.py")
PROBE_TIMEOUT_SECONDS = 30.0
NOT_INSTALLED = "not installed"  # recorded for a package the method's interpreter does not have


def method_package(adapter_type: str, adapter: str | None, python: str | None) -> str | None:
    """The distribution that does the fitting: srbf for a built-in, the roster package of an
    ``env:NAME`` interpreter or of a roster adapter file, else None (srbf cannot tell)."""
    if adapter_type == "builtin":
        return "srbf"
    if python and is_env_spec(python):
        return ROSTER[env_name(python)].package if env_name(python) in ROSTER else None
    if adapter:
        for spec in ROSTER.values():
            if Path(adapter).resolve() == spec.adapter_path.resolve():
                return spec.package
    return None


OWN_LOCK = "srbf-lock.txt"  # the copy of requirements.lock tools/install_from_lock.sh leaves in srbf's env


def lock_hash(python: str | None) -> str | None:
    """The hash of the lock an ``env:NAME`` environment was installed from, as its manifest records
    it (``envs.env_stack``); for srbf's own interpreter (``None``), the hash of the lock copy the
    installer left in its environment. None: no such environment, or one installed before locks."""
    if python is None or _same_interpreter(python):
        own = Path(sys.prefix) / OWN_LOCK
        return file_lock_hash(own.read_text()) if own.is_file() else None
    if not is_env_spec(python):
        return None
    value = (env_stack(python) or {}).get("lock_hash")
    return value if isinstance(value, str) and value else None


def _same_interpreter(python: str) -> bool:
    """Whether ``python`` is this process's interpreter. Symlinks are not followed: a virtual
    environment's interpreter is a link to the base one, and its packages are its own."""
    return os.path.abspath(python) == os.path.abspath(sys.executable)


def probe(python: str, names: tuple[str, ...], env: Mapping[str, str | None] = {}) -> dict[str, Any]:
    """``{"python": version, "versions": {name: version or None}}`` as ``python`` sees them in a
    worker's clean environment with the config's ``env``; in this process when ``python`` is
    srbf's own and no ``PYTHON*`` variable is set; {} when the interpreter cannot answer."""
    if _same_interpreter(python) and not any(key.startswith("PYTHON") for key in (*env, *os.environ)):
        return {"python": platform.python_version(), "versions": versions(names)}
    environ = clean_environment(env, Path(tempfile.gettempdir()))  # the environment a worker gets
    try:
        done = subprocess.run([python, str(PROBE), *names], capture_output=True, text=True, errors="replace",
                              stdin=subprocess.DEVNULL, env=environ, timeout=PROBE_TIMEOUT_SECONDS)  # fmt: skip
        answer = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {}
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return {}
    return answer if isinstance(answer, dict) and isinstance(answer.get("versions", {}), dict) else {}


def _text(value: Any) -> str | None:
    return value[:100] if isinstance(value, str) and value else None


def _version(versions: Mapping[str, Any], name: str | None) -> str | None:
    """A package's version as the probe answered it: ``NOT_INSTALLED`` when it looked and found
    none, None when it did not answer for it (or ``name`` is None)."""
    if name is None or name not in versions:
        return None
    return _text(versions[name]) if versions[name] is not None else NOT_INSTALLED


def method_stack(
    adapter_type: str,
    adapter: str | None,
    python: str | None,
    env: Mapping[str, str | None] = {},
    cache: dict | None = None,
) -> dict[str, str | None]:
    """The method's stack, keyed as the store's ``METHOD_STACK_COLUMNS``.

    ``adapter_type`` and ``adapter`` (a built-in's name or a method file's path) and ``python``
    (a path, ``env:NAME`` or None for srbf's own) are the method config's; ``env`` the worker's
    environment changes. ``cache`` (a dict kept across the calls of one run) asks each interpreter
    once."""
    package = method_package(adapter_type, adapter, python)
    try:
        interpreter = resolve_python(python) if python else sys.executable
    except ValueError:  # an environment removed since its worker started: nothing to ask
        interpreter = ""
    names = tuple(dict.fromkeys(n for n in ("numpy", "scipy", package) if n and n != "srbf"))
    key = (interpreter, names, tuple(sorted(env.items())))
    answer = cache.get(key) if cache is not None else None
    if answer is None:
        answer = probe(interpreter, names, env) if interpreter else {}
        if cache is not None:
            cache[key] = answer
    versions = answer.get("versions", {})
    return {
        "method_python_version": _text(answer.get("python")),
        "method_package": package,
        "method_package_version": srbf.__version__ if package == "srbf" else _version(versions, package),
        "method_numpy_version": _version(versions, "numpy"),
        "method_scipy_version": _version(versions, "scipy"),
        "method_lock_hash": _text(lock_hash(python)),
    }
