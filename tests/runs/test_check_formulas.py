"""`srbf check` fails an adapter whose formula is not finite on more than 1 % of the support
points, or does not parse, naming the problem and showing the formula."""

from __future__ import annotations

import pytest

from driver_helpers import write_catalog, write_config
from srbf.cli import main

pytestmark = pytest.mark.slow

# sqrt(x - t), with t chosen so that exactly options["bad"] support points have x < t (NaN there)
HOLES = '''
import numpy as np


def fit(X, y, *, budget, seed, variables, options, report):
    x = np.sort(X[:, 0])
    t = (x[options["bad"] - 1] + x[options["bad"]]) / 2 if options["bad"] else x[0] - 1.0
    return {"expression": "sqrt(x - %r)" % float(t) if options["bad"] >= 0 else "sqrt(x -* 1)"}
'''


def config(tmp_path, bad: int, name: str) -> str:
    method = tmp_path / "holes.py"
    method.write_text(HOLES)
    catalog = write_catalog(tmp_path, 2)
    return str(write_config(tmp_path, name=name, catalogs=[str(catalog)],
                            method={"name": "holes", "adapter": {"type": "file", "path": str(method)},
                                    "options": {"bad": bad}},
                            sampling={"n_support": 500, "n_validation": 50, "draws": 1}, budgets=[1]))  # fmt: skip


@pytest.mark.parametrize("bad, passes", [(0, True), (5, True), (6, False), (250, False)])
def test_non_finite_on_more_than_one_percent_of_the_support_fails(tmp_path, capsys, bad, passes):
    code = main(["check", "-c", config(tmp_path, bad, f"c{bad}.yaml")])
    out = capsys.readouterr().out
    if passes:
        assert code == 0, out
        assert f"ok      evaluate      faults/p01: finite on {500 - bad} of 500 support points" in out
        return
    assert code == 1 and "check failed at step 'evaluate'" in out
    assert f"FAILED  evaluate      faults/p01: the formula is not finite on {bad} of 500 support points (more than 1%)" in out
    assert "formula: sqrt(x - " in out and "ok      score" not in out


def test_a_formula_that_does_not_parse_is_named_and_shown(tmp_path, capsys):
    code = main(["check", "-c", config(tmp_path, -1, "c.yaml")])
    out = capsys.readouterr().out
    assert code == 1 and "FAILED  parse         faults/p01: the formula does not parse" in out
    assert "formula: sqrt(x -* 1)" in out
