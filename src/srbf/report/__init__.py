"""Reports: the Markdown report with figures and CSV tables, and what compare and ranks print.

- :func:`build_report` -- the long per-prediction frame to report/index.md, figures/*.png and
  tables/*.csv (docs/report.md); :func:`read_table` reads one of those CSVs back;
- :func:`compare`, :func:`ranks` -- what ``srbf compare`` and ``srbf ranks`` print;
- :class:`FigureFiles` -- which figure files (formats, resolution) a report writes;
- :func:`format_pm`, :func:`format_interval`, :func:`interval_decimals` -- rounding to the
  precision an interval justifies.

Imported lazily: ``srbf`` registers the report's commands without loading pandas or matplotlib.
"""

from __future__ import annotations

from srbf.core import lazy_attributes

_EXPORTS = {
    "Report": "srbf.report.build",
    "build_report": "srbf.report.build",
    "read_table": "srbf.report.build",
    "compare": "srbf.report.terminal",
    "ranks": "srbf.report.terminal",
    "format_interval": "srbf.report.rounding",
    "format_pm": "srbf.report.rounding",
    "interval_decimals": "srbf.report.rounding",
    "FigureFiles": "srbf.report.figure_files",
    "ReportInputError": "srbf.report.data",
    "load_long_frame": "srbf.report.data",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_attributes(__name__, _EXPORTS)
