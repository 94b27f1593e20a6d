"""``DistillError``: what distillation refuses (no records, an infeasible constraint, a bad option), in one line."""

from __future__ import annotations

from srbf.core import SrbfError

__all__ = ["DistillError"]


class DistillError(SrbfError, ValueError):
    """Distillation cannot proceed with what it was given; the message says what and where."""
