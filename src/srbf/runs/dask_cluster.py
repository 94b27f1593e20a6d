"""Connecting to a Dask cluster, for ``srbf run`` and ``srbf score`` alike.

``DaskCluster(scheduler=ADDRESS)`` connects to a running scheduler (started by hand, by
dask-jobqueue under SLURM or PBS, on Kubernetes: docs/cluster.md); ``DaskCluster(local=N)``
starts a ``LocalCluster`` of N single-threaded worker processes on this machine and stops it on
``close()``. Every failure to get a usable cluster (Dask not installed, an address nobody listens
at, no worker within ``CONNECT_SECONDS``) is one ``ClusterError`` line. A LocalCluster starts in
a background thread, so that its worker processes start while the caller reads its inputs and
plans (the driver and the scoring pass make it first); its failure is raised where the client is
first wanted. Its fork server (below) is started, and Distributed imported, before that thread:
the fork server's imports then overlap this process's, and the import is not slowed by sharing the
GIL with the caller's planning.

A LocalCluster runs with ``LEAN_SETTINGS``: Dask's upkeep that serves its dashboard and its
spilling of task results (a profiler sampling task threads every 10 ms, an event-loop check 50
times a second, system counters twice a second, a memory monitor 10 times a second in every
worker and nanny) costs little per call but a steady share of a core per process, which on cheap
fits was about a quarter of the run's CPU. srbf runs no dashboard, and a Dask worker holds only orders
and results (the fits' memory is in the method processes, bounded by their own limits), so they
go. Workers started by hand can take the same settings (docs/cluster.md).

A LocalCluster's workers also run the collector as a run's slot process does (``dask_setup``):
scoring and drawing allocate many short-lived containers, which Python's default thresholds
traversed at a cost of about a tenth of the CPU.

Where it can (and no other method than Dask's default is set), a LocalCluster's workers are
forked by a fork server that imported Distributed and srbf's slot or judge code once, instead of
each spawned worker importing them anew: about 0.5 s of CPU less per worker, and, leaving with
``os._exit``, no interpreter teardown at the end. ``srbf score`` starts that fork server as soon as
it has read its flags (``srbf.runs.fork_server``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import socket
import threading

from srbf.core import SrbfError, collector_tuned
from srbf.runs.executor import first_line
from srbf.runs.fork_server import start_fork_server

__all__ = ["CONNECT_SECONDS", "LEAN_SETTINGS", "ClusterError", "DaskCluster"]

CONNECT_SECONDS = 30.0

LEAN_SETTINGS = {
    "distributed.worker.profile.enabled": False,  # the dashboard's profile of task threads
    "distributed.admin.tick.interval": "1s",  # how often a process checks its event loop is not blocked
    "distributed.admin.system-monitor.interval": "5s",  # CPU, network and disk counters for the dashboard
    # unset in the nannies' environment for their workers: setting it fixes glibc's mmap threshold,
    # so every array of 128 KiB or more is a fresh mapping, in the Dask workers drawing points and
    # in the method processes they start: fits would not run as they do locally
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
}


COMMAND_CLUSTER = "srbf.command-cluster"  # set in the Dask config of the LocalClusters srbf starts


def keep_all() -> None:
    """Keep what this Dask worker holds (``collector_tuned``'s ``keep``): run on the command's own
    spawned workers as they stop, since their exit through Python's finalization, whose last
    garbage collection walked every object scoring had left there, took 1.5 s a worker."""
    with collector_tuned(for_life=True) as keep:
        keep()


def dask_setup(worker) -> None:
    """Run by Dask in each worker of a LocalCluster as it starts (this module is preloaded there):
    its collector tuned for its life (``srbf.core.collector_tuned``: what is imported by then is
    frozen). A LocalCluster's workers leave out one error report, below."""
    import dask.config

    with collector_tuned(for_life=True):  # it stays tuned after the block
        pass
    if dask.config.get(COMMAND_CLUSTER, False):
        logging.getLogger("distributed.worker").addFilter(_not_a_heartbeat_at_close)


def _not_a_heartbeat_at_close(record: logging.LogRecord) -> bool:
    """False for a failed heartbeat: as a LocalCluster closes, a worker's heartbeat can meet the
    scheduler's closed connection, and Distributed reports it as an error with its traceback
    (dask/distributed#7105), on the terminal of a command that succeeded. The scheduler of a
    LocalCluster lives in the command's process, so its workers lose it only when the command
    closes it or dies; workers started by hand, for which a lost scheduler is news, keep it."""
    return not record.getMessage().startswith("Failed to communicate with scheduler during heartbeat")


class ClusterError(SrbfError):
    """Dask is not installed, or the cluster cannot be reached or has no workers; one line."""


NOT_INSTALLED = "--executor dask needs the dask and distributed packages: pip install 'srbf[cluster]'"


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ClusterError(NOT_INSTALLED) from None
    return distributed


def _check_reachable(address: str) -> None:
    """Fail fast, in one line, on an address Dask cannot use or a TCP scheduler nobody listens at
    (a Client that cannot connect waits out its timeout, then again when it is collected)."""
    from distributed.comm import registry
    from distributed.comm.addressing import parse_address, parse_host_port

    scheme, location = parse_address(address)
    if scheme not in registry.backends:
        raise ValueError(f"unknown address scheme {scheme!r} (known: {', '.join(sorted(registry.backends))})")
    if scheme in ("tcp", "tls"):
        host, port = parse_host_port(location)
        try:
            socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
        except OSError as exc:
            raise OSError(f"cannot connect to {host}:{port}: {exc.strerror or exc}") from None


def _fork_workers(preload: tuple[str, ...]) -> bool:
    """Whether a LocalCluster's workers are forked by this process's fork server, importing
    Distributed and ``preload`` once for every worker: where there is one and Dask's default
    method (spawn) is set (a method set by hand is kept). It is started now if the command has not
    started it yet, while this process imports Distributed for the scheduler (the first nanny
    started it, after that import: the workers waited for both in turn)."""
    import dask.config  # Distributed's defaults are not loaded yet: its default method is spawn

    if dask.config.get("distributed.worker.multiprocessing-method", "spawn") != "spawn":
        return False
    return start_fork_server(preload)


class DaskCluster:
    """A Dask ``client`` on the cluster at ``scheduler``, or on a LocalCluster of ``local`` worker
    processes started here (a task whose worker dies is retried ``max_retries`` times on it; a
    scheduler started by hand has its own ``allowed-failures``, 3 by default). ``workers`` is the
    cluster's number of worker threads. ``preload``: modules a LocalCluster's workers import as
    they start, while the caller plans (workers started by hand import them at their first task).

    A LocalCluster starts in a background thread (its worker processes take seconds to import
    Dask), so that it starts while the caller plans; ``client`` waits for it, and raises the
    ClusterError of a start that failed. A scheduler is connected to here and now (it is quick,
    and a wrong address is best said at once)."""

    def __init__(
        self, *, scheduler: str | None = None, local: int | None = None, max_retries: int = 3, preload: tuple[str, ...] = ()
    ):
        if (scheduler is None) == (local is None):
            raise ClusterError("--executor dask: give either --scheduler ADDRESS or --local N")
        if local is not None and (isinstance(local, bool) or int(local) < 1):
            raise ClusterError(f"--local: must be a positive integer, got {local!r}")
        self._cluster = None
        self._forked = False  # a LocalCluster's workers forked by a fork server
        self._client = None
        self._closed = False
        self._failure: BaseException | None = None
        self._starting: threading.Thread | None = None
        self.where = f"a LocalCluster of {local} worker(s)" if local is not None else f"the Dask scheduler at {scheduler}"
        if local is not None:
            if importlib.util.find_spec("distributed") is None:  # said now, not when the client is wanted
                raise ClusterError(NOT_INSTALLED)
            self.workers = int(local)  # single-threaded workers
            # the fork server started and Distributed imported here, before the caller plans: in the
            # thread below they shared this process's GIL with the planning, and the workers waited
            self._forked = _fork_workers(preload)
            _distributed()
            self._starting = threading.Thread(target=self._start, args=(int(local), int(max_retries), preload),
                                              name="srbf-dask-start", daemon=True)  # fmt: skip
            self._starting.start()
        else:
            self._connect(lambda distributed: self._scheduler_client(distributed, scheduler))
            self.workers = max(1, sum(self._client.nthreads().values()))

    def _start(self, local: int, max_retries: int, preload: tuple[str, ...]) -> None:
        try:
            self._connect(lambda distributed: self._local_client(distributed, local, max_retries, preload))
        except BaseException as exc:  # noqa: BLE001 - raised where the client is wanted
            self._failure = exc

    def _local_client(self, distributed, local: int, max_retries: int, preload: tuple[str, ...]):
        import dask

        settings = {**LEAN_SETTINGS, "distributed.scheduler.allowed-failures": max_retries, COMMAND_CLUSTER: True}
        if self._forked:
            settings["distributed.worker.multiprocessing-method"] = "forkserver"
            distributed.utils._forkserver_preload_set = True  # started already (else Dask's list: pandas and more)
        with dask.config.set(settings):
            self._cluster = distributed.LocalCluster(
                n_workers=local, threads_per_worker=1, processes=True, memory_limit=0,
                dashboard_address=None, silence_logs=logging.ERROR,
                # its health and metrics routes on a free port of this host (not 8787, which
                # another cluster may hold: Dask would warn)
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                preload=[__name__, *preload],  # imported as each worker starts, not by its first task
            )  # fmt: skip
        # results straight from the workers, not relayed by the scheduler (all on this machine)
        return distributed.Client(self._cluster, set_as_default=False, direct_to_workers=True)

    @staticmethod
    def _scheduler_client(distributed, scheduler: str):
        _check_reachable(scheduler)
        return distributed.Client(scheduler, timeout=f"{CONNECT_SECONDS}s", set_as_default=False)

    def _connect(self, make_client) -> None:
        """Make the client (and a LocalCluster, for ``local``) and wait for a worker; on any
        failure, let go of what was started and raise its ClusterError."""
        try:
            self._client = make_client(_distributed())
            self._client.wait_for_workers(1, timeout=CONNECT_SECONDS)
        except BaseException as exc:
            self._stop()
            if isinstance(exc, (OSError, TimeoutError, RuntimeError, ValueError)):  # unreachable, no worker, bad address
                raise ClusterError(f"--executor dask: {self.where}: {first_line(str(exc)) or type(exc).__name__}") from None
            raise

    @property
    def client(self):
        """The client, once the cluster is up (None after ``close``); raises what its start raised."""
        if self._starting is not None:
            self._starting.join()
            self._starting = None
        if self._failure is not None:
            failure, self._failure = self._failure, None
            self._closed = True
            raise failure
        return None if self._closed else self._client

    def close(self) -> None:
        """Close the client, and the LocalCluster if this started one (once it has started)."""
        if self._starting is not None:
            self._starting.join()
            self._starting = None
        self._closed = True
        self._stop()

    def _stop(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            if self._cluster is not None and not self._forked:
                # spawned workers exit through Python's finalization, whose last garbage collection
                # walked every object scoring had left there: 1.5 s a worker on the suite (a forked
                # worker leaves with os._exit)
                with contextlib.suppress(OSError, TimeoutError):
                    client.run(keep_all)
            client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None
