"""Text from the data (method labels with their sweep values, catalog names, provenance labels)
made safe for the two places the report puts it: a Markdown page and a matplotlib figure.

Any of these strings can hold anything a config or a catalog file can spell, so each one is escaped
where it is written, never trusted: :func:`md` for Markdown (and the HTML a Markdown viewer lets
through), :func:`mathtext` for figure labels, where an even number of ``$`` would start math mode.
"""

from __future__ import annotations

import html
import re

__all__ = ["md", "mathtext"]

_LINE_BREAKS = re.compile(r"\r\n|[\r\n\v\f\x85\u2028\u2029]")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_MARKDOWN = re.compile(r"[\\`*\[\]|~$]|(?<![^\W_])_|_(?![^\W_])")  # "_" inside a word is plain text


def md(value) -> str:
    """``value`` as text for a Markdown page or table cell: HTML escaped (``<script>`` shows as
    text), line breaks and control characters replaced by a space (a table row stays one line),
    and every character Markdown would act on (``|`` ends a cell, ``[`` opens a link, ``*`` and
    ``_`` emphasis, a backtick code, ``$`` math on GitHub) backslash-escaped, so the page shows the
    text as it was."""
    text = _CONTROL.sub(" ", _LINE_BREAKS.sub(" ", str(value)))
    return _MARKDOWN.sub(lambda match: "\\" + match.group(), html.escape(text, quote=False))


def mathtext(value) -> str:
    """``value`` as a matplotlib label that is shown as written: each ``$`` escaped, so no text
    from the data can switch on mathtext (``$\\frac{$`` would otherwise fail to parse)."""
    return str(value).replace("$", r"\$")
