"""The bingo adapter: its conversion checked on models recorded from bingo-nasa 0.5.7 (no bingo
needed; that srbf's reading gives bingo's own predictions is checked for every recorded case in
test_method_folders.py), its options, and real runs through the Worker when bingo's environment
exists (``srbf methods install bingo``, or a development venv at /tmp/env-bingo)."""

from __future__ import annotations

import pytest

from recorded.adapter_checks import adapter, cases, method_python, r2, recording, toy, worker_fits

NAME = "bingo"
bingo = adapter(NAME)
CASES = cases(NAME)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_conversion_is_what_the_adapter_recorded(case):
    assert bingo.to_infix(case["raw"], case["variables"]) == case["expression"]


def test_the_recording_covers_every_node_kind_bingo_can_simplify():
    built = next(c for c in CASES if c["name"] == "built: every node kind")
    assert {row[0] for row in built["raw"]["stack"]} == {-1, *range(0, 16)}
    assert recording(NAME)["version"] == "0.5.7"


def test_fitted_cases_report_incumbents_and_keep_the_budget():
    for case in (c for c in CASES if "budget" in c):
        assert case["trajectory"] and len(set(case["trajectory"])) == len(case["trajectory"])  # only changes
        assert case["internals"]["generations_run"] == case["budget"] == 10


def test_conversion_spells_protected_functions_and_shared_rows():
    v = ["m_1", "theta"]
    # rows: x1, c0, |x1|**c0 (safe pow), log|.|, sqrt|.|, and one row used twice (a graph, not a tree)
    data = {"stack": [[0, 1, 1], [1, 0, 0], [13, 0, 1], [9, 2, 2], [12, 0, 0], [4, 4, 4], [2, 3, 5]],
            "constants": [-0.5]}  # fmt: skip
    assert bingo.to_infix(data, v) == "(log(abs((abs(theta)**(-0.5)))) + (sqrt(abs(theta))*sqrt(abs(theta))))"
    assert bingo.to_infix({"stack": [[-1, 3, 3]], "constants": []}, v) == "3.0"


@pytest.mark.parametrize(("data", "message"), [
    ({"stack": [], "constants": []}, "empty command stack"),
    ({"stack": [[0, 2, 2]], "constants": []}, "expression uses column 2, the problem has 2"),
    ({"stack": [[1, 1, 1]], "constants": [1.0]}, "constant 1 of 1"),
    ({"stack": [[0, 0, 0], [2, 0, 1]], "constants": []}, "refers to a later row"),
    ({"stack": [[0, 0, 0], [99, 0, 0]], "constants": []}, "no srbf spelling for bingo node 99"),
])  # fmt: skip
def test_a_malformed_stack_is_a_clear_error(data, message):
    with pytest.raises(ValueError, match=message):
        bingo.to_infix(data, ["m_1", "theta"])


def test_operators_left_out_are_listed():
    used, missing = bingo.operators({})
    assert used == ["sin", "cos", "exp", "log", "sqrt", "+", "-", "*", "/"] and missing == []
    used, missing = bingo.operators({"unary": ["tanh", "square", "abs"], "binary": ["add", "max", "pow"]})
    assert used == ["|", "+", "pow"] and missing == ["tanh", "square", "max"]
    with pytest.raises(ValueError, match="no binary operator"):
        bingo.operators({"unary": ["sin"], "binary": ["max"]})


def test_evaluation_is_serial_during_the_fit(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    with bingo.serial_evaluation():
        import os

        assert "OMP_NUM_THREADS" not in os.environ
    assert os.environ["OMP_NUM_THREADS"] == "2"


# --- the real package ----------------------------------------------------------------------------

PYTHON = method_python(NAME)
needs_env = pytest.mark.skipif(PYTHON is None, reason="no bingo environment ($SRBF_HOME/envs/bingo or /tmp/env-bingo)")


@needs_env
@pytest.mark.slow
def test_real_fits_through_the_worker_are_reproducible():
    X, y = toy(0, n=48)
    problems = [(X, y, ("u", "v"), 10, 0), (X, y, ("u", "v"), 10, 0)]
    first, again = worker_fits(NAME, PYTHON, problems)
    for result in (first, again):
        assert result.status == "ok", result.error
    assert first.expression == again.expression
    assert first.internals["generations_run"] == 10
    assert [expression for _, expression in first.trajectory] == [expression for _, expression in again.trajectory]
    assert first.trajectory and all(r2(e, ("u", "v"), X, y) > -1e9 for _, e in first.trajectory)  # each reads back
    assert first.internals["front"] and all(r2(f["expression"], ("u", "v"), X, y) > -1e9 for f in first.internals["front"])
    assert r2(first.expression, ("u", "v"), X, y) > 0.5
