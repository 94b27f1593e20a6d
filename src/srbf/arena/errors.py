"""``ArenaError``: what the arena refuses (no store, nothing to score, a bad setting), in one line."""

from __future__ import annotations

from srbf.core import SrbfError

__all__ = ["ArenaError"]


class ArenaError(SrbfError, ValueError):
    """The arena cannot score what it was given; the message says what and where."""
