"""Multi-axis evaluation after SymbolicArena: ID, OOD, SYM, MIN, EFF and STAB from stored runs.

``score_arena(results, output)`` evaluates a results store (``collect``: finals and trajectory
checkpoints on the regenerated ID and OOD points, symbolic judgments by srbf's deterministic
judge), aggregates the axes per method and condition with task-bootstrap intervals (``profile``)
and writes the tables, figures and evidence. docs/arena.md defines every axis.
"""

from __future__ import annotations

from srbf.core import lazy_attributes

_EXPORTS = {
    "ArenaData": "srbf.arena.collect",
    "collect": "srbf.arena.collect",
    "ArenaError": "srbf.arena.errors",
    "AXES": "srbf.arena.profile",
    "profile": "srbf.arena.profile",
    "robustness": "srbf.arena.profile",
    "ArenaResult": "srbf.arena.score",
    "score_arena": "srbf.arena.score",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_attributes(__name__, _EXPORTS)
