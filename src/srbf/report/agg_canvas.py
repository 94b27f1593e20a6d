"""An Agg canvas that hands its renderer on to the next figure of the same size.

Matplotlib's Agg canvas makes a new renderer for every figure, and with it new caches of text
metrics and of parsed mathtext (the log axes' 10^k labels): measuring the same tick labels
again was about a quarter of a curve figure's time when a process draws several figures of one
size. The renderer is cleared before each draw, so the files are the same bytes. One renderer is
kept per process, the last size drawn, and only a small one (a 2400-dpi figure's buffer is over
a gigabyte; at the default 200 dpi a curve figure's is about 10 MB).
"""

from __future__ import annotations

from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure

KEPT_PIXELS = 4_000_000  # the largest renderer kept (16 MB); a larger figure gets its own, as in matplotlib


class ReusingCanvas(FigureCanvasAgg):
    """A ``FigureCanvasAgg`` whose renderer outlives its figure (see the module's docstring)."""

    _kept: tuple[tuple, RendererAgg] | None = None  # (width, height, dpi), the renderer: one per process

    def get_renderer(self) -> RendererAgg:
        width, height = self.get_width_height(physical=True)
        key = (width, height, self.figure.dpi)
        kept = ReusingCanvas._kept
        if kept is not None and kept[0] == key:
            self.renderer = kept[1]
        elif width * height > KEPT_PIXELS:
            return super().get_renderer()
        else:
            self.renderer = RendererAgg(width, height, self.figure.dpi)
            ReusingCanvas._kept = (key, self.renderer)
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
