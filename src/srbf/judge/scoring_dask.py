"""The scoring pass on a Dask cluster: ``srbf score --executor dask --scheduler ADDRESS | --local N``.

``DaskDispatch`` is the scoring pass's dispatch (``scoring_pass``) over the workers of a Dask
cluster (``srbf.runs.dask_cluster``): each chunk of drawn problems is one Dask task running
``score_chunk``, the same function a local scoring process runs, on the node that takes it; it
regenerates the points there from the catalog entries the chunk carries and sends back only the
metrics. The parent alone writes the store, chunk by chunk as tasks finish. A chunk whose Dask
workers keep dying (past the cluster's retries) comes back unscored with the reason, and a rerun
scores it.

A few chunks per Dask worker thread are out at a time, sent as the plan makes them (the plan waits
for the cluster to be up; its workers score while the rest is planned, as local processes do), each
pickled as one bytes object, and its outcomes come back pickled the same way: the scheduler (in the
parent, for a LocalCluster) unpickles every task it is given, and holding every chunk's catalog
entries and predictions as objects there cost the parent's memory and CPU; a result that is one
bytes object is measured and sent as is, not walked object by object. The workers of a
LocalCluster, which end with the command, freeze what each chunk leaves, as local scoring processes
do (``score_chunk``'s ``freeze``); workers started by hand, which may serve many passes, do not.
"""

from __future__ import annotations

import pickle
from collections import deque
from collections.abc import Iterable, Iterator

from srbf.judge.problem_scoring import DrawnProblem, Outcome, close_pool, score_chunk, unscored
from srbf.judge.worker_modules import DASK_MODULES
from srbf.runs.dask_cluster import DaskCluster
from srbf.runs.executor import first_line

__all__ = ["DaskDispatch", "score_pickled"]

CHUNKS_PER_THREAD = 3  # out per Dask worker thread: one being scored, the next ones queued


def score_pickled(chunk: bytes, srbench: bool, freeze: bool) -> bytes:
    """``score_chunk`` on a pickled chunk, its outcomes pickled (what a Dask worker runs)."""
    return pickle.dumps(score_chunk(pickle.loads(chunk), srbench, freeze), protocol=pickle.HIGHEST_PROTOCOL)


class DaskDispatch:
    """Chunks scored as Dask tasks; outcomes as tasks complete (see the module docstring)."""

    def __init__(self, *, scheduler: str | None = None, local: int | None = None):
        # the judge, imported as a LocalCluster starts (by its fork server: once for every worker)
        self.cluster = DaskCluster(scheduler=scheduler, local=local, preload=DASK_MODULES)
        self.freeze = local is not None  # the command's own workers freeze what each chunk leaves
        self.workers = self.cluster.workers
        self.pending: dict = {}  # future -> chunk
        self.done = None  # distributed.as_completed of the chunks sent, once the cluster is up
        self.waiting: deque[list[DrawnProblem]] = deque()
        self.srbench = False

    def submit(self, chunks: Iterable[list[DrawnProblem]], srbench: bool) -> None:
        """Take every chunk of ``chunks`` as the plan makes it, sending it at once while fewer than
        ``CHUNKS_PER_THREAD`` per thread are out: the workers score while the rest is planned. The
        plan waits for a LocalCluster to be up (its start shares this process's GIL with the
        planning, and the workers have nothing to score before it)."""
        self.srbench = srbench
        for chunk in chunks:
            self.waiting.append(chunk)
            self._send()

    def _send(self) -> None:
        """Send chunks until ``CHUNKS_PER_THREAD`` per thread are out (waiting for the cluster);
        ``done`` yields them back."""
        client = self.cluster.client
        if self.done is None:
            from distributed import as_completed

            self.done = as_completed(loop=client.loop)
        while self.waiting and len(self.pending) < CHUNKS_PER_THREAD * self.workers:
            chunk = self.waiting.popleft()
            future = client.submit(score_pickled, pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL), self.srbench,
                                   self.freeze, pure=False)  # fmt: skip
            self.pending[future] = chunk
            self.done.add(future)

    def __iter__(self) -> Iterator[list[Outcome]]:
        """The outcomes of the chunks done by each wake-up together (one commit for them), fetched
        in one request, after the next chunks are sent."""
        from distributed.scheduler import KilledWorker

        self._send()
        client = self.cluster.client
        for futures in self.done.batches():
            chunks = [self.pending.pop(future) for future in futures]
            self._send()
            fetch = [future for future in futures if future.status != "error"]
            values = dict(zip(fetch, client.gather(fetch))) if fetch else {}
            outcomes: list[Outcome] = []
            for future, chunk in zip(futures, chunks):
                if future in values:
                    outcomes += pickle.loads(values[future])
                    continue
                error = future.exception()
                if not isinstance(error, KilledWorker):
                    raise error
                outcomes += unscored(chunk, f"the Dask workers scoring it died ({first_line(str(error))})")
            yield outcomes

    def close(self) -> None:
        """Cancel the chunks not scored yet, and let go of the cluster (stopping a LocalCluster)."""
        if self.pending and self.cluster.client is not None:
            self.cluster.client.cancel(list(self.pending))
        self.pending, self.waiting, self.done = {}, deque(), None
        self.cluster.close()
        close_pool()
