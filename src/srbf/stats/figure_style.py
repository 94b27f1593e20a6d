"""What every figure shares: one colour per method, the same in every figure of the report, the
arena and every view of the explorer, and the resolution of bitmaps. (Here, below ``arena`` and
``report``, because both draw with it; it imports nothing.)

Okabe and Ito's colour-blind-safe qualitative palette (without its black, which vanishes on a
dark page), then the Tableau 10 colours that differ from those, assigned to the methods in sorted
order, so that no two methods of a study look alike as long as there are at most 12 of them; past
12, further hues are spread around the colour wheel by the golden angle (still distinct, no longer
chosen for colour blindness). The explorer receives the assignment in its data (``manifest.colors``).
"""

from __future__ import annotations

import colorsys

DEFAULT_DPI = 200  # sharp on a high-density screen and in print; srbf analyze --dpi changes it

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")
TABLEAU_EXTRA = ("#E15759", "#76B7B2", "#B07AA1", "#9C755F", "#BAB0AC")
PALETTE = OKABE_ITO + TABLEAU_EXTRA


def nth_color(i: int) -> str:
    """The i-th colour of the fixed order (PALETTE, then golden-angle hues)."""
    if i < len(PALETTE):
        return PALETTE[i]
    hue = ((i - len(PALETTE)) * 0.381966 + 0.07) % 1.0
    r, g, b = colorsys.hls_to_rgb(hue, 0.45, 0.65)
    return "#{:02X}{:02X}{:02X}".format(round(r * 255), round(g * 255), round(b * 255))


def method_colors(methods) -> dict[str, str]:
    """Each method's colour: the i-th colour for the i-th method in sorted order."""
    return {m: nth_color(i) for i, m in enumerate(sorted({str(m) for m in methods}))}
