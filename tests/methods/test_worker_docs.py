"""The example method in docs/adapters.md runs as documented."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from srbf.expr import compile_expr, parse
from srbf.methods import Worker
from srbf.core import FitTask, TaskKey

pytestmark = pytest.mark.slow

DOC = Path(__file__).resolve().parents[2] / "docs" / "adapters.md"


def test_the_documented_example_method_works(tmp_path):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    example = next(b for b in blocks if "def fit(X, y, *, budget" in b and "np.linalg.lstsq" in b)
    path = tmp_path / "best_term.py"
    path.write_text(example)
    X = np.random.default_rng(0).uniform(-2, 2, size=(256, 2))
    y = 3 * np.sin(X[:, 1]) + 0.5
    key = TaskKey("best_term", "-", "demo", 1, "p1", 0, 1, "n_support=256", 0)
    with Worker(path) as worker:
        result = worker.fit(FitTask(key, X, y, ("x0", "x1"), time_limit=60))
    assert result.status == "ok", result.error
    predicted = compile_expr(parse(result.expression, ["x0", "x1"]), ["x0", "x1"])(X)
    np.testing.assert_allclose(predicted, y, atol=1e-9)
    assert result.trajectory[-1][1] == result.expression
    assert len(result.internals["front"]) == 8
    np.testing.assert_allclose(result.internals["constants"], [3.0, 0.5], atol=1e-9)
