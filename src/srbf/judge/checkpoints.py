"""The checkpoint grid of a fit and the incumbent a method had reported at each checkpoint.

SymbolicArena reads a search as a series of checkpoints (one a minute over 180 minutes); srbf puts
``count`` checkpoints on the fit's own time limit T, checkpoint k at k T / count (k = 1 .. count).
The value at a checkpoint is the latest incumbent the method reported at or before it; the last
one is carried forward after the fit ended early, and a checkpoint before the first report is
unavailable (None). Reports are read at scoring time from the stored trajectory, never inside
the fit. ``campaign_grid`` reads a campaign's stored config for its grid, the one reading the
scoring pass and the arena share. Pure Python: no NumPy, no parsing.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Mapping, Sequence

__all__ = ["DEFAULT_CHECKPOINTS", "campaign_grid", "checkpoint_times", "incumbents_at"]

DEFAULT_CHECKPOINTS = 180  # the seed's grid: one checkpoint a minute over 180 minutes


def checkpoint_times(time_limit: float, count: int = DEFAULT_CHECKPOINTS) -> tuple[float, ...]:
    """The ``count`` checkpoint times k * time_limit / count, k = 1 .. count, in seconds."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"checkpoints must be a positive integer, got {count!r}")
    limit = float(time_limit)
    if not (math.isfinite(limit) and limit > 0):
        raise ValueError(f"a fit's time limit must be a positive number of seconds, got {time_limit!r}")
    return tuple(k * limit / count for k in range(1, count + 1))


def campaign_grid(config: object) -> tuple[tuple[float, ...] | None, str]:
    """A campaign's checkpoint times from its stored config (``run.checkpoints``, 180 when it does
    not say, over ``variant.time_limit``) and a note on the grid; None and the reason when the
    config gives no usable time limit. ValueError (naming ``run.checkpoints``) for a bad count."""
    config = config if isinstance(config, Mapping) else {}
    run = config.get("run") if isinstance(config.get("run"), Mapping) else {}
    variant = config.get("variant") if isinstance(config.get("variant"), Mapping) else {}
    count = run.get("checkpoints", DEFAULT_CHECKPOINTS)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"run.checkpoints must be a positive integer, got {count!r}")
    limit = variant.get("time_limit")
    try:
        return checkpoint_times(float(limit), count), f"{count} checkpoints over {float(limit):g} s"
    except (TypeError, ValueError):
        return None, f"the campaign's config gives no usable time limit ({limit!r})"


def incumbents_at(steps: Iterable[tuple[float | None, str]], times: Sequence[float]) -> list[str | None]:
    """The expression current at each time of ``times``: of the reported ``(seconds, expression)``
    steps (in the order reported), the latest one whose seconds are at or before the time; None
    before the first. A step without a time (None or NaN) cannot be placed and is skipped."""
    placed = [(float(s), i, e) for i, (s, e) in enumerate(steps) if s is not None and not math.isnan(float(s))]
    placed.sort()  # by time; reports at the same time keep their order, so the later one wins
    seconds = [s for s, _, _ in placed]
    times = list(times)
    if times == sorted(times) and not any(map(math.isnan, times)):  # a grid: one slice per step
        bounds = [bisect.bisect_left(times, s) for s in seconds] + [len(times)]
        sliced: list[str | None] = [None] * bounds[0]
        for (_, _, expression), start, end in zip(placed, bounds, bounds[1:]):
            sliced += [expression] * (end - start)
        return sliced
    out: list[str | None] = []
    for t in times:
        index = bisect.bisect_right(seconds, t)
        out.append(placed[index - 1][2] if index else None)
    return out
