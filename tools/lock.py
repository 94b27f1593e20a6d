"""srbf's own lock: write it, check it against pyproject.toml, print one package's block of it.

`requirements.lock` holds every package srbf and its dev and cluster extras resolve to, pinned
with the hashes of every wheel, one version per package for every Python srbf supports (3.11-3.13) and every
platform, so a fresh machine installs exactly the stack CI tested. `make demo`, `make test` and
`.ci/run` install from it; `make lock` refreshes it; pyproject.toml keeps lower bounds for library
users. Its first line records a digest of pyproject.toml's dependency tables, so editing them
without refreshing the lock is caught (`--check`, run by the test suite) with no network.

    python tools/lock.py --write          # resolve afresh with uv (make lock)
    python tools/lock.py --check          # the lock matches pyproject.toml
    python tools/lock.py --print uv       # one package's lines (the installer bootstraps uv)

`--print` needs the standard library only (it bootstraps the install); `--write` and `--check` run
in srbf's environment: they read the lock with `srbf.methods.lockfile` and check bounds with
`packaging` (a dependency of pytest).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
LOCK = ROOT / "requirements.lock"
DIGEST_PREFIX = "# srbf-pyproject-dependencies-sha256: "
EXTRAS = ("dev", "cluster")
# One version of each package for all supported Pythons ("fewest"), so a score computed under
# Python 3.11 and one under 3.13 come from the same NumPy, SciPy and SymPy.
COMPILE = [
    "pip", "compile", "--universal", "--fork-strategy", "fewest", "--generate-hashes",
    "--python-version", "3.11", "--custom-compile-command", "make lock", "--quiet",
]


class LockError(Exception):
    """The lock is missing, malformed or out of date; the message says how to fix it."""


def dependency_tables(pyproject: Path) -> dict:
    project = tomllib.loads(pyproject.read_text())["project"]
    return {
        "requires-python": project.get("requires-python"),
        "dependencies": project.get("dependencies", []),
        "optional-dependencies": {e: project.get("optional-dependencies", {}).get(e, []) for e in EXTRAS},
    }


def digest(pyproject: Path) -> str:
    """sha256 of pyproject.toml's dependency tables in a canonical JSON form."""
    text = json.dumps(dependency_tables(pyproject), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def normalise(name: str) -> str:
    """PEP 503's comparable name; ``srbf.methods.lockfile.canonical_name``, repeated here only
    because ``--print`` runs before srbf is installed."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(lock: Path) -> dict[str, str]:
    """Comparable package name -> pinned version, read by srbf's own lock reader (which also
    refuses a malformed line, a package pinned twice or one without a hash)."""
    from srbf.methods.lockfile import LockError as ReadError, parse_lock

    try:
        return {name: package.version for name, package in parse_lock(lock.read_text(), str(lock)).items()}
    except ReadError as error:
        raise LockError(str(error)) from None


def write(pyproject: Path, lock: Path, uv: str, upgrade: bool) -> None:
    """Resolve with uv and write the lock with the digest line on top."""
    extras = [arg for extra in EXTRAS for arg in ("--extra", extra)]
    command = [uv, *COMPILE, *extras, *(["--upgrade"] if upgrade else []), str(pyproject)]
    result = subprocess.run(command, capture_output=True, text=True, cwd=pyproject.parent)
    if result.returncode != 0:
        raise LockError(f"uv pip compile failed:\n{result.stderr.strip()}")
    lock.write_text(f"{DIGEST_PREFIX}{digest(pyproject)}\n{result.stdout}")


def check(pyproject: Path, lock: Path) -> None:
    """Raise LockError unless the lock was written from these dependency tables and pins every
    direct requirement at a version its specifier allows."""
    from packaging.requirements import Requirement

    if not lock.is_file():
        raise LockError(f"{lock}: missing; run `make lock`")
    text = lock.read_text()
    first = text.splitlines()[0] if text else ""
    if not first.startswith(DIGEST_PREFIX):
        raise LockError(f"{lock}: line 1 should record the pyproject digest; run `make lock`")
    if first[len(DIGEST_PREFIX):].strip() != digest(pyproject):
        raise LockError(f"{lock}: written for other dependencies than {pyproject.name} lists now; run `make lock`")
    pinned = pins(lock)
    tables = dependency_tables(pyproject)
    wanted = tables["dependencies"] + [r for extra in tables["optional-dependencies"].values() for r in extra]
    for spec in wanted:
        requirement = Requirement(spec)
        version = pinned.get(normalise(requirement.name))
        if version is None:
            raise LockError(f"{lock}: {requirement.name} (from {pyproject.name}) is not pinned; run `make lock`")
        if not requirement.specifier.contains(version, prereleases=True):
            raise LockError(f"{lock}: {requirement.name}=={version} does not satisfy '{spec}' in {pyproject.name}")


def block(lock_text: str, package: str) -> str:
    """The lines of one package's entry (its pin and hashes), for a hash-checked bootstrap."""
    lines = lock_text.splitlines()
    name = normalise(package)
    for i, line in enumerate(lines):
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==", line)
        if match and normalise(match.group(1)) == name:
            end = i + 1
            while end < len(lines) and lines[end].startswith(" "):
                end += 1
            entry = [l for l in lines[i:end] if not l.strip().startswith("#")]
            entry[-1] = entry[-1].rstrip(" \\")
            return "\n".join(entry) + "\n"
    raise LockError(f"{LOCK.name}: no entry for {package}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="resolve afresh with uv and write the lock")
    action.add_argument("--check", action="store_true", help="fail unless the lock matches pyproject.toml")
    action.add_argument("--print", metavar="PACKAGE", help="print one package's pinned, hashed entry")
    parser.add_argument("--pyproject", type=Path, default=PYPROJECT)
    parser.add_argument("--lock", type=Path, default=LOCK)
    parser.add_argument("--uv", default="uv", help="the uv executable for --write (default: uv on PATH)")
    parser.add_argument("--upgrade", action="store_true", help="with --write: newest allowed versions")
    args = parser.parse_args(argv)
    try:
        if args.write:
            write(args.pyproject, args.lock, args.uv, args.upgrade)
            print(f"wrote {args.lock} ({len(pins(args.lock))} packages)")
        elif args.check:
            check(args.pyproject, args.lock)
            print(f"{args.lock.name} matches {args.pyproject.name}")
        else:
            sys.stdout.write(block(args.lock.read_text(), args.print))
    except (LockError, OSError) as error:
        print(f"lock: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
