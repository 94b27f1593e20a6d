"""``srbf.core.collector_tuned``, the one place srbf tunes Python's garbage collector: what it
freezes and keeps, what it gives back when the block ends, and the switch that turns it off."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

from srbf.core import GC_SWITCH, GC_THRESHOLDS, collector_tuned


def test_a_block_freezes_and_keeps_then_gives_everything_back():
    gc.unfreeze()  # as in a fresh process
    before = gc.get_threshold()
    with collector_tuned() as keep:
        assert gc.get_threshold() == GC_THRESHOLDS and gc.get_freeze_count() > 0  # what was alive
        frozen = gc.get_freeze_count()
        survivors = [[i] for i in range(1000)]  # containers a batch of work leaves alive
        keep()
        assert gc.get_freeze_count() >= frozen + len(survivors)
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def run(code: str, **env: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **env},
                          check=True)  # fmt: skip
    return done.stdout.split()


FOR_LIFE = """
import gc
from srbf.core import collector_tuned
with collector_tuned(for_life=True):
    pass
with collector_tuned() as keep:  # inside a process tuned for life: it keeps
    frozen = gc.get_freeze_count()
    survivors = [[i] for i in range(1000)]
    keep()
    print(gc.get_freeze_count() > frozen)
print(gc.get_threshold(), gc.get_freeze_count() > 0)
"""


SOMEONE_ELSE_FROZE = """
import gc
from srbf.core import collector_tuned
gc.freeze()
frozen = gc.get_freeze_count()
with collector_tuned() as keep:
    survivors = [[i] for i in range(1000)]
    keep()
    print(gc.get_freeze_count() == frozen)
print(gc.get_freeze_count() == frozen)
"""


def test_a_block_in_a_process_someone_else_froze_keeps_nothing_and_unfreezes_nothing():
    assert run(SOMEONE_ELSE_FROZE) == ["True", "True"]  # a process of its own: a command run here tunes for life


def test_a_block_for_life_leaves_the_process_tuned_and_later_blocks_keep():
    assert run(FOR_LIFE) == ["True", f"({GC_THRESHOLDS[0]},", f"{GC_THRESHOLDS[1]},", f"{GC_THRESHOLDS[2]})", "True"]


def test_the_switch_leaves_the_collector_alone():
    out = run(FOR_LIFE, **{GC_SWITCH: "default"})
    assert out == ["False", "(700,", "10,", "10)", "False"]
