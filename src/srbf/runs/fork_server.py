"""The fork server that a Dask LocalCluster's workers are forked from, started as early as possible.

A LocalCluster's worker processes are forked by a fork server that imported Distributed and srbf's
worker code once for all of them (``srbf.runs.dask_cluster``). Those imports, about half a second,
are what the first worker waits for, so the fork server is worth starting as soon as a command
knows it will want one: ``srbf score --executor dask --local N`` starts it right after reading its
flags, and its imports then overlap the command's own (the scoring pass's code, Distributed, the
store and the catalogs). ``srbf run`` makes its LocalCluster, and so its fork server, right after
reading the config (which must be valid first), before it plans: started before that, the fork
server overlapped only the config's parsing, competing with it for the cores, and the run
measured no faster (slower in 6 of 8 interleaved rounds). This module imports nothing else, so
starting it costs the command nothing it would not pay anyway. A fork server started this way
and not used (Dask's configuration names another method for its workers) only idles until the
command ends.
"""

from __future__ import annotations

import multiprocessing

__all__ = ["FORKSERVER", "SLOT_MODULES", "start_fork_server"]

FORKSERVER = "forkserver" in multiprocessing.get_all_start_methods()  # not on Windows
SLOT_MODULES = ("srbf.runs.dask_slot",)  # what a Dask worker runs fits with (``srbf run``)

_started = False


def start_fork_server(modules: tuple[str, ...]) -> bool:
    """Start this process's fork server, importing Distributed, srbf's cluster set-up and
    ``modules`` (once: a fork server already started keeps the modules it imported, and a worker it
    forks imports the others as it starts); whether there is one (not on Windows)."""
    global _started
    if FORKSERVER and not _started:
        from multiprocessing import forkserver

        forkserver.set_forkserver_preload(["distributed", "srbf.runs.dask_cluster", *modules])
        forkserver.ensure_running()
        _started = True
    return FORKSERVER
