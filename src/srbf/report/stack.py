"""The report's stack section: what produced the results, per method, as one compact table.

The rows are ``srbf.store.stacks.stack_table``'s (the same ``srbf status`` prints), so the
report and the terminal cannot disagree; the full values are in ``tables/stack.csv``.
"""

from __future__ import annotations

import pandas as pd

from srbf.report.escape import md
from srbf.store.stacks import STACK_HEADER, stack_table


def stack_markdown(stack: pd.DataFrame) -> list[str]:
    """The section's lines: the table, then each judge stack by its number."""
    rows, legend = stack_table(stack)
    if not rows:
        return ["_No stack recorded for these results._", ""]
    lines = [
        "What produced each method's results: srbf's version and git commit, the Python of srbf and of the "
        "method (when it differs), the method's package, NumPy and SciPy as its own interpreter saw them, the "
        "lock hash of its environment, and the judge stacks that scored it. `?`: not recorded (results stored "
        "before srbf recorded it, or a method whose package srbf cannot name).",
        "",
        "| " + " | ".join(STACK_HEADER) + " |",
        "|" + " --- |" * len(STACK_HEADER),
    ]
    lines += ["| " + " | ".join(md(cell) for cell in row) + " |" for row in rows]
    lines += ["", *(f"- {md(line)}" for line in legend), ""] if legend else [""]
    return lines
