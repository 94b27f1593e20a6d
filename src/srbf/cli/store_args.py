"""Which results store a command reads, and which of its configurations: one rule for every command.

The store: ``--results DIR`` when given; else the ``results:`` of the config ``-c CONFIG`` names
(a file, or a shipped config's name, as ``srbf run -c`` takes it); else ``./srbf-results``. Only
the config's ``results:`` is read (the rest of it need not validate: a method file it names may
have moved since the run). ``--configs latest|all|HASH...`` chooses the configurations read
(``srbf.store.configurations``). docs/cli.md states the rule once; every command that reads a store
calls ``results_root`` and ``configs_choice``. Imports nothing heavy: the parser is built from it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from srbf.cli.args import UserError
from srbf.core import DEFAULT_RESULTS

__all__ = ["add_config_flag", "add_configs_flag", "add_store_flags", "configs_choice", "results_root"]

CONFIGS_HELP = ("which configurations of each method to read: latest (default: the newest of each method, "
                "saying what was set aside), all (older ones shown as METHOD@HASH), or HASH ... (those, "
                "and the newest of every other method); srbf runs lists them")


def add_config_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("-c", "--config", metavar="CONFIG",
                   help=f"read the store the run config's results: names (default: {DEFAULT_RESULTS}; "
                        "--results wins)")  # fmt: skip


def add_configs_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--configs", nargs="+", metavar="CHOICE", default=["latest"], help=CONFIGS_HELP)


def add_store_flags(p: argparse.ArgumentParser, *, option: str = "--results", configs: bool = True) -> None:
    """``-c CONFIG``, ``--results DIR`` (or ``option``, e.g. ``--records``) and ``--configs``."""
    add_config_flag(p)
    p.add_argument(option, dest="results", metavar="DIR",
                   help=f"results store (default: the config's results:, else {DEFAULT_RESULTS})")
    if configs:
        add_configs_flag(p)


def results_root(args: argparse.Namespace) -> str:
    """The store a command reads, by the one rule above."""
    if getattr(args, "results", None):
        return str(args.results)
    config = getattr(args, "config", None)
    if config:
        return config_results(config)
    return DEFAULT_RESULTS


def config_results(config: str | Path) -> str:
    """The ``results:`` of the config file (or shipped config) ``config``, else the default
    (``srbf.runs.shipped.results_of``, the rule ``srbf.open`` follows too)."""
    from srbf.runs.shipped import ConfigResultsError, results_of

    try:
        return results_of(config, f"-c {config}")
    except ConfigResultsError as error:
        raise UserError(str(error)) from None


def configs_choice(args: argparse.Namespace) -> tuple[str, ...]:
    """The ``--configs`` choice as ``srbf.store.configurations.select_configurations`` takes it."""
    return tuple(getattr(args, "configs", None) or ("latest",))
