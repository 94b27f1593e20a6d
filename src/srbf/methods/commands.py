"""The method-roster commands of the ``srbf`` CLI (methods list, install, doctor)."""

from __future__ import annotations

import argparse


def add_method_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``srbf methods ...`` on the top-level ``srbf`` parser."""
