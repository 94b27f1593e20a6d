"""Child process for the concurrency test: reads a store while another process writes it.

usage: _child_reader.py STORE N -- read until N predictions are visible (at most 60 s); print a
JSON summary. Every read must succeed, counts must never go down, and every visible prediction
must have its whole trajectory (seed % 4 + 1 steps): the writer commits both in one transaction.
"""

import json
import sys
import time

from srbf.store import ResultsStore


def main(path: str, n: int) -> None:
    deadline = time.monotonic() + 60
    store = ResultsStore.open_readonly(path)
    store.predictions_frame()  # imports pandas before the writer starts
    print("ready", flush=True)
    counts = []
    reads = 0
    while time.monotonic() < deadline:
        if reads % 10 == 9:  # now and then, a fresh connection as a new reader process would open
            store.close()
            store = ResultsStore.open_readonly(path)
        predictions = store.predictions_frame()
        steps = store.trajectories_frame().groupby("prediction_id").size()
        reads += 1
        for row in predictions.itertuples():
            if steps.get(row.id, 0) != row.seed % 4 + 1:
                raise AssertionError(f"prediction {row.id} has {steps.get(row.id, 0)} trajectory steps")
        if counts and len(predictions) < counts[-1]:
            raise AssertionError(f"count went down: {counts[-1]} -> {len(predictions)}")
        counts.append(len(predictions))
        if len(predictions) >= n:
            break
    store.close()
    print(json.dumps({"reads": reads, "distinct_counts": len(set(counts)), "last": counts[-1]}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
