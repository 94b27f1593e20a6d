"""Reports: the Markdown report with figures, and the static results explorer.

- :func:`build_report` -- the long per-prediction frame to report/index.md, figures/*.png and
  tables/*.csv (docs/report.md); :func:`read_table` reads one of those CSVs back;
- :func:`compare`, :func:`ranks` -- what ``srbf compare`` and ``srbf ranks`` print;
- :func:`format_pm`, :func:`format_interval`, :func:`interval_decimals` -- rounding to the
  precision an interval justifies.

Imported lazily: ``srbf`` registers the report's commands without loading pandas or matplotlib.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "Report": "srbf.report.build",
    "build_report": "srbf.report.build",
    "read_table": "srbf.report.build",
    "compare": "srbf.report.terminal",
    "ranks": "srbf.report.terminal",
    "format_interval": "srbf.report.rounding",
    "format_pm": "srbf.report.rounding",
    "interval_decimals": "srbf.report.rounding",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'srbf.report' has no attribute {name!r}")
