"""Committed locks of the method environments: every package a method's environment holds, pinned
with the hashes of its files, so that an install today gets what the locked install got.

A lock is a requirements file as ``uv pip compile --generate-hashes`` writes it, one per method
and Python minor version (``srbf/methods/NAME/lock-py3.11.txt``: NumPy's and SciPy's releases differ by
Python version), under a header of srbf's that names the inputs it was resolved from. Its hash
(``lock_hash``) is the sha256 of the file's bytes, the same as ``sha256sum`` prints, and goes into
the environment's manifest. ``diff_packages`` says what a fresh resolution changed.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from srbf.core import SrbfError
from srbf.methods.roster import MethodSpec

INPUTS_PREFIX = "# inputs: "
_REQUIREMENT = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;[^\\]*)?$")
_HASH = re.compile(r"--hash=(sha256:[0-9a-f]{64})$")


class LockError(SrbfError, ValueError):
    """A lock that cannot be read or made; the message names the file, the line and the value."""


@dataclass(frozen=True)
class LockedPackage:
    name: str  # as the lock spells it
    version: str
    hashes: tuple[str, ...] = field(default=())


def canonical_name(name: str) -> str:
    """The comparable form of a distribution name (PEP 503: ``scikit_learn`` is ``scikit-learn``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_inputs(spec: MethodSpec) -> list[str]:
    """What a method's lock is resolved from: NumPy, its pre-install requirements, its pins."""
    pre = [req for step in spec.pre_install for req in step]
    return ["numpy", *pre, *spec.requirements]


def lock_hash(text: str) -> str:
    """The lock's hash as the manifest stores it: ``sha256:`` and the hex digest of its bytes."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def parse_lock(text: str, source: str = "lock") -> dict[str, LockedPackage]:
    """The packages of a hashed requirements file, by canonical name.

    Reads ``name==version`` lines (an environment marker is allowed) continued with backslashes
    by ``--hash=sha256:...`` options; comments and blank lines are skipped. Anything else, a
    package twice, or a package without a hash is a LockError naming ``source`` and the line.
    """
    packages: dict[str, LockedPackage] = {}
    logical: list[tuple[int, str]] = []
    pending, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not pending:
            start = number
        pending += " " + line
        if line.endswith("\\"):
            pending = pending[:-1]
            continue
        if pending.strip():
            logical.append((start, pending.strip()))
        pending = ""
    if pending.strip():
        logical.append((start, pending.strip()))
    for number, line in logical:
        words = line.split()
        hashes = tuple(m.group(1) for m in map(_HASH.match, words[1:]) if m)
        options = [w for w in words[1:] if w.startswith("--")]
        requirement = " ".join(w for w in words if not w.startswith("--"))
        match = _REQUIREMENT.match(requirement)
        if not match or len(hashes) != len(options):
            raise LockError(f"{source}, line {number}: not a pinned requirement with hashes: {line[:120]!r}")
        name, version = match.groups()
        if not hashes:
            raise LockError(f"{source}, line {number}: {name}=={version} has no --hash")
        key = canonical_name(name)
        if key in packages:
            raise LockError(f"{source}, line {number}: {name} is pinned twice")
        packages[key] = LockedPackage(name, version, hashes)
    return packages


def read_inputs(text: str) -> list[str] | None:
    """The inputs recorded in a lock's header (None when it has no srbf header)."""
    for line in text.splitlines():
        if line.startswith(INPUTS_PREFIX):
            return line[len(INPUTS_PREFIX) :].split()
    return None


def versions(packages: Mapping[str, LockedPackage]) -> dict[str, str]:
    return {key: p.version for key, p in packages.items()}


@dataclass(frozen=True)
class LockDiff:
    """What changed from one resolved set to another, by canonical name."""

    added: dict[str, str]
    removed: dict[str, str]
    changed: dict[str, tuple[str, str]]

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def lines(self) -> list[str]:
        """One line per package, changed first: ``~ numpy 2.3.4 -> 2.4.0``, ``+ new 1.0``, ``- gone 2.0``."""
        out = [f"~ {name} {old} -> {new}" for name, (old, new) in sorted(self.changed.items())]
        out += [f"+ {name} {version}" for name, version in sorted(self.added.items())]
        out += [f"- {name} {version}" for name, version in sorted(self.removed.items())]
        return out


def diff_packages(old: Mapping[str, str], new: Mapping[str, str]) -> LockDiff:
    """Compare two {name: version} maps (names in any spelling; compared canonically)."""
    a = {canonical_name(k): v for k, v in old.items()}
    b = {canonical_name(k): v for k, v in new.items()}
    return LockDiff(
        added={k: b[k] for k in b.keys() - a.keys()},
        removed={k: a[k] for k in a.keys() - b.keys()},
        changed={k: (a[k], b[k]) for k in a.keys() & b.keys() if a[k] != b[k]},
    )


def subset(text: str, names: list[str], source: str = "lock") -> str:
    """The hashed lines of ``names`` from a lock (for a pre-install step); LockError if one is missing."""
    packages = parse_lock(text, source)
    lines = []
    for requirement in names:
        key = canonical_name(re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0])
        if key not in packages:
            raise LockError(f"{source}: {requirement} is not in the lock; refresh it (`srbf methods lock`)")
        p = packages[key]
        lines.append(" \\\n    ".join([f"{p.name}=={p.version}", *(f"--hash={h}" for h in p.hashes)]))
    return "\n".join(lines) + "\n"


