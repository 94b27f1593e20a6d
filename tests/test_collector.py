"""``srbf.core.collector_tuned``, where srbf tunes Python's garbage collector: what a block gives
back, what a process tuned for its life freezes and keeps (a forked one included), the switch
that turns it off, and that entering it never walks the frozen objects."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

import srbf.core
from srbf.core import GC_SWITCH, GC_THRESHOLDS, collector_tuned


def test_a_block_raises_the_thresholds_freezes_nothing_and_gives_them_back(monkeypatch):
    monkeypatch.setattr(srbf.core, "_tuned_for_life", False)  # as in a process no command has tuned
    gc.unfreeze()
    before = gc.get_threshold()
    with collector_tuned() as keep:
        assert gc.get_threshold() == GC_THRESHOLDS
        survivors = [[i] for i in range(1000)]
        keep()
        assert gc.get_freeze_count() == 0 and survivors
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_entering_never_counts_the_frozen_objects(monkeypatch):
    """``gc.get_freeze_count`` walks every frozen object: 0.1 s a call late in a scoring process."""

    def walked():
        raise AssertionError("collector_tuned walked the frozen list")

    monkeypatch.setattr(gc, "get_freeze_count", walked)
    for for_life in (False, True, False):
        with collector_tuned(for_life=for_life) as keep:
            keep()


def run(code: str, **env: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **env},
                          check=True)  # fmt: skip
    return done.stdout.split()


FOR_LIFE = """
import gc
from srbf.core import collector_tuned
with collector_tuned(for_life=True):
    pass
print(gc.get_threshold(), gc.get_freeze_count() > 0)
with collector_tuned() as keep:  # inside a process tuned for life: it keeps, and leaves it tuned
    frozen = gc.get_freeze_count()
    survivors = [[i] for i in range(1000)]
    keep()
    print(gc.get_freeze_count() >= frozen + len(survivors))
print(gc.get_threshold())
"""

TUNED = [f"({GC_THRESHOLDS[0]},", f"{GC_THRESHOLDS[1]},", f"{GC_THRESHOLDS[2]})"]


def test_a_block_for_life_freezes_what_is_alive_and_leaves_the_process_tuned():
    assert run(FOR_LIFE) == [*TUNED, "True", "True", *TUNED]


FORKED = """
import gc, os
from srbf.core import collector_tuned
with collector_tuned(for_life=True):
    pass
imported_after = [[i] for i in range(1000)]  # as the scoring modules a parent imports right before it forks
pid = os.fork()
if pid == 0:
    before = gc.get_freeze_count()
    with collector_tuned(for_life=True):  # a scoring process's set-up
        pass
    print(gc.get_freeze_count() >= before + len(imported_after))
    os._exit(0)
os.waitpid(pid, 0)
"""


def test_a_forked_process_tuned_for_life_freezes_what_it_inherited():
    assert run(FORKED) == ["True"]


def test_the_switch_leaves_the_collector_alone():
    assert run(FOR_LIFE, **{GC_SWITCH: "default"}) == ["(700,", "10,", "10)", "False", "False", "(700,", "10,", "10)"]
