"""Reading stored metrics needs the judge's version, not its scoring code (SymPy, mpmath).

In a fresh interpreter, so what an earlier test imported does not count.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

PROBE = """
import json, sys
from srbf.report.data import load_long_frame
from srbf.judge import JUDGE_VERSION
before = sorted(m for m in sys.modules if m.split(".")[0] in ("sympy", "mpmath") or m == "srbf.judge.scoring")
from srbf.judge import Judge, score
print(json.dumps([before, Judge.__module__, score.__module__]))
"""


def test_the_judge_version_comes_without_the_scoring_code():
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    before, judge_module, score_module = json.loads(result.stdout.strip().splitlines()[-1])
    assert before == []
    assert judge_module == score_module == "srbf.judge.scoring"  # the rest of the judge, on first use
