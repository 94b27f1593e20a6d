"""The judge's records for people and for strict JSON: ``format_metrics`` prints one as a table
grouped like docs/metrics.md; ``jsonable`` writes infinities as the strings "inf" and "-inf".
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from srbf.core import to_plain
from srbf.judge.metric_keys import COMPARISON_KEYS, FIT_KEYS, LENGTH_KEYS, SRBENCH_KEYS

__all__ = ["format_metrics", "jsonable"]

_INFINITY = {math.inf: "inf", -math.inf: "-inf"}


def jsonable(metrics: Mapping[str, Any]) -> dict[str, Any]:
    """A plain copy (``srbf.core.to_plain``) with infinities as "inf"/"-inf"."""
    return {key: _INFINITY.get(value, value) if isinstance(value, float) else value
            for key, value in to_plain(metrics).items()}  # fmt: skip


def _format_value(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if value == 0:
            return "0"
        if 1e-4 <= abs(value) < 1e6:
            return f"{value:.6g}"
        return f"{value:.4e}"
    return str(value)


_SECTIONS = (
    ("Fit to the data", FIT_KEYS + ("srbench_accuracy_solution",)),
    ("Comparison with the truth", COMPARISON_KEYS + ("srbench_symbolic_solution",)),
    ("Length", LENGTH_KEYS),
)


def format_metrics(metrics: Mapping[str, Any]) -> str:
    """A readable table of one result: sections, one metric per line, '-' for missing values."""
    shown = set()
    lines: list[str] = []
    width = max((len(key) for key in metrics), default=10)
    for title, keys in _SECTIONS:
        present = [key for key in keys if key in metrics]
        if not present:
            continue
        lines.append(title)
        for key in present:
            lines.append(f"  {key:<{width}}  {_format_value(metrics[key])}")
            shown.add(key)
    notes = [key for key in metrics if key not in shown and key not in SRBENCH_KEYS]
    extra = [(key, metrics[key]) for key in notes if metrics[key] not in (None, "", False) or key == "failure_reason"]
    if extra:
        lines.append("Notes")
        for key, value in extra:
            lines.append(f"  {key:<{width}}  {_format_value(value)}")
    return "\n".join(lines)
