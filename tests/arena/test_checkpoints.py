"""The checkpoint grid and the incumbent at each checkpoint (srbf.judge.checkpoints)."""

from __future__ import annotations

import math

import pytest

from srbf.judge.checkpoints import DEFAULT_CHECKPOINTS, checkpoint_times, incumbents_at


def test_checkpoints_divide_the_time_limit():
    assert checkpoint_times(10.0, 4) == (2.5, 5.0, 7.5, 10.0)
    grid = checkpoint_times(180.0)
    assert len(grid) == DEFAULT_CHECKPOINTS == 180
    assert grid[0] == 1.0 and grid[-1] == 180.0


@pytest.mark.parametrize("count", [0, -3, 2.5, True])
def test_a_bad_checkpoint_count_is_refused(count):
    with pytest.raises(ValueError, match="checkpoints must be a positive integer"):
        checkpoint_times(10.0, count)


@pytest.mark.parametrize("limit", [0, -1, math.inf, math.nan])
def test_a_bad_time_limit_is_refused(limit):
    with pytest.raises(ValueError, match="time limit"):
        checkpoint_times(limit, 4)


def test_the_latest_report_at_or_before_each_checkpoint_is_carried_forward():
    steps = [(3.0, "a"), (5.0, "b"), (None, "never placed"), (math.nan, "nor this")]
    assert incumbents_at(steps, (2.5, 5.0, 7.5, 10.0)) == [None, "b", "b", "b"]


def test_reports_at_the_same_time_keep_their_order():
    assert incumbents_at([(1.0, "first"), (1.0, "second")], (1.0,)) == ["second"]
    assert incumbents_at([(2.0, "late"), (1.0, "early")], (1.5, 2.0)) == ["early", "late"]


def test_no_report_leaves_every_checkpoint_unavailable():
    assert incumbents_at([], (1.0, 2.0)) == [None, None]


def test_a_grid_and_any_other_times_give_the_incumbent_by_its_definition():
    """The sorted-grid shortcut and the general walk both agree with the definition, written out."""
    import random

    rng = random.Random(7)

    def by_definition(steps, times):
        out = []
        for t in times:
            best = None
            for i, (s, e) in enumerate(steps):
                if s is not None and not math.isnan(s) and s <= t and (best is None or (s, i) >= best[0]):
                    best = ((s, i), e)
            out.append(best[1] if best else None)
        return out

    for _ in range(300):
        steps = [(rng.choice([None, math.nan, float(rng.randint(0, 6)), rng.uniform(0, 6)]), f"e{i}")
                 for i in range(rng.randint(0, 6))]
        grid = sorted(rng.choice([0.0, 1.0, 2.0, 3.5, 6.0, 7.0]) for _ in range(rng.randint(0, 8)))
        shuffled = rng.sample(grid, len(grid))
        for times in (grid, shuffled):
            assert incumbents_at(steps, times) == by_definition(steps, times), (steps, times)
