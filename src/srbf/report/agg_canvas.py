"""An Agg canvas that hands its renderer on to the next figure of the same size.

Matplotlib's Agg canvas makes a new renderer for every figure, and with it new caches of text
metrics and of parsed mathtext (the log axes' 10^k labels): measuring the same tick labels
again was about a quarter of a curve figure's time when a process draws several figures of one
size. The renderer is cleared before each draw, so the files are the same bytes. One renderer is
kept per process, the last size drawn: a 2400-dpi figure's buffer is large.
"""

from __future__ import annotations

from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure


class ReusingCanvas(FigureCanvasAgg):
    """A ``FigureCanvasAgg`` whose renderer outlives its figure (see the module's docstring)."""

    _kept: tuple[tuple, RendererAgg] | None = None  # (width, height, dpi), the renderer: one per process

    def get_renderer(self) -> RendererAgg:
        width, height = self.get_width_height(physical=True)
        key = (width, height, self.figure.dpi)
        kept = ReusingCanvas._kept
        if kept is None or kept[0] != key:
            kept = ReusingCanvas._kept = (key, RendererAgg(width, height, self.figure.dpi))
        self.renderer = kept[1]
        return self.renderer


def reuse_renderer(fig: Figure) -> Figure:
    """``fig`` drawn on a :class:`ReusingCanvas` from now on (its bitmaps; PDF and SVG have their own)."""
    ReusingCanvas(fig)
    return fig


def warm_up() -> None:
    """Build what a process's first figure would build (matplotlib's mathtext grammar, the math
    fonts): a :class:`srbf.report.drawing.Painter` does it while it waits for its figures, before
    it forks a helper, so neither of them pays for it inside a figure."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.mathtext import MathTextParser

    MathTextParser("path").parse(r"$\mathdefault{10^{0}}$", 72, FontProperties())
