"""Building the ``srbf`` parser, and ``--help``, load none of the heavy libraries nor the judge.

Each case runs in a fresh interpreter, so what an earlier test imported does not count.
benchmarks/cli_startup.py measures the time; this test only checks what is imported.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "pandas", "sympy", "scipy", "pydantic", "srbf.judge", "yaml", "matplotlib")

PROBE = """
import json, sys
from srbf.cli import main
try:
    main({argv!r})
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r} or m.startswith("srbf.judge"))))
"""


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["methods", "new", "--help"], ["score", "--help"],
                                  ["catalogs", "check", "--help"], ["analyze", "--help"],
                                  ["site", "build", "--help"], ["merge", "--help"]])
def test_help_imports_nothing_heavy(argv):
    code = PROBE.format(argv=argv, heavy=set(h for h in HEAVY if "." not in h))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "usage: srbf" in result.stdout
    loaded = json.loads(result.stdout.strip().splitlines()[-1])
    assert loaded == [], f"srbf {' '.join(argv)} imported {loaded}"


def test_the_probe_sees_a_heavy_import():
    """The same probe on a command that needs NumPy reports it (the check can fail)."""
    code = PROBE.format(argv=["catalogs", "show", "nguyen", "Nguyen-1", "--json"], heavy={"numpy"})
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "numpy" in json.loads(result.stdout.strip().splitlines()[-1])
