"""The report's stack section, from a real store: one row per method and stack, names escaped."""

from __future__ import annotations

from srbf.report.stack import stack_markdown
from srbf.core import FitResult, TaskKey
from srbf.store import ResultsStore


def test_the_section_escapes_names_and_lists_the_judge_stacks(tmp_path):
    with ResultsStore(tmp_path) as store:
        campaign = store.start_campaign("x", {}, "cfg", "harness_tuned", git=None,
                                        method_stack={"method_package": "my|pkg", "method_package_version": "1"})  # fmt: skip
        key = TaskKey("a|b*c", "cfg", "nguyen", 1, "nguyen-1", 0, 1.0, "n_support=8;noise=0", 0)
        pid = store.record(key, FitResult(status="ok", expression="x0"), campaign_id=campaign, data_hash="h")
        store.record_metrics(pid, "1.0", {"r2": 1.0}, judge_stack={
            "python_version": "3.11.9", "numpy_version": "2.1.3", "scipy_version": "1.14.1",
            "sympy_version": "1.13.3", "mpmath_version": "1.3.0"})  # fmt: skip
        lines = stack_markdown(store.stack_frame())
    row = next(line for line in lines if line.startswith("| a"))
    assert row.startswith(r"| a\|b\*c | 1 | ") and r"| my\|pkg 1 |" in row and row.endswith("| 1.0 #1 |")
    assert row.count(" | ") == 8  # nine cells: the escaped bars split none
    assert "- #1 judge 1.0: python 3.11.9, numpy 2.1.3, scipy 1.14.1, sympy 1.13.3, mpmath 1.3.0" in lines
    with ResultsStore(tmp_path / "empty") as store:
        assert stack_markdown(store.stack_frame()) == ["_No stack recorded for these results._", ""]
