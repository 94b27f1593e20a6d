"""Which files each report figure is written as: the formats (PNG, PDF, SVG) and the resolution.

``srbf analyze --format png,pdf,svg --dpi 300`` builds a :class:`FigureFiles`; every figure is drawn
once and saved once per format, next to each other (``curve_nrr_validation.png``, ``.pdf``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from srbf.report.data import ReportInputError

if TYPE_CHECKING:  # matplotlib is imported where figures are drawn only (srbf.report.drawing)
    from matplotlib.figure import Figure

FORMATS = ("png", "pdf", "svg")
EMBED_ORDER = ("png", "svg", "pdf")  # what index.md shows: a bitmap first, a PDF only as a link
MAX_DPI = 2400
# text stays text in vector files (editable, searchable; TrueType in PDF, which journals accept)
_EDITABLE_TEXT = {"svg.fonttype": "none", "pdf.fonttype": 42}
_NO_DATE = {"svg": {"Date": None}, "pdf": {"CreationDate": None}}


@dataclass(frozen=True)
class FigureFiles:
    """formats: the file types written, in order. dpi: dots per inch of bitmaps (and of images
    inside vector files); None keeps the default, 200."""

    formats: tuple[str, ...] = ("png",)
    dpi: int | None = None

    @property
    def embedded(self) -> str:
        """The format index.md embeds."""
        return next(f for f in EMBED_ORDER if f in self.formats)

    def targets(self, path: str | Path) -> list[Path]:
        """The files a figure saved as ``path`` is written to: one per format, in order."""
        return [Path(path).with_suffix(f".{fmt}") for fmt in self.formats]

    def save(self, fig: Figure, path: str | Path, default_dpi: int, **options) -> list[Path]:
        """``fig`` written as ``path`` with each format's suffix; the paths written."""
        from matplotlib import rc_context

        from srbf.report.agg_canvas import reuse_renderer

        reuse_renderer(fig)
        written = []
        for fmt, target in zip(self.formats, self.targets(path)):
            target.parent.mkdir(parents=True, exist_ok=True)
            metadata = _NO_DATE.get(fmt)  # no timestamp: the same figure, the same bytes
            with rc_context(_EDITABLE_TEXT):
                fig.savefig(target, format=fmt, dpi=self.dpi or default_dpi, metadata=metadata, **options)
            written.append(target)
        return written


def figure_files(formats: str | None = None, dpi: str | int | None = None) -> FigureFiles:
    """``--format`` (comma-separated, e.g. "png,pdf") and ``--dpi`` checked into a FigureFiles;
    ReportInputError (one line) for an unknown format or a dpi that is not a whole number in
    1..2400."""
    chosen: tuple[str, ...] = ("png",)
    if formats is not None:
        parts = [p.strip().lower().lstrip(".") for p in str(formats).split(",")]
        bad = [p for p in parts if p not in FORMATS]
        if bad or not parts:
            raise ReportInputError(f"--format: unknown figure format {bad[0] if bad else formats!r} "
                                   f"(choose among {', '.join(FORMATS)}, comma-separated)")
        chosen = tuple(dict.fromkeys(parts))
    value = None
    if dpi is not None:
        try:
            value = int(str(dpi))
        except ValueError:
            value = None
        if value is None or not 1 <= value <= MAX_DPI:
            raise ReportInputError(f"--dpi: must be a whole number of dots per inch from 1 to {MAX_DPI}, got {dpi!r}")
    return FigureFiles(chosen, value)
