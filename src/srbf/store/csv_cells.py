"""CSV that a spreadsheet opens as data: the one way srbf writes every CSV file.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a formula, and some
also treat a leading tab or carriage return that way ("CSV injection"). srbf's CSVs carry text
that others wrote: method names, problem ids, a method's expressions and errors. So every text
cell that a spreadsheet would run gets one leading apostrophe (``'=HYPERLINK(...)``), which
spreadsheets read as "this is text" and hide; nothing else changes.

What is escaped: a text cell whose first character is one of ``= + - @``, tab or carriage return,
unless the whole cell is a plain number (``-1.5``, ``-inf``: a spreadsheet reads it as that
number, which runs nothing). A formula of srbf's own, ``-x0 + 1``, is such a cell: it is written
``'-x0 + 1``, readable, and opened as text rather than as a broken spreadsheet formula. A cell
that already starts with apostrophes before one of those characters gets one more, so
``unescape_cell`` gives every cell back exactly. Numbers, booleans and empty cells are never
touched; Parquet files are written exact, without escaping. Lines end in LF, or in CRLF when
some cell holds a carriage return (so that the cell is quoted whole: pandas quotes only the
characters of its line terminator).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

__all__ = ["escape_cell", "read_csv", "unescape_cell", "write_csv"]

_RUNS = re.compile(r"'*[=+\-@\t\r]")  # what a spreadsheet runs, after any apostrophes escaping it


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return not text[:1].isspace() and not text[-1:].isspace()


def escape_cell(value: Any) -> Any:
    """``value`` as a CSV cell a spreadsheet shows as text: a leading apostrophe where it would
    run; anything that is not text is returned unchanged."""
    if isinstance(value, str) and _RUNS.match(value) and not _is_number(value):
        return "'" + value
    return value


def unescape_cell(value: Any) -> Any:
    """The cell ``escape_cell`` was given (for reading srbf's CSV back with pandas or ``csv``)."""
    if isinstance(value, str) and value.startswith("'") and _RUNS.match(value[1:]) and not _is_number(value[1:]):
        return value[1:]
    return value


def write_csv(frame: Any, path: str | Path, **options: Any) -> None:
    """Write the pandas DataFrame ``frame`` to ``path`` as CSV (``index=False`` unless given), every
    text cell escaped. The frame itself is not changed."""
    import pandas as pd

    out = frame.copy(deep=False)
    carriage = False
    for column in out.columns:
        series = out[column]
        kind = series.dtype
        if kind == object or pd.api.types.is_string_dtype(kind) or isinstance(kind, pd.CategoricalDtype):
            out[column] = series.astype(object).map(escape_cell)
            carriage = carriage or bool(out[column].map(lambda v: isinstance(v, str) and "\r" in v).any())
    out.columns = [escape_cell(c) for c in out.columns]
    # pandas quotes a field holding a line break of its line terminator only: with a bare CR in
    # some cell, lines end in CRLF (RFC 4180's own) so that such fields are quoted, not split
    out.to_csv(path, **{"index": False, "lineterminator": "\r\n" if carriage else "\n", **options})


def read_csv(path: str | Path, **options: Any) -> Any:
    """A CSV that ``write_csv`` wrote, read back with pandas and every text cell unescaped."""
    import pandas as pd

    frame = pd.read_csv(path, **options)
    frame.columns = [unescape_cell(c) for c in frame.columns]
    for column in frame.columns:
        kind = frame[column].dtype
        if kind == object or pd.api.types.is_string_dtype(kind):
            frame[column] = frame[column].map(unescape_cell)
    return frame
