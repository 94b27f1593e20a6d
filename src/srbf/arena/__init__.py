"""Multi-axis evaluation after SymbolicArena: ID, OOD, SYM, MIN, EFF and STAB from stored runs.

``score_arena(results, output)`` evaluates a results store (``collect``: finals and trajectory
checkpoints on the regenerated ID and OOD points, symbolic judgments by srbf's deterministic
judge), aggregates the axes per method and condition with task-bootstrap intervals (``profile``)
and writes the tables, figures and evidence. docs/arena.md defines every axis.
"""

from srbf.arena.collect import ArenaData, collect
from srbf.arena.errors import ArenaError
from srbf.arena.profile import AXES, profile, robustness
from srbf.arena.score import ArenaResult, score_arena

__all__ = ["AXES", "ArenaData", "ArenaError", "ArenaResult", "collect", "profile", "robustness", "score_arena"]
