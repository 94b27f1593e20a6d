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
