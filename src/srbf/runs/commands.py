"""The run commands of the ``srbf`` CLI (run, status, check, export, new)."""

from __future__ import annotations

import argparse


def add_run_commands(commands: argparse._SubParsersAction) -> None:
    """Register the run commands on the top-level ``srbf`` parser."""