def find_uv() -> str | None:
    """The ``uv`` program on PATH or beside srbf's interpreter (``pip install uv`` puts it there),
    unless ``SRBF_INSTALLER=pip`` asks for pip; None when there is none."""
    if os.environ.get("SRBF_INSTALLER", "").strip().lower() == "pip":
        return None
    return shutil.which("uv") or shutil.which("uv", path=str(Path(sys.executable).parent))


def header(spec: MethodSpec, python: str) -> str:
    return (f"# srbf lock of the {spec.name} environment on Python {python}, resolved from PyPI by\n"
            f"# uv pip compile --generate-hashes. Refresh: srbf methods lock {spec.name} --python-version {python}\n"
            f"{INPUTS_PREFIX}{' '.join(lock_inputs(spec))}\n")  # fmt: skip


def compile_lock(spec: MethodSpec, python: str, uv: str, *, timeout: float = 600.0) -> str:
    """Resolve ``spec``'s inputs afresh for Python ``python`` with uv; the lock's text (header first).

    ``python`` is a version ("3.12") or an interpreter path; the header names the version.
    LockError with uv's last lines when the resolution fails.
    """
    target = ["--python-version", python] if re.fullmatch(r"\d+\.\d+", python) else ["--python", python]
    args = [uv, "pip", "compile", "-", "--generate-hashes", "--no-header", "--quiet", *target]
    if "--no-build-isolation" in spec.pip_flags:
        args.append("--no-build-isolation")
    try:
        done = subprocess.run(args, input="\n".join(lock_inputs(spec)) + "\n", capture_output=True, text=True,
                              errors="replace", timeout=timeout)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LockError(f"{spec.name}: cannot resolve with {uv}: {exc}") from exc
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-12:])
        raise LockError(f"{spec.name}: uv could not resolve {' '.join(lock_inputs(spec))} for Python {python}:\n{tail}")
    version = python if re.fullmatch(r"\d+\.\d+", python) else python_minor(python)
    text = header(spec, version) + done.stdout
    parse_lock(text, f"the lock resolved for {spec.name}")  # what uv wrote must read back
    return text


def python_minor(python: str) -> str:
    """The ``3.11`` of an interpreter."""
    done = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)  # fmt: skip
    if done.returncode != 0 or not re.fullmatch(r"\d+\.\d+", done.stdout.strip()):
        raise LockError(f"cannot tell the Python version of {python}: {done.stderr.strip()[-200:]}")
    return done.stdout.strip()
