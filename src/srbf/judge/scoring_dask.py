"""The scoring pass on a Dask cluster: ``srbf score --executor dask --scheduler ADDRESS | --local N``.

``DaskDispatch`` is the scoring pass's dispatch (``scoring_pass``) over the workers of a Dask
cluster (``srbf.runs.dask_cluster``): each chunk of drawn problems is one Dask task running
``score_chunk``, the same function a local scoring process runs, on the node that takes it; it
regenerates the points there from the catalog entries the chunk carries and sends back only the
metrics. The parent alone writes the store, chunk by chunk as tasks finish. A chunk whose Dask
workers keep dying (past the cluster's retries) comes back unscored with the reason, and a rerun
scores it.
"""

from __future__ import annotations

from collections.abc import Iterator

from srbf.judge.problem_scoring import DrawnProblem, Outcome, close_pool, score_chunk, unscored
from srbf.runs.dask_cluster import DaskCluster
from srbf.runs.executor import first_line

__all__ = ["DaskDispatch"]


class DaskDispatch:
    """Chunks scored as Dask tasks; outcomes as tasks complete (see the module docstring)."""

    def __init__(self, *, scheduler: str | None = None, local: int | None = None):
        self.cluster = DaskCluster(scheduler=scheduler, local=local)
        self.workers = self.cluster.workers
        self.pending: dict = {}

    def submit(self, chunks: list[list[DrawnProblem]], srbench: bool) -> None:
        client = self.cluster.client
        self.pending = {client.submit(score_chunk, chunk, srbench, pure=False): chunk for chunk in chunks}

    def __iter__(self) -> Iterator[list[Outcome]]:
        from distributed import as_completed
        from distributed.scheduler import KilledWorker

        for future in as_completed(list(self.pending), loop=self.cluster.client.loop):
            chunk = self.pending.pop(future)
            try:
                yield future.result()
            except KilledWorker as error:
                yield unscored(chunk, f"the Dask workers scoring it died ({first_line(str(error))})")

    def close(self) -> None:
        """Cancel the chunks not scored yet, and let go of the cluster (stopping a LocalCluster)."""
        if self.pending and self.cluster.client is not None:
            self.cluster.client.cancel(list(self.pending))
        self.pending = {}
        self.cluster.close()
        close_pool()
