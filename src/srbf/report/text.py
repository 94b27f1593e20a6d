"""The one plain-text table of srbf's terminal output (``srbf compare``, ``ranks``, ``status``, ...).

It lives in ``report``, the lowest layer that prints a table (the terminal views of the analysis);
the CLI, above it, prints its own tables (catalogs, methods, status, the demo's) with it too, so
every table srbf prints is aligned the same way. Standard library only: importing it loads
neither pandas nor the rest of the report.
"""

from __future__ import annotations

from typing import Collection, Sequence

__all__ = ["text_table"]


def text_table(header: Sequence[object], rows: Sequence[Sequence[object]], *, right: Collection[int] = (),
               header_rule: bool = True, footer: Sequence[Sequence[object]] = ()) -> str:
    """Columns as wide as their widest cell, two spaces apart, trailing blanks cut.

    ``right``: indices of right-aligned columns (numbers); ``header_rule``: a dashed line under the
    header; ``footer``: rows (totals) printed after a dashed line below the others.
    """
    body = [list(map(str, row)) for row in rows]
    tail = [list(map(str, row)) for row in footer]
    head = list(map(str, header))
    widths = [max(len(row[i]) for row in [head, *body, *tail] if i < len(row)) for i in range(len(head))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    rule = "  ".join("-" * w for w in widths)
    lines = [line(head)] + ([rule] if header_rule else []) + [line(r) for r in body]
    if tail:
        lines += [rule] + [line(r) for r in tail]
    return "\n".join(lines)
