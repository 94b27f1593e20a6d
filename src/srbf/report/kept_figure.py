"""A figure whose axes outlive it: the next figure of the same layout is drawn on them, cleared.

Creating a figure's axes and their tick objects (each tick two lines and two texts, the later ones
copied property by property from the first) was about half of a curve figure's time, and every
curve figure of a report has the same layout. So a process keeps the last figure it built for
each layout key (of the last few keys), and :func:`kept_layout` hands it back cleared as a new
one would be: what was drawn on it removed (lines, collections, patches, images, texts, the
figure's legends and texts, the suptitle), its data limits empty, its views (0, 1) and its scales
linear, the property cycle restarted. The tick objects stay; they are placed and labelled anew at
each draw. What a figure function sets on its axes (labels, titles, grids, tick sizes) must be set
the same way on every figure of a key: the key names every branch that would set them otherwise
(such as a panel left empty). The files are the same bytes as from a new figure
(tests/report/test_kept_figure.py).

A process forked from one that kept figures starts with none: a kept figure's renderer keeps its
mathtext layouts, and with them the FreeType faces that read their glyphs from font files through
descriptors a fork shares (one file offset for both processes). A parent and its child drawing at
once moved that offset under each other, and a glyph was read from the wrong bytes
("FT_Load_Glyph ... invalid outline", seen once in the test suite).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable

from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

KEPT_LAYOUTS = 4  # the most kept per process, the oldest dropped first (a notebook may draw many layouts)
_kept: dict[Hashable, tuple] = {}  # per process: layout key -> (figure, its axes...) as built
if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_kept.clear)  # a forked process builds its own (module docstring)


def kept_layout(key: Hashable, build: Callable[[], tuple]) -> tuple:
    """``build()``'s ``(figure, *axes)`` the first time this process asks for ``key``; afterwards
    the same objects, cleared (see the module's docstring)."""
    found = _kept.get(key)
    if found is None:
        if len(_kept) >= KEPT_LAYOUTS:
            del _kept[next(iter(_kept))]
        found = _kept[key] = build()
    else:
        clear(found[0])
    return found


def clear(fig: Figure) -> None:
    """Remove what was drawn on ``fig`` and reset its axes' limits, scales and property cycle."""
    for artist in [*fig.legends, *fig.texts, *fig.lines, *fig.patches, *fig.images]:
        artist.remove()
    for ax in fig.axes:
        for artist in [*ax.lines, *ax.collections, *ax.patches, *ax.images, *ax.texts]:
            artist.remove()
        if ax.get_legend() is not None:
            ax.get_legend().remove()
        ax.set_prop_cycle(None)
        ax.dataLim = Bbox.null()
        ax.ignore_existing_data_limits = True
        ax.set_xscale("linear")
        ax.set_yscale("linear")
        ax.set_xlim(0, 1, auto=None)  # a new Axes' view; auto=None leaves autoscaling on
        ax.set_ylim(0, 1, auto=None)
