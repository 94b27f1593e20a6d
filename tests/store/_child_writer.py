"""Child process for the kill test: records fits, printing the count after each commit.

usage: _child_writer.py STORE N  -- record N fits then print "done" and sleep;
       N = -1 records until killed.
"""

import sys
import time

from srbf.core import FitResult, TaskKey
from srbf.store import ResultsStore


def main(path: str, n: int) -> None:
    store = ResultsStore(path)
    campaign = store.start_campaign("kill-test", {}, "cfg-1", "harness_tuned", git=None)
    i = 0
    while n < 0 or i < n:
        key = TaskKey("linear", "cfg-1", "nguyen", 1, f"p{i}", 0, 60.0, "noise=0", i)
        trajectory = [(0.1 * step, f"x0 + {step}") for step in range(i % 4 + 1)]
        store.record(
            key, FitResult("ok", f"x0 + {i}", trajectory=trajectory), campaign_id=campaign, data_hash=f"h{i}"
        )
        i += 1
        print(i, flush=True)
    print("done", flush=True)
    time.sleep(120)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
