"""The error the statistics raise about what they are given (a frame, values, an option).

A ``ValueError`` too, as before, so callers that caught that keep working; being an ``SrbfError``
is what lets the command line tell a refusal of the user's data from a bug in srbf.
"""

from __future__ import annotations

from srbf.core import SrbfError

__all__ = ["StatsError"]


class StatsError(SrbfError, ValueError):
    """Statistics refused their input: the message names the argument (or column) and the value."""
