"""What every command module of the ``srbf`` CLI shares: argument types, ``UserError``, SIGTERM.

Argument types raise ``argparse.ArgumentTypeError`` so argparse prints one line naming the
option and the bad value. This module imports nothing heavy: the parser is built from it.
"""

from __future__ import annotations

import argparse

from srbf.core import SrbfError


class UserError(SrbfError):
    """An error in what the user asked for; printed as one line, exit status 2."""


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def worker_count(text: str) -> int:
    """A number of worker processes: a positive integer within the machine's limit
    (``srbf.runs.config_limits.max_workers``, docs/config.md "Ranges")."""
    from srbf.runs.config_limits import WORKERS  # standard library only

    value = positive_int(text)
    problem = WORKERS.problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return value


def seed_value(text: str) -> int:
    """A seed: an integer in 0 .. 2**63-1, the range of a config's run seed (docs/config.md "Ranges")."""
    from srbf.runs.config_limits import SEED  # standard library only

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}") from None
    problem = SEED.problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return value


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text}")
    return value


def non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text!r}") from None
    if not value >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text}")
    return value


def terminate_as_interrupt(signum, frame):  # noqa: ARG001 - signal handler signature
    """SIGTERM handler: ``kill PID`` stops a long command as cleanly as Ctrl-C."""
    raise KeyboardInterrupt


def add_executor_flags(parser: argparse.ArgumentParser, what: str) -> None:
    """``--executor local|dask`` with ``--scheduler ADDRESS`` or ``--local N`` (docs/cluster.md)."""
    parser.add_argument("--executor", choices=("local", "dask"), default="local",
                        help=f"where {what}: processes here (default) or a Dask cluster (docs/cluster.md)")  # fmt: skip
    parser.add_argument("--scheduler", metavar="ADDRESS", help="with --executor dask: the scheduler (tcp://host:8786)")
    parser.add_argument("--local", type=worker_count, metavar="N",
                        help="with --executor dask: start a LocalCluster of N worker processes")  # fmt: skip


def cluster_choice(args: argparse.Namespace) -> dict | None:
    """The Dask cluster the flags of ``add_executor_flags`` ask for (``{"scheduler": ...}`` or
    ``{"local": N}``), None for local processes; UserError for flags that do not go together."""
    if args.executor == "local":
        if args.scheduler or args.local:
            raise UserError("--scheduler and --local choose a Dask cluster: add --executor dask")
        return None
    if (args.scheduler is None) == (args.local is None):
        raise UserError("--executor dask: give either --scheduler ADDRESS or --local N")
    return {"scheduler": args.scheduler} if args.scheduler else {"local": args.local}


def prestart_workers(cluster: dict | None, modules: tuple[str, ...]) -> None:
    """With ``--local N``, start the LocalCluster's fork server now, importing ``modules`` for its
    workers while the command imports its own code and reads its inputs (``srbf.runs.fork_server``)."""
    if cluster is not None and "local" in cluster:
        from srbf.runs.fork_server import start_fork_server

        start_fork_server(modules)
