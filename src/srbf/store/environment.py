"""Where and with what a campaign ran: the machine and the git state of srbf's own source.

Both are recorded with every campaign so a result can be traced to the code and hardware that
produced it. They are best effort: a machine fact that cannot be read is left out, and the git
state is ``None`` when srbf was not run from a git checkout (an installed wheel) or git is absent.
"""

from __future__ import annotations

import os
import platform
import socket
import subprocess
from pathlib import Path

import srbf


def machine_info() -> dict[str, object]:
    """Hostname, platform string, logical CPU count and Python version of this process."""
    return {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "python_version": platform.python_version(),
    }


def _git(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(directory), *args], capture_output=True, text=True, timeout=10, check=False
    )


def git_state(directory: str | Path | None = None) -> tuple[str, bool] | None:
    """``(commit, dirty)`` of the git checkout holding ``directory`` (default: srbf's source).

    ``None`` unless ``directory`` holds a file tracked by that checkout, so an srbf installed into
    a virtual environment that happens to live inside some other repository is not attributed to
    that repository's commit. ``dirty`` means tracked files differ from the commit.
    """
    directory = Path(directory) if directory is not None else Path(srbf.__file__).resolve().parent
    try:
        tracked = _git(directory, "ls-files", "--error-unmatch", "--", ".")
        head = _git(directory, "rev-parse", "--verify", "HEAD")
        if tracked.returncode != 0 or head.returncode != 0:
            return None
        status = _git(directory, "status", "--porcelain", "--untracked-files=no")
        if status.returncode != 0:
            return None
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip(), bool(status.stdout.strip())
