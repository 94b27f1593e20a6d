"""What a scoring process imports before its first problem, named without importing it.

The local scoring pass imports these before forking its processes (once, instead of in each of
them); a Dask LocalCluster's fork server imports them with ``srbf.judge.scoring_dask`` for its
workers, and ``srbf score --executor dask --local N`` starts that fork server before it imports
any of them itself (``srbf.runs.fork_server``): hence a module of names only.
"""

__all__ = ["DASK_MODULES", "WORKER_MODULES"]

WORKER_MODULES = ("srbf.catalogs.admission", "srbf.catalogs.sampling", "srbf.judge.data", "srbf.judge.run_axes",
                  "srbf.judge.truth_facts")  # fmt: skip
DASK_MODULES = ("srbf.judge.scoring_dask", *WORKER_MODULES)  # a Dask worker's, scoring chunks
